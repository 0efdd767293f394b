package agent

import (
	"github.com/kimigo/kimigo/event"
)

// Status returns the current status (agent.status.updated, spec 03 §5.6).
func (a *Agent) Status() event.Status {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.status()
}

// statusLocked is the status event to publish after a change; the caller
// holds mu. Without a model there is nothing to show and nothing is
// published.
func (a *Agent) statusLocked() (event.Status, bool) {
	if a.bound.Provider == nil {
		return event.Status{}, false
	}
	return a.status(), true
}

// status builds the status; the caller holds mu (the manager's own lock
// is taken after it, never before).
func (a *Agent) status() event.Status {
	s := event.Status{Header: event.InTurn(event.NoTurn), ContextTokens: a.mem.TokenCount()}
	if a.perm != nil {
		s.Permission = event.PermissionMode(a.perm.Mode())
	}
	if a.o.Plan != nil {
		s.PlanMode = a.o.Plan.State().Active
	}
	if a.o.Swarm != nil {
		s.SwarmMode = a.o.Swarm.Active()
	}
	if a.bound.Provider == nil {
		return s
	}
	s.Model = a.bound.Provider.ModelName()
	s.MaxContextTokens = a.bound.window()
	if s.MaxContextTokens > 0 {
		ratio := float64(s.ContextTokens) / float64(s.MaxContextTokens)
		s.ContextUsage = &ratio
	}
	if u := a.usage.data(); u.ByModel != nil || u.CurrentTurn != nil {
		s.Usage = &u
	}
	return s
}

// publisher is how the agent's events leave it: it stamps the agent's id,
// queues the event on the bus (which never waits for a subscriber) and
// shows it to Options.OnEvent. It implements turn.EventSink.
type publisher struct {
	id      string
	bus     *event.Bus
	onEvent func(event.Event)
	log     interface {
		Error(msg string, args ...any)
	}
}

// Publish implements turn.EventSink. Safe for concurrent use.
func (p publisher) Publish(ev event.Event) {
	ev = p.bus.Publish(event.WithAgent(ev, p.id))
	if p.onEvent != nil {
		p.observe(ev)
	}
}

// observe calls OnEvent; its panic is contained and logged, it never
// reaches the turn.
func (p publisher) observe(ev event.Event) {
	defer func() {
		if r := recover(); r != nil {
			p.log.Error("event observer panicked", "event", string(ev.EventType()), "panic", r)
		}
	}()
	p.onEvent(ev)
}
