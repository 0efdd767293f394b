package swarm_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/swarm"
)

// logHost is a host that keeps what swarm mode commits and appends, and
// applies the records the way the agent does: the exit's pop looks at
// the messages appended so far.
type logHost struct {
	m        *swarm.Mode
	records  []swarm.Payload
	messages []history.Message
}

func (h *logHost) Commit(_ context.Context, p swarm.Payload) error {
	h.records = append(h.records, p)
	return h.m.Apply(p, func() bool {
		n := len(h.messages)
		if n == 0 || !swarm.IsEnterReminder(h.messages[n-1].Origin) {
			return false
		}
		h.messages = h.messages[:n-1]
		return true
	})
}

func (h *logHost) AppendMessage(_ context.Context, m history.Message) error {
	h.messages = append(h.messages, m)
	return nil
}

func newBound() (*swarm.Mode, *logHost) {
	m := swarm.New()
	h := &logHost{m: m}
	m.Bind(h)
	return m, h
}

func variants(ms []history.Message) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Origin.Variant)
	}
	return out
}

func TestScenario89EnterWhileOnIsNoOp(t *testing.T) {
	m, h := newBound()
	for _, tr := range []swarm.Trigger{swarm.TriggerTool, swarm.TriggerManual, swarm.TriggerTask} {
		if err := m.Enter(t.Context(), tr); err != nil {
			t.Fatal(err)
		}
	}
	if d := cmp.Diff([]swarm.Payload{swarm.EnterRecord{Trigger: swarm.TriggerTool}}, h.records); d != "" {
		t.Errorf("records (-want +got):\n%s", d)
	}
	if len(h.messages) != 0 || m.Trigger() != swarm.TriggerTool {
		t.Errorf("tool enter: messages %v, trigger %q", variants(h.messages), m.Trigger())
	}
	if err := m.AutoExit(t.Context()); err != nil || m.Active() {
		t.Fatalf("auto exit: %v, active %v", err, m.Active())
	}
	if err := m.Exit(t.Context()); err != nil || len(h.records) != 2 {
		t.Errorf("exit while off: %v, records %v", err, h.records)
	}
}

func TestScenario88ToggleTakesReminderBack(t *testing.T) {
	m, h := newBound()
	ctx := t.Context()
	if err := m.Enter(ctx, swarm.TriggerManual); err != nil {
		t.Fatal(err)
	}
	if err := m.AutoExit(ctx); err != nil || !m.Active() {
		t.Fatalf("manual swarm mode auto-exited: %v", err)
	}
	if err := m.Exit(ctx); err != nil {
		t.Fatal(err)
	}
	if len(h.messages) != 0 {
		t.Errorf("on and straight off left %v", variants(h.messages))
	}
	if err := m.Enter(ctx, swarm.TriggerTask); err != nil {
		t.Fatal(err)
	}
	h.messages = append(h.messages, history.Message{Origin: history.UserOrigin()}) // the task's turn
	if err := m.AutoExit(ctx); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{swarm.VariantEnter, "", swarm.VariantExit}, variants(h.messages)); d != "" {
		t.Errorf("messages (-want +got):\n%s", d)
	}
}

func TestUnknownTrigger(t *testing.T) {
	m := swarm.New()
	if err := m.Enter(t.Context(), "party"); err == nil || m.Active() {
		t.Errorf("Enter(party) = %v, active %v", err, m.Active())
	}
}
