package anthropic

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/internal/sse"
	"github.com/kimigo/kimigo/llm/internal/wire"
)

// eventType names an SSE event of the Messages stream.
type eventType string

// Stream events. ping, content_block_stop and message_stop carry nothing
// the client needs.
const (
	eventMessageStart eventType = "message_start"
	eventMessageDelta eventType = "message_delta"
	eventMessageStop  eventType = "message_stop"
	eventBlockStart   eventType = "content_block_start"
	eventBlockDelta   eventType = "content_block_delta"
	eventBlockStop    eventType = "content_block_stop"
	eventPing         eventType = "ping"
	eventError        eventType = "error"
)

// deltaType is the type of a content_block_delta.
type deltaType string

const (
	deltaText      deltaType = "text_delta"
	deltaThinking  deltaType = "thinking_delta"
	deltaInputJSON deltaType = "input_json_delta"
	deltaSignature deltaType = "signature_delta"
)

// blockRedactedThinking only appears inbound: its data is the signature
// that a thinking block carries back.
const blockRedactedThinking blockType = "redacted_thinking"

// usageFields are the counters of message_start and message_delta; absent
// or null fields stay nil.
type usageFields struct {
	InputTokens   *float64 `json:"input_tokens"`
	OutputTokens  *float64 `json:"output_tokens"`
	CacheRead     *float64 `json:"cache_read_input_tokens"`
	CacheCreation *float64 `json:"cache_creation_input_tokens"`
}

type messageStartEvent struct {
	Message struct {
		ID    string      `json:"id"`
		Usage usageFields `json:"usage"`
	} `json:"message"`
}

type messageDeltaEvent struct {
	Delta struct {
		// StopReason is nil when the key is absent and "null" when it is
		// explicitly null: the two mean different things.
		StopReason json.RawMessage `json:"stop_reason"`
	} `json:"delta"`
	Usage *usageFields `json:"usage"`
}

type blockStartEvent struct {
	Index        int `json:"index"`
	ContentBlock struct {
		Type     blockType `json:"type"`
		Text     string    `json:"text"`
		Thinking string    `json:"thinking"`
		Data     string    `json:"data"`
		ID       string    `json:"id"`
		Name     string    `json:"name"`
	} `json:"content_block"`
}

// blockDeltaEvent is the hot path: only the fields any delta type uses.
type blockDeltaEvent struct {
	Index int `json:"index"`
	Delta struct {
		Type        deltaType `json:"type"`
		Text        string    `json:"text"`
		Thinking    string    `json:"thinking"`
		PartialJSON string    `json:"partial_json"`
		Signature   string    `json:"signature"`
	} `json:"delta"`
}

// stream turns a Messages SSE body into stream parts (spec 01 §3.4.7). It
// works on any io.Reader; the HTTP specifics (timeouts, cancellation) come
// in through reqCtx and release.
type stream struct {
	dec  *sse.Decoder
	body io.Closer
	// ctx is the caller's context: when it is done, failures are aborts.
	ctx context.Context
	// reqCtx carries the provider's own timeouts as its cause.
	reqCtx context.Context
	// release stops timers and cancels the request; nil when unused.
	release func()
	closed  atomic.Bool

	id         string
	usage      llm.TokenUsage
	finish     llm.FinishReason
	rawFinish  string
	toolBlocks map[int]bool // block indexes that started as tool_use
	events     int          // events decoded
	sawStop    bool         // message_stop arrived
	err        error        // sticky: io.EOF or the classified failure

	delta blockDeltaEvent // reused across deltas
	// run coalesces the deltas of events that arrived together
	// (wire.Run); queue holds what Next hands out next.
	run   wire.Run
	queue []llm.StreamPart
	head  int
	// scratch holds unescaped delta text until the next event.
	scratch []byte
}

// newStream reads events from body. reqCtx may equal ctx.
func newStream(ctx, reqCtx context.Context, body io.ReadCloser, release func()) *stream {
	return &stream{
		dec:        sse.NewDecoder(body),
		body:       body,
		ctx:        ctx,
		reqCtx:     reqCtx,
		release:    release,
		toolBlocks: map[int]bool{},
	}
}

// Next returns the next part, io.EOF at a clean end (an event boundary),
// or a classified error. Errors are sticky; the parts decoded before one
// are handed out first.
func (s *stream) Next() (llm.StreamPart, error) {
	for {
		if s.head < len(s.queue) {
			p := s.queue[s.head]
			s.queue[s.head] = llm.StreamPart{}
			s.head++
			return p, nil
		}
		s.queue, s.head = s.queue[:0], 0
		if s.err != nil {
			return llm.StreamPart{}, s.err
		}
		ev, err := s.dec.Next()
		if err != nil {
			s.err = s.readError(err)
		} else {
			s.events++
			if err := s.handle(ev); err != nil {
				s.err = err
			}
		}
		// A delta waits in the run only while the next event is already
		// here and nothing else was queued.
		if len(s.queue) > 0 || s.err != nil || !s.dec.Ready() {
			s.queue = s.run.Flush(s.queue)
		}
	}
}

