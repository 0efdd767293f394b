// Package llmtest holds the test doubles for model services: loopback
// httptest servers that speak the real wire dialects (FakeChatCompletions
// for Kimi/OpenAI Chat Completions, FakeAnthropic for Anthropic Messages),
// serve one scripted Reply per request, record what they received, and
// reject what the real services reject, with the real statuses and error
// bodies. Replies can inject the faults real networks produce: error
// statuses with Retry-After, resets and torn events mid-stream, malformed
// chunks, streams without a finish reason, slow first bytes; and the
// quirks of real answers (quirks.go): repeated tool-call ids, a call
// without a tool name.
//
// Replies are built on llm/scripted's Response, so the same script drives
// a scripted provider and a wire-level fake.
//
// A window (ContextWindow) makes a fake reject a request whose
// Request.Tokens (body bytes / 4) exceed it with the service's real
// context-length 400. Respond answers the requests after the script from
// what they ask, for long sessions whose replies depend on the request
// (summary requests, usage derived from the request size); guarded by
// respond_test.go.
//
// Fault.Hold stops a reply at a Gate, before its headers or after some
// events, and says when it got there, so a test can act at that point
// while the client waits: kill it, read what it recorded (gate_test.go).
//
// The faults of a service that never ends or answers 200 with something
// that is not a stream have presets (faults.go): HeadersThenSilence,
// KeepAliveForever, EndlessDeltas, HTML200, JSON200, Empty200, LongLine,
// EndAfter and EndBefore. A fake started with InMemory serves over
// net.Pipe connections that its Client dials, so a test can run the real
// providers against it under testing/synctest and let minutes of timeouts
// pass in fake time (faults_test.go).
//
// Golden (golden.go) compares a test's output, such as a wire request,
// with its golden file under testdata/ and rewrites it under -update; it
// lives here so that the llm packages' own tests can use it without
// importing anything outside llm (STYLE.md §2).
//
// It owns no client code: tests point llm/openai and llm/anthropic at these
// servers. Guarded by chat_completions_test.go and anthropic_test.go, which
// pin the strict rules to the error texts the real services return.
package llmtest
