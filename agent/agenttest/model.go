package agenttest

import (
	"context"
	"sync"
	"testing"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/scripted"
)

// Model is the scripted model of a harness: an llm.Provider that answers
// each request with the next scripted response, streamed through the
// scripted provider's rules, and records every request. A response may be
// held: it streams some parts, then blocks until the test releases it or
// the request is cancelled. Running out of script fails the test.
type Model struct {
	t    testing.TB
	name string

	mu       sync.Mutex
	script   []step        // guarded by mu
	next     int           // guarded by mu
	requests []llm.Request // guarded by mu
	caps     []int         // guarded by mu; the completion cap of each request
}

type step struct {
	resp scripted.Response
	hold *Hold
}

// Hold is a held response: it streams its first parts, then waits.
type Hold struct {
	after     int
	reached   chan struct{}
	release   chan struct{}
	once      sync.Once
	relOnce   sync.Once
	mu        sync.Mutex
	cancelled bool // guarded by mu
}

// NewModel returns a model named name with an empty script.
func NewModel(t testing.TB, name string) *Model {
	return &Model{t: t, name: name}
}

// Add appends responses to the script.
func (m *Model) Add(rs ...scripted.Response) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range rs {
		m.script = append(m.script, step{resp: r})
	}
}

// AddHeld appends a response that streams its first after parts and then
// blocks until Release, or until the request is cancelled (then the stream
// fails with an abort, as a cut connection would).
func (m *Model) AddHeld(r scripted.Response, after int) *Hold {
	h := &Hold{after: after, reached: make(chan struct{}), release: make(chan struct{})}
	m.mu.Lock()
	m.script = append(m.script, step{resp: r, hold: h})
	m.mu.Unlock()
	return h
}

// Requests returns the requests received so far, in order.
func (m *Model) Requests() []llm.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]llm.Request(nil), m.requests...)
}

// Caps returns the completion cap each request carried (0: none).
func (m *Model) Caps() []int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]int(nil), m.caps...)
}

// Remaining is the number of responses not yet used.
func (m *Model) Remaining() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.script) - m.next
}

// Reached is closed once the held stream waits.
func (h *Hold) Reached() <-chan struct{} { return h.reached }

// Release lets the held stream finish.
func (h *Hold) Release() { h.relOnce.Do(func() { close(h.release) }) }

// Cancelled reports whether the request was cancelled while it waited.
func (h *Hold) Cancelled() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.cancelled
}

// Provider returns the model as an llm.Provider.
func (m *Model) Provider() llm.Provider { return &modelProvider{m: m} }

// modelProvider is one immutable view of a Model: With* copies share the
// script.
type modelProvider struct {
	m      *Model
	effort string
	cap    int
}

func (p *modelProvider) Name() string             { return "scripted" }
func (p *modelProvider) ModelName() string        { return p.m.name }
func (p *modelProvider) ThinkingEffort() string   { return p.effort }
func (p *modelProvider) MaxCompletionTokens() int { return p.cap }

func (p *modelProvider) WithThinking(effort string) llm.Provider {
	c := *p
	c.effort = effort
	return &c
}

func (p *modelProvider) WithMaxCompletionTokens(n int, b llm.ContextBudget) llm.Provider {
	c := *p
	if b.MaxContextTokens > 0 && b.UsedContextTokens > 0 { // clamped to the window left, as Kimi does
		n = min(n, b.MaxContextTokens-b.UsedContextTokens)
	}
	c.cap = max(1, n)
	return &c
}

func (p *modelProvider) Generate(ctx context.Context, req *llm.Request) (llm.Stream, error) {
	m := p.m
	m.mu.Lock()
	m.requests = append(m.requests, cloneRequest(req))
	m.caps = append(m.caps, p.cap)
	if m.next >= len(m.script) {
		n := len(m.requests)
		m.mu.Unlock()
		m.t.Errorf("model request %d has no scripted response", n)
		return nil, llm.Errorf(llm.KindInvalidRequest, "script exhausted at request %d", n)
	}
	s := m.script[m.next]
	m.next++
	m.mu.Unlock()
	st, err := scripted.New(scripted.Options{Model: m.name, Responses: []scripted.Response{s.resp}}).Generate(ctx, req)
	if err != nil || s.hold == nil {
		return st, err
	}
	return &heldStream{Stream: st, ctx: ctx, hold: s.hold}, nil
}

func cloneRequest(req *llm.Request) llm.Request {
	r := *req
	r.Messages = make([]llm.Message, len(req.Messages))
	for i, msg := range req.Messages {
		r.Messages[i] = msg.Clone()
	}
	r.Tools = append([]llm.Tool(nil), req.Tools...)
	return r
}

// heldStream blocks before its part number hold.after.
type heldStream struct {
	llm.Stream
	ctx  context.Context
	hold *Hold
	n    int
}

func (s *heldStream) Next() (llm.StreamPart, error) {
	if s.n == s.hold.after {
		s.hold.once.Do(func() { close(s.hold.reached) })
		select {
		case <-s.hold.release:
		case <-s.ctx.Done():
			s.hold.mu.Lock()
			s.hold.cancelled = true
			s.hold.mu.Unlock()
			return llm.StreamPart{}, llm.Aborted(s.ctx)
		}
	}
	s.n++
	return s.Stream.Next()
}

// failingProvider is the model of a resumed agent: resume must never call
// it. It wraps the live provider, so its identity and cap arithmetic match
// and both agents build the same next request.
type failingProvider struct {
	t     testing.TB
	inner llm.Provider
}

func (p failingProvider) Name() string             { return p.inner.Name() }
func (p failingProvider) ModelName() string        { return p.inner.ModelName() }
func (p failingProvider) ThinkingEffort() string   { return p.inner.ThinkingEffort() }
func (p failingProvider) MaxCompletionTokens() int { return p.inner.MaxCompletionTokens() }

func (p failingProvider) WithThinking(effort string) llm.Provider {
	return failingProvider{t: p.t, inner: p.inner.WithThinking(effort)}
}

func (p failingProvider) WithMaxCompletionTokens(n int, b llm.ContextBudget) llm.Provider {
	return failingProvider{t: p.t, inner: p.inner.WithMaxCompletionTokens(n, b)}
}

func (p failingProvider) Generate(context.Context, *llm.Request) (llm.Stream, error) {
	p.t.Errorf("the resumed agent called the model")
	return nil, llm.Errorf(llm.KindInvalidRequest, "resume must not call the model")
}