// errStreamClosed is the cause when Close interrupts a read.
var errStreamClosed = errors.New("anthropic stream: closed")

// readError classifies the end of the body: a complete answer is io.EOF;
// the caller's cancel an abort; one of the provider's clocks a Timeout; a
// body that ended before message_stop (or a stop_reason) an incomplete
// response; an empty body or a line over the decoder's limit a malformed or
// invalid one; the rest by llm.ClassifyTransport.
func (s *stream) readError(err error) error {
	switch {
	case err == io.EOF:
		return s.end()
	case s.ctx.Err() != nil:
		return llm.Aborted(s.ctx)
	case s.closed.Load():
		return &llm.Error{Kind: llm.KindConnection, Message: errStreamClosed.Error(), Cause: errStreamClosed}
	case errors.Is(err, sse.ErrUnterminated):
		return &llm.Error{Kind: llm.KindIncompleteResponse, Cause: err, Message: fmt.Sprintf(
			"incomplete response: anthropic stream ended inside an event, after %d events", s.events)}
	case errors.Is(err, sse.ErrLineTooLong):
		return &llm.Error{Kind: llm.KindInvalidResponse, Cause: err, Message: fmt.Sprintf(
			"invalid response: anthropic stream: a line is longer than %d MiB, the most one event may carry", sse.MaxLine>>20)}
	}
	if e := wire.Timeout(s.reqCtx); e != nil {
		return e
	}
	classified := llm.ClassifyTransport(s.ctx, fmt.Errorf("anthropic stream: %w", err))
	if _, ok := llm.AsError(classified); !ok {
		// A cancellation nobody asked for is a broken connection.
		return &llm.Error{Kind: llm.KindConnection, Message: "connection error: anthropic stream: " + err.Error(), Cause: err}
	}
	return classified
}

// end judges a body that ended at an event boundary. message_stop, or a
// message_delta with a stop_reason (the service sends message_stop right
// after it), makes it an answer; without them whatever arrived is an
// incomplete response, and no tool call in it may run.
func (s *stream) end() error {
	switch {
	case s.sawStop || s.rawFinish != "":
		return io.EOF
	case s.dec.Bytes() == 0:
		return &llm.Error{Kind: llm.KindMalformedResponse,
			Message: "malformed response: anthropic stream: the service answered 200 with an empty body"}
	}
	return &llm.Error{Kind: llm.KindIncompleteResponse, Message: fmt.Sprintf(
		"incomplete response: anthropic stream ended after %d events without message_stop", s.events)}
}

// malformed is the error of an event that does not decode. Its message
// depends only on the event, so a service that sends the same bad event
// every time fails the same way, and the loop stops retrying.
func malformed(ev eventType, err error) *llm.Error {
	return &llm.Error{Kind: llm.KindMalformedResponse, Cause: err,
		Message: fmt.Sprintf("malformed response: anthropic stream: %s event does not decode: %v", ev, err)}
}

// handle interprets one event, queueing the part it yields, if any.
// Unknown events, block types and delta types are ignored.
func (s *stream) handle(ev sse.Event) error {
	switch eventType(ev.Type) {
	case eventBlockDelta:
		return s.onDelta(ev.Data)
	case eventBlockStart:
		return s.onStart(ev.Data)
	case eventMessageStart:
		return s.onMessageStart(ev.Data)
	case eventMessageDelta:
		return s.onMessageDelta(ev.Data)
	case eventError:
		return streamError(ev.Data)
	case eventMessageStop:
		s.sawStop = true
	case eventPing, eventBlockStop:
		// Nothing to read: block ends are implied by the next part.
	}
	return nil
}

// push queues a part that is not a delta, after the run.
func (s *stream) push(p llm.StreamPart) {
	s.queue = append(s.run.Flush(s.queue), p)
}

