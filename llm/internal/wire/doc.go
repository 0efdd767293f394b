// Package wire holds what the two HTTP provider wires (llm/openai and
// llm/anthropic) share beyond SSE decoding: the clocks that bound one
// response (watch.go), the check that a 2xx answer is something a
// stream decoder should read at all (sniff.go), the run that coalesces
// deltas which arrived together into one part (run.go), and the request
// body that is encoded a message at a time while it is sent (body.go).
//
// Invariants, and the tests that guard them:
//   - The idle clock runs from the moment a request is sent: waiting for
//     the response headers and waiting between body bytes both count, and
//     every byte that arrives restarts it. The response clock runs from the
//     same moment to the end of the body. Either one cancels the request
//     with a cause that wraps llm.ErrProviderTimeout and names the time;
//     Timeout turns that cause into a Timeout *llm.Error (watch_test.go,
//     under testing/synctest).
//   - A body labelled text/event-stream, or with no content type, is read
//     as a stream without looking at it; application/json is handed to the
//     provider as JSON; anything else is read as a stream only when its
//     first bytes are SSE fields, and is otherwise a KindInvalidResponse
//     error naming the content type and what the body says (sniff_test.go).
//   - A Run joins only consecutive deltas of one part and keeps the order
//     of parts (run_test.go); the providers flush it whenever the next
//     event is not buffered yet, so no delta waits for the network
//     (TestDeltasThatArrivedTogetherAreOnePart in both wires).
//   - A Body reads as its head, its messages joined by commas, its tail and
//     the pieces after it, as often as it is read, at the length NewBody
//     measured; Sizes re-encodes only the messages the last request did not
//     have, compared with the wire's Equal when it gives one (body_test.go;
//     TestRequestBodyIsStreamed in both wires).
package wire
