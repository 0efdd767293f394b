// Package llm is kimigo's provider-neutral model layer: the message model
// (roles, content parts, tool calls, tool definitions), token usage, finish
// reasons, model capabilities, the Provider and Stream interfaces, the
// streaming Generate that assembles a response, and the one error type
// *Error with the predicates callers branch on (IsRetryable,
// IsContextOverflow, IsRequestTooLarge, …).
//
// It owns no wire format (llm/openai and llm/anthropic do) and imports
// nothing else from kimigo. Providers never retry: the loop is the only
// retry layer.
//
// Invariants, and the tests that guard them:
//   - Generate merges streamed parts by the table of spec 01 §2.3 and never
//     returns partial content after a cancel (generate_test.go, S-G1..S-G7);
//     the assembly is linear in the response however small its deltas,
//     and keeps pieces of a kilobyte or more without copying them
//     (assemble.go; assemble_test.go FuzzMergeParts against the plain
//     merge, TestMergePartsIsLinear, TestMergePartsKeepsLargePieces;
//     BenchmarkGenerateLargeToolArgs in both wires).
//   - Tool-call ids are unique within a response: a repeated id gets a
//     fresh one on receipt, before any callback sees the call
//     (assemble_test.go TestRepeatedToolCallIDsGetFreshIDs).
//   - Every failure a provider reports is an *Error or an abort, and an
//     abort is never classified as a provider failure (errors_test.go,
//     S-E1..S-E5). A stream cut before its end marker is an incomplete
//     response (retryable); a 200 that is not a stream, or a line over the
//     decoder's limit, an invalid one (not retryable); a stream that does
//     not parse, or an empty 200, a malformed one (retryable, but the loop
//     stops when it repeats); a response cut at the response timeout is not
//     retryable (body_test.go TestResponseKinds).
//   - An HTML error page is shown as its status and title, never the page
//     (body_test.go).
//   - Persisted JSON shapes of parts and tool calls are byte-stable
//     (message_test.go).
package llm
