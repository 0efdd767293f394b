// Package scripted is a model that answers from a script instead of a
// network service. It is production code: kimigo's built-in offline model
// (the "offline" alias, KIMIGO_SCRIPT) runs on it, and llm/llmtest builds its
// test fakes on the same Response type.
//
// It owns the script file format (script.go), the built-in demo, and a
// Provider that streams each Response part by part through llm.Generate's
// merge rules, exactly as a network provider would. It records every request
// it receives. It does not know any wire protocol.
package scripted

import (
	"context"
	"fmt"
	"io"
	"sync"
	"unicode/utf8"

	"github.com/kimigo/kimigo/llm"
)

// Response is one scripted model answer.
type Response struct {
	// Parts are streamed in order.
	Parts []llm.StreamPart
	// Err, when set, is returned by Generate before anything streams.
	Err error
	// StreamErr, when set, is returned by Next after ErrAfter parts.
	StreamErr error
	ErrAfter  int
	// Split, when positive, streams the text, thinking and arguments of
	// each part in pieces of at most Split bytes (cut between UTF-8
	// sequences), as services stream them, while the script holds one part
	// each: a long script costs its own size, not a part per piece.
	Split int
	// Finish and RawFinish are reported after the stream; an empty Finish
	// with tool calls in Parts reports tool_calls, otherwise completed.
	// Set NoFinish to report none at all.
	Finish    llm.FinishReason
	RawFinish string
	NoFinish  bool
	// Usage is reported when non-nil.
	Usage *llm.TokenUsage
	// ID and TraceID are the response and trace ids.
	ID, TraceID string
}

// Options configure a Provider.
type Options struct {
	// Model is the model name reported by ModelName; default "scripted".
	Model string
	// Responses are consumed one per Generate call.
	Responses []Response
	// WhenExhausted answers calls after the script ran out. Nil answers
	// with a short text that ends the turn, as the offline model does.
	WhenExhausted func(call int) Response
}

// Provider answers Generate calls from a script. It is safe for concurrent
// use; copies made by the With* methods share the script and the recorded
// requests.
type Provider struct {
	s        *script
	model    string
	effort   string
	maxToken int
}

type script struct {
	mu        sync.Mutex
	responses []Response // guarded by mu
	next      int        // guarded by mu
	requests  []llm.Request
	exhausted func(call int) Response
}

// New returns a Provider for opts.
func New(opts Options) *Provider {
	model := opts.Model
	if model == "" {
		model = "scripted"
	}
	return &Provider{
		s:     &script{responses: opts.Responses, exhausted: opts.WhenExhausted},
		model: model,
	}
}

// Name is "scripted".
func (p *Provider) Name() string { return "scripted" }

// ModelName is the configured model name.
func (p *Provider) ModelName() string { return p.model }

// ThinkingEffort is the effort set by WithThinking, or "".
func (p *Provider) ThinkingEffort() string { return p.effort }

// MaxCompletionTokens is the cap set by WithMaxCompletionTokens, or 0.
func (p *Provider) MaxCompletionTokens() int { return p.maxToken }

// WithThinking returns a copy that reports effort.
func (p *Provider) WithThinking(effort string) llm.Provider {
	c := *p
	c.effort = effort
	return &c
}

// WithMaxCompletionTokens returns a copy that reports the clamped cap.
func (p *Provider) WithMaxCompletionTokens(n int, b llm.ContextBudget) llm.Provider {
	c := *p
	if b.MaxContextTokens > 0 && b.UsedContextTokens > 0 {
		n = min(n, b.MaxContextTokens-b.UsedContextTokens)
	}
	c.maxToken = max(1, n)
	return &c
}

// Requests returns copies of the requests received so far.
func (p *Provider) Requests() []llm.Request {
	p.s.mu.Lock()
	defer p.s.mu.Unlock()
	return append([]llm.Request(nil), p.s.requests...)
}

// Remaining is the number of scripted responses not yet used.
func (p *Provider) Remaining() int {
	p.s.mu.Lock()
	defer p.s.mu.Unlock()
	return len(p.s.responses) - p.s.next
}

