// Package llmtest holds the test doubles for model services: loopback
// httptest servers that speak the real wire dialects (FakeChatCompletions
// for Kimi/OpenAI Chat Completions, FakeAnthropic for Anthropic Messages),
// serve one scripted Reply per request, record what they received, and
// reject what the real services reject, with the real statuses and error
// bodies. Replies can inject the faults real networks produce: error
// statuses with Retry-After, resets and torn events mid-stream, malformed
// chunks, streams without a finish reason, slow first bytes.
//
// Replies are built on llm/scripted's Response, so the same script drives
// a scripted provider and a wire-level fake.
//
// It owns no client code: tests point llm/openai and llm/anthropic at these
// servers. Guarded by chat_completions_test.go and anthropic_test.go, which
// pin the strict rules to the error texts the real services return.
package llmtest
