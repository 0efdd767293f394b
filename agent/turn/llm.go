package turn

import (
	"context"
	"time"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
)

// GenerateFunc is the choke point every model request goes through. The
// agent wraps llm.Generate with request logging and credentials; tests and
// standalone use pass nil for plain llm.Generate. fields describe the
// attempt for logs and request records.
type GenerateFunc func(ctx context.Context, p llm.Provider, req llm.Request, cb llm.Callbacks,
	fields loop.RequestLogFields) (*llm.Result, error)

// Snapshot is what one request is built from: the provider, system
// prompt, capability and completion budget current at the moment of the
// request (spec 03 §7.3). Budget nil sends no cap.
type Snapshot struct {
	Provider     llm.Provider
	SystemPrompt string
	Capability   *llm.Capability
	Budget       *llm.CompletionBudget
}

// LLMOptions build an LLM adapter.
type LLMOptions struct {
	// Provider is the long-lived provider, with thinking and sampling
	// settings applied. The adapter never modifies it.
	Provider llm.Provider
	// SystemPrompt is sent with every request.
	SystemPrompt string
	// Capability is the resolved model capability, or nil when unknown.
	Capability *llm.Capability
	// Budget decides the completion cap; nil sends no cap.
	Budget *llm.CompletionBudget
	// UsedContextTokens reports the history's current size, for clamping
	// the completion cap; nil counts as 0.
	UsedContextTokens func() int
	// Generate is the request choke point; nil means llm.Generate.
	Generate GenerateFunc
	// Snapshot, when set, wins over Provider, SystemPrompt, Capability and
	// Budget: it is read at every Chat and by every accessor, so the first
	// request after a compaction carries the refreshed system prompt and a
	// model switch applies from the next step (spec 03 §7.3). An error
	// fails the request before anything is sent.
	Snapshot func() (Snapshot, error)
	// Now is the clock of the stream timing; nil means time.Now.
	Now func() time.Time
}

// LLM adapts llm.Generate to the loop's LLM interface (spec 03 §2): it
// applies the completion budget to a per-request copy of the provider,
// replaces media the model cannot take with text markers, bridges streamed
// deltas to the loop's live callbacks, and hands completed text and think
// blocks to the loop in content order once the stream has drained.
// With LLMOptions.Snapshot one adapter serves the agent's whole life;
// without it the adapter is fixed to its options.
type LLM struct {
	o LLMOptions
}

var (
	_ loop.LLM                = (*LLM)(nil)
	_ loop.RetryClassifier    = (*LLM)(nil)
	_ loop.CapabilityReporter = (*LLM)(nil)
)

