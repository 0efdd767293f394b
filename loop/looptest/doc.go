// Package looptest holds the test doubles for package loop: FakeLLM, a
// loop.LLM that answers from a script and records every request; the
// scenario tools Echo, Slow and Gated plus a configurable Tool; and the
// helpers a loop test needs around them (Recorder for the transcript and
// the live events, Sleeper for instant recorded retry waits, SeqUUIDs for
// deterministic ids).
//
// FakeLLM lives here rather than in llm/llmtest because llm packages may not
// import loop. Everything here is safe for concurrent use and offline.
package looptest
