// Package openai is the Chat Completions provider over plain net/http, in
// two flavours: Kimi (Moonshot) and plain OpenAI (also DeepSeek, Ollama,
// vLLM and other compatible servers). It implements llm.Provider.
//
// It owns: request building with a fixed field order (request.go, writer.go);
// message and tool conversion per flavour (convert.go); Kimi's tool-schema
// normalisation (schema.go); thinking controls, the extra body and
// preserved thinking (thinking.go); the reasoning-key dialect learned from
// the endpoint and shared by every copy of a Provider (dialect.go); the
// stream converter, an llm.Stream over the SSE decoder (stream.go), with
// tool-call delta buffering (toolcalls.go) and a reflection-free scanner for
// common chunks (chunkscan.go); HTTP status conversion (errors.go); the
// transport, with the idle and response clocks and the content-type check
// of llm/internal/wire (transport.go); Kimi video upload (upload.go).
//
// It does not own: the message model, error kinds and predicates, status
// and transport classification or tool-call id normalisation (package llm),
// SSE framing (llm/internal/sse), retries (the loop), or configuration. It
// never reads the process environment: keys, base URLs and headers come
// only from Options and per-request llm.Auth.
//
// Invariants, and the tests that guard them:
//   - One HTTP request per Generate, no hidden retries, no overall client
//     timeout; the service must send a byte every IdleTimeout (default 2
//     minutes, the wait for headers included) and finish within
//     ResponseTimeout (default 30 minutes) (stream_test.go TestWireFaults,
//     faults_test.go, errors_test.go failOnce).
//   - A body is an answer only when it ends with [DONE] or after a
//     finish_reason; without either it is an incomplete response and none
//     of it is used. An empty 200 body is malformed; a 200 that is neither
//     an event stream nor a chat completion in JSON is invalid and names
//     its content type (TestStreamErrors, faults_test.go).
//   - A request body is encoded a message at a time while it is sent, with
//     its Content-Length, never into one buffer (TestRequestBodyIsStreamed).
//     The tool table is encoded once while unchanged and sent from that
//     cache as it is, after the tail (TestToolTableEncodedOnceWhileUnchanged,
//     TestSameToolTableSendsTheGoldenBodyTwice); a repeated message is
//     recognised by its fields, as reflect.DeepEqual would
//     (TestSameMessageIsDeepEqual,
//     TestRepeatedMessagesAreMeasuredByTheirFields).
//   - Request bodies are byte-stable and match the goldens in testdata;
//     the openai flavour sends tool schemas byte for byte; Kimi
//     normalisation never modifies its input (provider_test.go,
//     convert_test.go TestRequestBytesAreStable, schema_test.go).
//   - With preserved thinking every assistant message carries the
//     reasoning key, "" when it had none (TestSK2PreservedThinking).
//   - Every stream failure is an *llm.Error with a message or an abort;
//     the stream never panics, always ends, and never drops received
//     content silently (FuzzChatCompletionsStream, TestStreamErrors).
//   - The chunk scanner decodes exactly what encoding/json decodes, also
//     when it decodes a chunk as a repeat of the one before with another
//     string (FuzzChunkScanner, TestChunkScannerRepeatsMatchEncodingJSON);
//     BenchmarkSSEDecode tracks throughput, BenchmarkGenerateLargeToolArgs
//     a 2 MiB tool call in 16-byte deltas.
//   - Text, reasoning and argument deltas that arrived together are handed
//     out as one part (llm/internal/wire.Run); none waits for bytes not yet
//     received (TestDeltasThatArrivedTogetherAreOnePart).
//   - Status errors: abort first, then Kimi's quota hook (kimi flavour),
//     then insufficient_quota, then llm.NormalizeStatus (errors_test.go).
package openai