// NewLLM returns an adapter for o.
func NewLLM(o LLMOptions) *LLM {
	if o.Generate == nil {
		o.Generate = func(ctx context.Context, p llm.Provider, req llm.Request, cb llm.Callbacks,
			_ loop.RequestLogFields) (*llm.Result, error) {
			return llm.Generate(ctx, p, req, cb)
		}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &LLM{o: o}
}

// current is the snapshot of this request.
func (l *LLM) current() (Snapshot, error) {
	if l.o.Snapshot != nil {
		return l.o.Snapshot()
	}
	return Snapshot{Provider: l.o.Provider, SystemPrompt: l.o.SystemPrompt, Capability: l.o.Capability, Budget: l.o.Budget}, nil
}

// SystemPrompt is the prompt sent with the next request.
func (l *LLM) SystemPrompt() string {
	s, _ := l.current()
	return s.SystemPrompt
}

// ModelName is the provider's model id, or "" without a provider.
func (l *LLM) ModelName() string {
	s, err := l.current()
	if err != nil || s.Provider == nil {
		return ""
	}
	return s.Provider.ModelName()
}

// Capability is the model capability, or nil when unknown.
func (l *LLM) Capability() *llm.Capability {
	s, _ := l.current()
	return s.Capability
}

// IsRetryable delegates to llm.IsRetryable.
func (l *LLM) IsRetryable(err error) bool { return llm.IsRetryable(err) }

// Chat sends one request (spec 03 §2.2).
func (l *LLM) Chat(ctx context.Context, p loop.ChatParams) (loop.ChatResponse, error) {
	now := l.o.Now
	clock := requestClock{start: now(), now: now}
	bridge := newDeltaBridge(p)

	snap, err := l.current()
	if err != nil {
		return loop.ChatResponse{}, err
	}
	if snap.Provider == nil {
		return loop.ChatResponse{}, ErrModelNotConfigured
	}
	capability := llm.Capability{}
	if snap.Capability != nil {
		capability = *snap.Capability
	}
	used := 0
	if l.o.UsedContextTokens != nil {
		used = l.o.UsedContextTokens()
	}
	provider := llm.ApplyCompletionBudget(snap.Provider, snap.Budget, capability, used)

	req := llm.Request{
		System:   snap.SystemPrompt,
		Tools:    p.Tools,
		Messages: DowngradeUnsupportedMedia(p.Messages, snap.Capability),
	}
	cb := llm.Callbacks{
		OnRequestStart: func() { clock.start = now() },
		OnRequestSent:  func() { clock.sent = now() },
		OnTraceID:      p.Trace.Capture,
		OnMessagePart: func(part llm.StreamPart) {
			if clock.first.IsZero() {
				clock.first = now()
			}
			bridge.part(part)
		},
		OnStreamEnd: func(s *llm.StreamStats) {
			clock.end = now()
			clock.stats = s
		},
	}
	res, err := l.o.Generate(ctx, provider, req, cb, p.RequestLogFields)
	if err != nil {
		return loop.ChatResponse{}, err
	}
	for _, part := range res.Message.Content {
		var err error
		switch part.Type {
		case llm.PartText:
			if p.OnTextPart != nil {
				err = p.OnTextPart(part)
			}
		case llm.PartThink:
			if p.OnThinkPart != nil {
				err = p.OnThinkPart(part)
			}
		}
		if err != nil {
			return loop.ChatResponse{}, err
		}
	}
	resp := loop.ChatResponse{
		ToolCalls:       res.Message.ToolCalls,
		FinishReason:    res.FinishReason,
		RawFinishReason: res.RawFinishReason,
		MessageID:       res.ID,
		Timing:          clock.timing(),
		TraceID:         res.TraceID,
	}
	if res.Usage != nil {
		resp.Usage = *res.Usage
	}
	return resp, nil
}

// requestClock measures one request (spec 03 §2.2 stream timing).
type requestClock struct {
	start, sent, first, end time.Time
	stats                   *llm.StreamStats
	now                     func() time.Time
}

func (c *requestClock) timing() *loop.StreamTiming {
	if c.first.IsZero() {
		return nil
	}
	end := c.end
	if end.IsZero() {
		end = c.now()
	}
	t := &loop.StreamTiming{
		FirstTokenLatencyMs: max(0, c.first.Sub(c.start).Milliseconds()),
		StreamDurationMs:    max(0, end.Sub(c.first).Milliseconds()),
	}
	if !c.sent.IsZero() {
		sent := c.sent
		if sent.Before(c.start) {
			sent = c.start
		}
		if sent.After(c.first) {
			sent = c.first
		}
		build, server := sent.Sub(c.start).Milliseconds(), c.first.Sub(sent).Milliseconds()
		t.RequestBuildMs, t.ServerFirstTokenMs = &build, &server
	}
	if c.stats != nil {
		decode, consume := max(0, c.stats.ServerDecode.Milliseconds()), max(0, c.stats.ClientConsume.Milliseconds())
		t.ServerDecodeMs, t.ClientConsumeMs = &decode, &consume
	}
	return t
}

// deltaBridge turns streamed parts into the loop's live delta callbacks
// (spec 03 §2.3). Argument fragments that arrive before their call's header
// wait under their stream index.
type deltaBridge struct {
	p        loop.ChatParams
	last     *loop.ToolCallDelta
	byIndex  map[int]loop.ToolCallDelta
	buffered map[int][]string
}

func newDeltaBridge(p loop.ChatParams) *deltaBridge {
	return &deltaBridge{p: p, byIndex: map[int]loop.ToolCallDelta{}, buffered: map[int][]string{}}
}

func (b *deltaBridge) part(part llm.StreamPart) {
	switch part.Kind {
	case llm.KindContent:
		switch part.Content.Type {
		case llm.PartText:
			if b.p.OnTextDelta != nil {
				b.p.OnTextDelta(part.Content.Text)
			}
		case llm.PartThink:
			if b.p.OnThinkDelta != nil {
				b.p.OnThinkDelta(part.Content.Think)
			}
		}
	case llm.KindToolCall:
		id := loop.ToolCallDelta{ToolCallID: part.ToolCall.ID, Name: part.ToolCall.Name}
		b.last = &id
		first := id
		first.ArgumentsPart = part.ToolCall.Arguments
		b.emit(first)
		if part.Indexed {
			b.byIndex[part.Index] = id
			for _, frag := range b.buffered[part.Index] {
				d := id
				d.ArgumentsPart = frag
				b.emit(d)
			}
			delete(b.buffered, part.Index)
		}
	case llm.KindToolCallPart:
		if part.Indexed {
			id, ok := b.byIndex[part.Index]
			if !ok {
				b.buffered[part.Index] = append(b.buffered[part.Index], part.ArgumentsPart)
				return
			}
			id.ArgumentsPart = part.ArgumentsPart
			b.emit(id)
			return
		}
		if b.last == nil {
			return
		}
		d := *b.last
		d.ArgumentsPart = part.ArgumentsPart
		b.emit(d)
	}
}

func (b *deltaBridge) emit(d loop.ToolCallDelta) {
	if b.p.OnToolCallDelta != nil {
		b.p.OnToolCallDelta(d)
	}
}