// Generate records req and streams the next scripted response.
func (p *Provider) Generate(ctx context.Context, req *llm.Request) (llm.Stream, error) {
	if ctx.Err() != nil {
		return nil, llm.Aborted(ctx)
	}
	p.s.mu.Lock()
	r := *req
	r.Messages = cloneMessages(req.Messages)
	r.Tools = append([]llm.Tool(nil), req.Tools...)
	p.s.requests = append(p.s.requests, r)
	var resp Response
	if p.s.next < len(p.s.responses) {
		resp = p.s.responses[p.s.next]
		p.s.next++
	} else {
		call := len(p.s.requests)
		if p.s.exhausted != nil {
			resp = p.s.exhausted(call)
		} else {
			resp = Text(exhaustedText)
		}
	}
	p.s.mu.Unlock()
	if req.OnRequestSent != nil {
		req.OnRequestSent()
	}
	if resp.Err != nil {
		return nil, resp.Err
	}
	return &stream{ctx: ctx, r: resp}, nil
}

const exhaustedText = "The offline script has no more responses, so this turn ends here."

func cloneMessages(ms []llm.Message) []llm.Message {
	out := make([]llm.Message, len(ms))
	for i, m := range ms {
		out[i] = m.Clone()
	}
	return out
}

type stream struct {
	ctx    context.Context
	r      Response
	i      int
	off    int // bytes of part i already streamed, when r.Split is set
	closed bool
}

func (s *stream) Next() (llm.StreamPart, error) {
	if s.closed {
		return llm.StreamPart{}, fmt.Errorf("scripted stream: read after close")
	}
	if s.ctx.Err() != nil {
		return llm.StreamPart{}, llm.Aborted(s.ctx)
	}
	if s.r.StreamErr != nil && s.i >= s.r.ErrAfter {
		return llm.StreamPart{}, s.r.StreamErr
	}
	if s.i >= len(s.r.Parts) {
		return llm.StreamPart{}, io.EOF
	}
	p := s.r.Parts[s.i]
	if s.r.Split > 0 {
		var more bool
		if p, more = s.piece(p); more {
			return p, nil
		}
	}
	s.i++
	s.off = 0
	return p, nil
}

// piece returns the next piece of p when p is longer than r.Split, and
// whether p goes on after it; the last piece is p itself, shortened.
func (s *stream) piece(p llm.StreamPart) (llm.StreamPart, bool) {
	text := partText(&p)
	if text == nil || len(*text)-s.off <= s.r.Split {
		if text != nil {
			*text = (*text)[s.off:]
		}
		if s.off > 0 && p.Kind == llm.KindToolCall {
			p = llm.StreamPart{Kind: llm.KindToolCallPart, ArgumentsPart: *text, Index: p.Index, Indexed: p.Indexed}
		}
		return p, false
	}
	cut := s.off + s.r.Split
	for cut > s.off && !utf8.RuneStart((*text)[cut]) {
		cut--
	}
	if cut == s.off {
		cut = s.off + s.r.Split
	}
	chunk := (*text)[s.off:cut]
	first := s.off == 0
	s.off = cut
	switch {
	case p.Kind == llm.KindToolCall && !first:
		return llm.StreamPart{Kind: llm.KindToolCallPart, ArgumentsPart: chunk, Index: p.Index, Indexed: p.Indexed}, true
	case p.Kind == llm.KindContent:
		p.Content.Encrypted = "" // a signature comes with the last piece
	}
	*text = chunk
	return p, true
}

// partText points at the text a part streams, or is nil for parts
// without one (media).
func partText(p *llm.StreamPart) *string {
	switch p.Kind {
	case llm.KindToolCall:
		return &p.ToolCall.Arguments
	case llm.KindToolCallPart:
		return &p.ArgumentsPart
	}
	switch p.Content.Type {
	case llm.PartText:
		return &p.Content.Text
	case llm.PartThink:
		return &p.Content.Think
	}
	return nil
}

func (s *stream) Close() error { s.closed = true; return nil }

func (s *stream) ID() string { return s.r.ID }

func (s *stream) Usage() (llm.TokenUsage, bool) {
	if s.r.Usage == nil {
		return llm.TokenUsage{}, false
	}
	return *s.r.Usage, true
}

func (s *stream) FinishReason() llm.FinishReason {
	switch {
	case s.r.NoFinish:
		return llm.FinishNone
	case s.r.Finish != "":
		return s.r.Finish
	}
	for _, p := range s.r.Parts {
		if p.Kind == llm.KindToolCall {
			return llm.FinishToolCalls
		}
	}
	return llm.FinishCompleted
}

func (s *stream) RawFinishReason() string { return s.r.RawFinish }

func (s *stream) TraceID() string { return s.r.TraceID }