func (s *stream) onDelta(data []byte) error {
	d := &s.delta
	*d = blockDeltaEvent{}
	text, ok := decodeDeltaFast(data, d, &s.scratch)
	if !ok {
		*d = blockDeltaEvent{}
		if err := json.Unmarshal(data, d); err != nil {
			return malformed(eventBlockDelta, err)
		}
		text = nil
	}
	// The fast path leaves the delta's text in text, encoding/json in the
	// field of its type.
	add := func(k wire.RunKey, field string) {
		if ok {
			s.queue = s.run.Add(s.queue, k, text)
		} else {
			s.queue = s.run.AddString(s.queue, k, field)
		}
	}
	switch d.Delta.Type {
	case deltaText:
		add(wire.TextRun, d.Delta.Text)
	case deltaThinking:
		add(wire.ThinkRun, d.Delta.Thinking)
	case deltaSignature:
		// Merges into the open thinking part and closes it.
		sig := d.Delta.Signature
		if ok {
			sig = string(text)
		}
		s.push(llm.ContentStreamPart(llm.ThinkPart("", sig)))
	case deltaInputJSON:
		if s.toolBlocks[d.Index] { // else: arguments of a block we do not track
			add(wire.ArgsRun(d.Index, true), d.Delta.PartialJSON)
		}
	}
	return nil
}

func (s *stream) onStart(data []byte) error {
	var e blockStartEvent
	if err := json.Unmarshal(data, &e); err != nil {
		return malformed(eventBlockStart, err)
	}
	b := e.ContentBlock
	if b.Type != blockToolUse {
		delete(s.toolBlocks, e.Index)
	}
	switch b.Type {
	case blockText:
		s.push(llm.ContentStreamPart(llm.TextPart(b.Text)))
	case blockThinking:
		s.push(llm.ContentStreamPart(llm.ThinkPart(b.Thinking, "")))
	case blockRedactedThinking:
		s.push(llm.ContentStreamPart(llm.ThinkPart("", b.Data)))
	case blockToolUse:
		s.toolBlocks[e.Index] = true
		id := b.ID
		if id == "" {
			id = newUUID()
		}
		// The start block's input is always {} on the wire; the real
		// arguments follow as input_json_delta.
		s.push(llm.StreamPart{Kind: llm.KindToolCall, ToolCall: llm.ToolCall{ID: id, Name: b.Name},
			Index: e.Index, Indexed: true})
	}
	return nil
}

func (s *stream) onMessageStart(data []byte) error {
	var e messageStartEvent
	if err := json.Unmarshal(data, &e); err != nil {
		return malformed(eventMessageStart, err)
	}
	s.id = e.Message.ID
	u := e.Message.Usage
	s.usage = llm.TokenUsage{
		InputOther:         count(u.InputTokens),
		Output:             count(u.OutputTokens),
		InputCacheRead:     count(u.CacheRead),
		InputCacheCreation: count(u.CacheCreation),
	}
	return nil
}

func (s *stream) onMessageDelta(data []byte) error {
	var e messageDeltaEvent
	if err := json.Unmarshal(data, &e); err != nil {
		return malformed(eventMessageDelta, err)
	}
	if u := e.Usage; u != nil {
		override(&s.usage.InputOther, u.InputTokens)
		override(&s.usage.Output, u.OutputTokens)
		override(&s.usage.InputCacheRead, u.CacheRead)
		override(&s.usage.InputCacheCreation, u.CacheCreation)
	}
	if raw := e.Delta.StopReason; raw != nil {
		var reason *string
		if err := json.Unmarshal(raw, &reason); err != nil {
			return malformed(eventMessageDelta, fmt.Errorf("stop_reason: %w", err))
		}
		s.rawFinish = ""
		if reason != nil {
			s.rawFinish = *reason
		}
		s.finish = llm.AnthropicFinish(s.rawFinish)
	}
	return nil
}

// newUUID returns a random version-4 UUID for a tool call the server sent
// without an id.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// maxCount keeps absurd counters representable on every platform.
const maxCount = 1 << 53

// count converts a JSON counter: missing is 0, negatives clamp to 0.
func count(v *float64) int {
	if v == nil || *v <= 0 {
		return 0
	}
	return int(min(*v, maxCount))
}

func override(dst *int, v *float64) {
	if v != nil {
		*dst = count(v)
	}
}

// Close ends the stream and releases the connection. It is safe to call
// more than once and from another goroutine than Next.
func (s *stream) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	if s.release != nil {
		s.release()
	}
	return s.body.Close()
}

// ID is message_start's message id.
func (s *stream) ID() string { return s.id }

// Usage is always reported: Anthropic sends counters on every stream, and
// a stream without them counts as zero.
func (s *stream) Usage() (llm.TokenUsage, bool) { return s.usage, true }

// FinishReason is the normalised stop_reason of the last message_delta
// that carried one.
func (s *stream) FinishReason() llm.FinishReason { return s.finish }

// RawFinishReason is the stop_reason as sent.
func (s *stream) RawFinishReason() string { return s.rawFinish }

// TraceID is always empty: Anthropic has no trace id header.
func (s *stream) TraceID() string { return "" }
