package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/internal/sse"
	"github.com/kimigo/kimigo/llm/internal/wire"
)

// doneData ends a Chat Completions stream.
var doneData = []byte("[DONE]")

// maxNonStreamBody bounds a non-streaming (application/json) response.
const maxNonStreamBody = 64 << 20

// chunk is one streamed chat.completion.chunk, or a whole non-streaming
// chat.completion (whose choices carry message instead of delta). Only the
// fields the provider uses are decoded.
type chunk struct {
	ID      string          `json:"id"`
	Choices []choice        `json:"choices"`
	Usage   *usage          `json:"usage"`
	Error   json.RawMessage `json:"error"`
}

type choice struct {
	Delta        *delta  `json:"delta"`
	Message      *delta  `json:"message"`
	FinishReason *string `json:"finish_reason"`
	Usage        *usage  `json:"usage"`
}

type delta struct {
	Content          *string         `json:"content"`
	ReasoningContent json.RawMessage `json:"reasoning_content"`
	ReasoningDetails json.RawMessage `json:"reasoning_details"`
	Reasoning        json.RawMessage `json:"reasoning"`
	ToolCalls        []toolCallDelta `json:"tool_calls"`
	// text is content as the chunk scanner decoded it, when scanned (see
	// functionDelta.args); encoding/json fills Content instead.
	text    []byte
	scanned bool
}

