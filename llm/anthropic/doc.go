// Package anthropic is the Anthropic Messages provider: one streaming
// POST /v1/messages per Generate over plain net/http, for api.anthropic.com
// and Anthropic-compatible services (including Kimi's).
//
// It owns the request body (hand-written structs in wire order: request.go),
// history conversion (convert.go: system turns as <system> text, tool
// results as tool_result blocks, media blocks, signed and unsigned thinking,
// merging of consecutive user turns, the prompt-cache breakpoint),
// max_tokens (maxtokens.go, from the model's output ceiling), thinking
// profiles and settings (thinking.go, version.go), the SSE stream (stream.go,
// with a fixed-layout fast path for content_block_delta in delta.go) and
// error classification (errors.go). It does not retry, repair
// histories or pick efforts: the loop and the host do.
//
// Invariants, and the tests that guard them:
//   - The process environment is never read: no key, token, base URL or
//     header comes from it, and Authorization is never sent
//     (TestSA1RequestShapeAndCredentials).
//   - One Generate is at most one HTTP request; request-building problems
//     fail before sending as invalid requests, except image problems, which
//     keep their image-format classification so the media-stripped resend
//     fires (TestSA7ClientSideImageRejection, TestSE5InvalidRequestNotRetried).
//   - Request bytes are stable for the same input (golden files in
//     testdata/, provider_test.go and convert_test.go), and are what
//     encoding/json marshals, though written a message at a time while
//     they are sent, never into one buffer (request_test.go,
//     TestRequestBodyIsStreamed), with messages encoded by hand
//     (TestAppendMessageMatchesEncodingJSON, FuzzAppendMessage) and the
//     system blocks and tool table encoded once while they are unchanged
//     (TestSameToolTableSendsTheGoldenBodyTwice, TestChangedToolTableIsSent).
//   - Every stream failure is an *llm.Error or an abort (stream_test.go,
//     FuzzAnthropicStream). A body is an answer only when it reached
//     message_stop or a message_delta with a stop_reason; a body that ends
//     before them, between events or inside one, is an incomplete response
//     and none of it is used (TestStreamEndings, faults_test.go). The delta
//     fast path decodes exactly what encoding/json would
//     (FuzzDeltaFastPath). Deltas of one block that arrived together are
//     handed out as one part (llm/internal/wire.Run); none waits for bytes
//     not yet received (TestDeltasThatArrivedTogetherAreOnePart).
//   - The service must send a byte every IdleTimeout (default 2 minutes,
//     the wait for headers included; pings count) and finish within
//     ResponseTimeout (default 30 minutes). A 200 that is not an event
//     stream is invalid and names its content type; a JSON error envelope
//     is classified like the error event it stands for (faults_test.go).
//   - Copies made by the With* methods share the HTTP client and never
//     modify the original (TestCopiesAreIndependent).
//
// The package imports only the standard library, llm, llm/internal/sse and
// llm/internal/wire.
package anthropic
