package swarm

import (
	"context"
	"fmt"
	"sync"

	"github.com/kimigo/kimigo/agent/history"
)

// Mode is one agent's swarm mode (spec 04 §7): whether it is on, and what
// turned it on. It changes only through Apply, of the records its
// operations commit through the Host, so a resume restores it exactly. It
// also provides the two swarm policies of the permission chain
// (policy.go) and AgentSwarm's view (tools.SwarmMode). Every method is
// safe for concurrent use.
type Mode struct {
	// op serializes the operations: each reads the state, commits a
	// record and lets Apply change it. It is taken before the agent's
	// state lock (inside Commit), never after it.
	op sync.Mutex

	mu      sync.Mutex // guards the fields below; taken by Apply under the agent's lock
	host    Host
	trigger Trigger // "" while off
	// popped says whether the last exit took the enter reminder back; only
	// the operation holding op reads it, right after its commit.
	popped bool
}

// New returns swarm mode, off.
func New() *Mode { return &Mode{} }

// Bind connects swarm mode to its agent; the agent calls it once, when it
// is built. Unbound, records are applied without being kept.
func (m *Mode) Bind(h Host) {
	m.mu.Lock()
	m.host = h
	m.mu.Unlock()
}

// Active reports whether swarm mode is on.
func (m *Mode) Active() bool { return m.Trigger() != "" }

// Trigger is what turned swarm mode on; "" while it is off.
func (m *Mode) Trigger() Trigger {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.trigger
}

// Enter turns swarm mode on with trigger t: swarm_mode.enter is
// committed, then, for a user's trigger (manual or task), the enter
// reminder is appended. It does nothing while swarm mode is on, whatever
// turned it on.
func (m *Mode) Enter(ctx context.Context, t Trigger) error {
	if !t.valid() {
		return fmt.Errorf("enter swarm mode: unknown trigger %q", t)
	}
	m.op.Lock()
	defer m.op.Unlock()
	if m.Active() {
		return nil
	}
	if err := m.commit(ctx, EnterRecord{Trigger: t}); err != nil {
		return err
	}
	if t == TriggerTool {
		return nil
	}
	return m.appendMessage(ctx, EnterReminder)
}

// EnterSwarmForTool implements tools.SwarmMode: an AgentSwarm call turns
// swarm mode on for its turn.
func (m *Mode) EnterSwarmForTool(ctx context.Context) error { return m.Enter(ctx, TriggerTool) }

// Exit turns swarm mode off: swarm_mode.exit is committed, and after a
// user's trigger the enter reminder is taken back when it is still the
// last message (on and straight off leaves no trace), or else the exit
// reminder is appended. It does nothing while swarm mode is off.
func (m *Mode) Exit(ctx context.Context) error {
	m.op.Lock()
	defer m.op.Unlock()
	t := m.Trigger()
	if t == "" {
		return nil
	}
	if err := m.commit(ctx, ExitRecord{}); err != nil {
		return err
	}
	m.mu.Lock()
	popped := m.popped
	m.mu.Unlock()
	if t == TriggerTool || popped {
		return nil
	}
	return m.appendMessage(ctx, ExitReminder)
}

// AutoExit ends swarm mode after a turn when a task or an AgentSwarm call
// turned it on (spec 04 §7.1); a manual swarm mode stays.
func (m *Mode) AutoExit(ctx context.Context) error {
	switch m.Trigger() {
	case TriggerTask, TriggerTool:
		return m.Exit(ctx)
	}
	return nil
}

// Apply applies one of swarm mode's records, live right after its commit
// and on resume alike. For an exit of a user's trigger it calls pop, which
// removes the enter reminder when it is the last message and reports
// whether it did. It never writes, emits or does I/O of its own.
func (m *Mode) Apply(p Payload, pop func() bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch r := p.(type) {
	case EnterRecord:
		if !r.Trigger.valid() {
			return fmt.Errorf("apply %s: unknown trigger %q", TypeEnter, r.Trigger)
		}
		m.trigger = r.Trigger
	case ExitRecord:
		t := m.trigger
		m.trigger, m.popped = "", false
		if t != "" && t != TriggerTool && pop != nil {
			m.popped = pop()
		}
	default:
		return fmt.Errorf("apply swarm mode record: unsupported payload %T", p)
	}
	return nil
}

// commit hands p to the host, or applies it when swarm mode is unbound
// (there is no history to take a reminder back from then).
func (m *Mode) commit(ctx context.Context, p Payload) error {
	m.mu.Lock()
	h := m.host
	m.mu.Unlock()
	if h == nil {
		return m.Apply(p, nil)
	}
	if err := h.Commit(ctx, p); err != nil {
		return fmt.Errorf("commit %s: %w", p.RecordType(), err)
	}
	return nil
}

// appendMessage appends a reminder through the host, when bound.
func (m *Mode) appendMessage(ctx context.Context, reminder func() history.Message) error {
	m.mu.Lock()
	h := m.host
	m.mu.Unlock()
	if h == nil {
		return nil
	}
	return h.AppendMessage(ctx, reminder())
}
