package agent

import (
	"log/slog"
	"slices"
	"sync"

	"github.com/kimigo/kimigo/agent/permission"
	"github.com/kimigo/kimigo/agent/turn"
)

// StatusEvent is agent.status.updated (spec 03 §5.6): what a status line
// shows after the context size, the usage or the permission mode changed.
type StatusEvent struct {
	Model            string   `json:"model,omitempty"`
	ContextTokens    int      `json:"contextTokens"`
	MaxContextTokens int      `json:"maxContextTokens,omitempty"`
	ContextUsage     *float64 `json:"contextUsage,omitempty"`
	// Permission is the permission mode; empty for an agent without a
	// permission manager.
	Permission permission.Mode `json:"permission,omitempty"`
	Usage      *Usage          `json:"usage,omitempty"`
}

// EventType returns turn.TypeAgentStatus.
func (StatusEvent) EventType() turn.EventType { return turn.TypeAgentStatus }

// Status returns the current status.
func (a *Agent) Status() StatusEvent {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.status()
}

// statusLocked is the status event to publish after a change; the caller
// holds mu. Without a model there is nothing to show and nothing is
// published.
func (a *Agent) statusLocked() turn.Event {
	if a.o.Provider == nil {
		return noEvent{}
	}
	return a.status()
}

// status builds the status; the caller holds mu (the manager's own lock
// is taken after it, never before).
func (a *Agent) status() StatusEvent {
	s := StatusEvent{ContextTokens: a.mem.TokenCount()}
	if a.perm != nil {
		s.Permission = a.perm.Mode()
	}
	if a.o.Provider == nil {
		return s
	}
	s.Model = a.o.Provider.ModelName()
	if c := a.o.Capability; c != nil {
		s.MaxContextTokens = c.MaxContextTokens
		if c.MaxInputTokens > 0 {
			s.MaxContextTokens = c.MaxInputTokens
		}
	}
	if s.MaxContextTokens > 0 {
		ratio := float64(s.ContextTokens) / float64(s.MaxContextTokens)
		s.ContextUsage = &ratio
	}
	if u := a.usage.data(); u.ByModel != nil || u.CurrentTurn != nil {
		s.Usage = &u
	}
	return s
}

// noEvent is a status that is not published.
type noEvent struct{}

func (noEvent) EventType() turn.EventType { return "" }

// fanout delivers each event to every subscribed sink, in subscription
// order, on the publishing goroutine. A sink's panic is contained and
// logged; it never reaches the turn.
type fanout struct {
	log   *slog.Logger
	mu    sync.Mutex
	next  int
	sinks []sinkEntry // guarded by mu
}

type sinkEntry struct {
	id   int
	sink turn.EventSink
}

func newFanout(log *slog.Logger) *fanout { return &fanout{log: log} }

func (f *fanout) add(s turn.EventSink) func() {
	f.mu.Lock()
	f.next++
	id := f.next
	f.sinks = append(f.sinks, sinkEntry{id: id, sink: s})
	f.mu.Unlock()
	return func() {
		f.mu.Lock()
		f.sinks = slices.DeleteFunc(f.sinks, func(e sinkEntry) bool { return e.id == id })
		f.mu.Unlock()
	}
}

// Publish implements turn.EventSink.
func (f *fanout) Publish(ev turn.Event) {
	if _, skip := ev.(noEvent); skip {
		return
	}
	f.mu.Lock()
	sinks := slices.Clone(f.sinks)
	f.mu.Unlock()
	for _, e := range sinks {
		f.deliver(e.sink, ev)
	}
}

func (f *fanout) deliver(s turn.EventSink, ev turn.Event) {
	defer func() {
		if r := recover(); r != nil {
			f.log.Error("event sink panicked", "event", string(ev.EventType()), "panic", r)
		}
	}()
	s.Publish(ev)
}