type usage struct {
	PromptTokens        float64  `json:"prompt_tokens"`
	CompletionTokens    float64  `json:"completion_tokens"`
	CachedTokens        *float64 `json:"cached_tokens"`
	PromptTokensDetails *struct {
		CachedTokens float64 `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

func (u *usage) tokens() llm.TokenUsage {
	cached := 0.0
	switch {
	case u.CachedTokens != nil:
		cached = *u.CachedTokens
	case u.PromptTokensDetails != nil:
		cached = u.PromptTokensDetails.CachedTokens
	}
	return llm.ChatCompletionsUsage(int(u.PromptTokens), int(u.CompletionTokens), int(cached))
}

// streamConfig is what a stream needs from its provider.
type streamConfig struct {
	flavour Flavour
	dialect *reasoningDialect
	traceID string
	// json marks a non-streaming application/json body.
	json bool
	// reqCtx carries the provider's own clocks as its cancel cause; nil
	// means the stream's ctx.
	reqCtx context.Context
}

// stream converts a Chat Completions SSE body into llm stream parts. It is
// a pull iterator: each Next decodes events until one yields a part. An
// error is sticky: once Next failed it fails the same way.
type stream struct {
	ctx   context.Context
	body  io.ReadCloser
	dec   *sse.Decoder
	cfg   streamConfig
	close func() // releases the request; may be nil

	queue []llm.StreamPart
	head  int
	calls callBuffer
	// run coalesces the text and argument deltas of events that arrived
	// together (wire.Run); it is flushed into queue before Next returns.
	run wire.Run

	// scan decodes common chunks without encoding/json; c is the reused
	// decode target. noFastPath (tests only) sends every chunk through
	// encoding/json.
	scan       chunkScanner
	c          chunk
	noFastPath bool

	id        string
	usage     llm.TokenUsage
	hasUsage  bool
	rawFinish string
	events    int  // data events decoded
	sawDone   bool // [DONE] arrived

	err    error
	done   bool
	closed bool
}

func newStream(ctx context.Context, body io.ReadCloser, cfg streamConfig, release func()) *stream {
	if cfg.dialect == nil {
		cfg.dialect = newReasoningDialect("")
	}
	if cfg.reqCtx == nil {
		cfg.reqCtx = ctx
	}
	return &stream{ctx: ctx, body: body, dec: sse.NewDecoder(body), cfg: cfg, close: release}
}

// Next returns the next part, io.EOF at the clean end of the stream, or an
// *llm.Error (or an abort).
func (s *stream) Next() (llm.StreamPart, error) {
	for {
		if s.head < len(s.queue) {
			p := s.queue[s.head]
			s.queue[s.head] = llm.StreamPart{}
			s.head++
			return p, nil
		}
		s.queue, s.head = s.queue[:0], 0
		switch {
		case s.err != nil:
			return llm.StreamPart{}, s.err
		case s.done:
			if s.queue = s.calls.finish(s.run.Flush(s.queue)); len(s.queue) > 0 {
				continue
			}
			return llm.StreamPart{}, io.EOF
		case s.closed:
			s.err = &llm.Error{Kind: llm.KindGeneric, TraceID: s.cfg.traceID,
				Message: "Error: read from a closed stream"}
			continue
		}
		if err := s.fill(); err != nil {
			s.err = err
		}
		// A delta waits in the run only while the next event is already
		// here and nothing else was queued.
		if len(s.queue) > 0 || s.err != nil || s.done || !s.dec.Ready() {
			s.queue = s.run.Flush(s.queue)
		}
	}
}

// fill decodes the next event into the queue.
func (s *stream) fill() error {
	if s.cfg.json {
		return s.fillJSON()
	}
	ev, err := s.dec.Next()
	if err != nil {
		if err == io.EOF {
			s.done = true
			return s.end()
		}
		return s.readError(err)
	}
	data := bytes.TrimSpace(ev.Data)
	switch {
	case len(data) == 0:
		return nil
	case bytes.Equal(data, doneData):
		s.done, s.sawDone = true, true
		return nil
	}
	s.events++
	return s.handle(data)
}

// end judges a body that ended at an event boundary. [DONE] or a
// finish_reason makes it an answer (some compatible servers send only one
// of them); without either, whatever arrived is an incomplete response, and
// nothing in it, tool calls least of all, may be used.
func (s *stream) end() error {
	switch {
	case s.sawDone || s.rawFinish != "":
		return nil
	case s.dec.Bytes() == 0:
		return s.fault(llm.KindMalformedResponse,
			"malformed response: %s stream: the service answered 200 with an empty body", s.cfg.flavour)
	}
	return s.fault(llm.KindIncompleteResponse,
		"incomplete response: %s stream ended after %d events without [DONE] or a finish_reason", s.cfg.flavour, s.events)
}

// fillJSON reads a whole application/json body: a chat.completion (some
// compatible servers answer so even when asked to stream) or an error.
func (s *stream) fillJSON() error {
	s.done = true
	data, err := io.ReadAll(io.LimitReader(s.body, maxNonStreamBody))
	if err != nil {
		return s.readError(err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return s.fault(llm.KindMalformedResponse,
			"malformed response: %s: the service answered 200 with an empty application/json body", s.cfg.flavour)
	}
	notCompletion := func() error {
		return s.fault(llm.KindInvalidResponse, "invalid response: %s: the service answered 200 with Content-Type "+
			"application/json that is not a chat completion, where an event stream was requested: %s",
			s.cfg.flavour, llm.BodySummary(data))
	}
	if !json.Valid(data) {
		return notCompletion()
	}
	if err := s.handle(data); err != nil {
		return err
	}
	if len(s.c.Choices) == 0 {
		return notCompletion()
	}
	return nil
}

// fault is a classified stream failure.
func (s *stream) fault(kind llm.Kind, format string, args ...any) *llm.Error {
	return &llm.Error{Kind: kind, TraceID: s.cfg.traceID, Message: fmt.Sprintf(format, args...)}
}

// readError classifies a failure to read the body: the caller's cancel is
// an abort, one of the provider's clocks a Timeout, a clean end inside an
// event an incomplete response, a line over the decoder's limit an invalid
// one; transport failures go to llm.ClassifyTransport.
func (s *stream) readError(err error) error {
	switch {
	case s.ctx.Err() != nil:
		return llm.Aborted(s.ctx)
	case errors.Is(err, sse.ErrUnterminated):
		e := s.fault(llm.KindIncompleteResponse,
			"incomplete response: %s stream ended inside an event, after %d events", s.cfg.flavour, s.events)
		e.Cause = err
		return e
	case errors.Is(err, sse.ErrLineTooLong):
		e := s.fault(llm.KindInvalidResponse,
			"invalid response: %s stream: a line is longer than %d MiB, the most one event may carry", s.cfg.flavour, sse.MaxLine>>20)
		e.Cause = err
		return e
	}
	if e := wire.Timeout(s.cfg.reqCtx); e != nil {
		e.TraceID = s.cfg.traceID
		return e
	}
	cerr := llm.ClassifyTransport(s.ctx, err)
	if e, ok := llm.AsError(cerr); ok && e.TraceID == "" {
		e.TraceID = s.cfg.traceID
	}
	return cerr
}

// handle decodes one chunk and queues its parts: reasoning, then text, then
// tool-call parts.
func (s *stream) handle(data []byte) error {
	c := &s.c
	*c = chunk{}
	if s.noFastPath || !s.scan.scan(data, c) {
		*c = chunk{}
		if err := json.Unmarshal(data, c); err != nil && !tolerable(err) {
			return s.malformed(err, data)
		}
	}
	if len(c.Error) > 0 && !bytes.Equal(c.Error, []byte("null")) {
		return s.errorPayload(c.Error)
	}
	if c.ID != "" {
		s.id = c.ID
	}
	if c.Usage != nil {
		s.usage, s.hasUsage = c.Usage.tokens(), true
	}
	if len(c.Choices) == 0 {
		return nil
	}
	ch := &c.Choices[0]
	if ch.Usage != nil && c.Usage == nil && s.cfg.flavour == Kimi {
		s.usage, s.hasUsage = ch.Usage.tokens(), true
	}
	if ch.FinishReason != nil && *ch.FinishReason != "" {
		s.rawFinish = *ch.FinishReason
	}
	d := ch.Delta
	if d == nil {
		d = ch.Message
	}
	if d == nil {
		return nil
	}
	if think, ok := s.reasoning(d, data); ok {
		s.queue = s.run.AddString(s.queue, wire.ThinkRun, think)
	}
	switch {
	case d.scanned && len(d.text) > 0:
		s.queue = s.run.Add(s.queue, wire.TextRun, d.text)
	case d.Content != nil && *d.Content != "":
		s.queue = s.run.AddString(s.queue, wire.TextRun, *d.Content)
	}
	for i := range d.ToolCalls {
		s.queue = s.calls.add(&d.ToolCalls[i], &s.run, s.queue)
	}
	return nil
}

// reasoning returns the delta's reasoning text: the first known key whose
// value is a string (even ""), or only the configured key.
func (s *stream) reasoning(d *delta, data []byte) (string, bool) {
	if s.cfg.dialect.custom() {
		return customReasoning(s.cfg.dialect.fixed, data)
	}
	if d.ReasoningContent == nil && d.ReasoningDetails == nil && d.Reasoning == nil {
		return "", false
	}
	for _, k := range knownReasoningKeys {
		var raw json.RawMessage
		switch k {
		case KeyReasoningContent:
			raw = d.ReasoningContent
		case KeyReasoningDetails:
			raw = d.ReasoningDetails
		case KeyReasoning:
			raw = d.Reasoning
		}
		if fixed := s.cfg.dialect.fixed; fixed != "" && k != fixed {
			continue
		}
		if text, ok := unquote(raw); ok {
			s.cfg.dialect.observe(k)
			return text, true
		}
	}
	return "", false
}

// customReasoning reads a configured reasoning key the chunk type does not
// name, with a second, generic decode.
func customReasoning(key ReasoningKey, data []byte) (string, bool) {
	var c struct {
		Choices []struct {
			Delta   map[string]json.RawMessage `json:"delta"`
			Message map[string]json.RawMessage `json:"message"`
		} `json:"choices"`
	}
	if json.Unmarshal(data, &c) != nil || len(c.Choices) == 0 {
		return "", false
	}
	d := c.Choices[0].Delta
	if d == nil {
		d = c.Choices[0].Message
	}
	return unquote(d[string(key)])
}

// unquote decodes a raw JSON value that is a string; other values (null,
// arrays) report false. raw comes from a decoded chunk, so it is valid JSON.
func unquote(raw json.RawMessage) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	if bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
		return string(body), true
	}
	var text string
	if json.Unmarshal(raw, &text) != nil {
		return "", false
	}
	return text, true
}

// tolerable reports a decode error in a field the stream can do without
// (ids, usage counters): the rest of the chunk decoded and is used.
func tolerable(err error) bool {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return false
	}
	f := te.Field
	return f == "id" || strings.HasPrefix(f, "usage") || strings.HasPrefix(f, "choices.usage")
}

// maxQuoted bounds how much of a bad chunk an error message quotes.
const maxQuoted = 200

// malformed is the error of a chunk that does not decode. Its message
// depends only on the chunk, so a service that sends the same bad chunk
// every time fails the same way every time, and the loop stops retrying.
func (s *stream) malformed(err error, data []byte) error {
	q := data
	if len(q) > maxQuoted {
		q = q[:maxQuoted]
	}
	return &llm.Error{Kind: llm.KindMalformedResponse, TraceID: s.cfg.traceID, Cause: err,
		Message: fmt.Sprintf("malformed response: %s stream: chunk %d does not decode: %v (data %q)",
			s.cfg.flavour, s.events, err, q)}
}

// errorPayload converts a mid-stream {"error":{…}} event into a generic
// provider error "Error: <message>", which the loop retries.
func (s *stream) errorPayload(raw json.RawMessage) error {
	var body struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Code    any    `json:"code"`
	}
	msg := ""
	if json.Unmarshal(raw, &body) == nil {
		msg = body.Message
	} else {
		var str string
		if json.Unmarshal(raw, &str) == nil {
			msg = str
		}
	}
	if msg == "" {
		msg = string(raw)
	}
	e := &llm.Error{Kind: llm.KindGeneric, Message: "Error: " + msg, TraceID: s.cfg.traceID, Type: body.Type}
	if c, ok := body.Code.(string); ok {
		e.Code = c
	}
	return e
}

// Close releases the connection. It may be called more than once.
func (s *stream) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	err := s.body.Close()
	if s.close != nil {
		s.close()
	}
	return err
}

func (s *stream) ID() string { return s.id }

func (s *stream) Usage() (llm.TokenUsage, bool) { return s.usage, s.hasUsage }

func (s *stream) FinishReason() llm.FinishReason { return llm.ChatCompletionsFinish(s.rawFinish) }

func (s *stream) RawFinishReason() string { return s.rawFinish }

func (s *stream) TraceID() string { return s.cfg.traceID }
