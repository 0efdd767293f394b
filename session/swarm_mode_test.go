package session_test

import (
	"strings"
	"testing"

	"github.com/kimigo/kimigo/session"
)

// The swarm controls of the facade, as /swarm drives them (spec 04 §7.1,
// §10 "Swarm mode").

// swarmReminders counts the enter and exit reminders the model was sent
// in request i of the fake server.
func swarmReminders(r *rig, i int) (enter, exit int) {
	for _, m := range r.sentMessages(i) {
		c, _ := m["content"].(string)
		enter += strings.Count(c, "Swarm mode is on.")
		exit += strings.Count(c, "Swarm mode is off.")
	}
	return enter, exit
}

func TestSessionSwarmTaskEndsWithTurn(t *testing.T) {
	r := newRig(t, "splitting it", "plain answer")
	s, err := session.Open(t.Context(), r.opts(""))
	if err != nil {
		t.Fatal(err)
	}
	defer closeSession(t, s)
	sub := s.Subscribe()
	if err := s.StartSwarmTask(t.Context(), "audit every package"); err != nil {
		t.Fatal(err)
	}
	if !s.SwarmMode() {
		t.Error("swarm mode is off while its task runs")
	}
	waitEnded(t, sub)
	sub.Close()
	if s.SwarmMode() {
		t.Error("the task's swarm mode outlived its turn (S89)")
	}
	if enter, exit := swarmReminders(r, 0); enter != 1 || exit != 0 {
		t.Errorf("task request: %d enter, %d exit reminders; want 1, 0", enter, exit)
	}
	prompt(t, s, "and now?")
	if enter, exit := swarmReminders(r, 1); enter != 1 || exit != 1 {
		t.Errorf("next request: %d enter, %d exit reminders; want 1, 1", enter, exit)
	}
}

func TestSessionSwarmToggle(t *testing.T) {
	r := newRig(t, "ok")
	s, err := session.Open(t.Context(), r.opts(""))
	if err != nil {
		t.Fatal(err)
	}
	defer closeSession(t, s)
	ctx := t.Context()
	if err := s.SetSwarmMode(ctx, true); err != nil || !s.SwarmMode() {
		t.Fatalf("/swarm on: %v, on %v", err, s.SwarmMode())
	}
	if err := s.SetSwarmMode(ctx, false); err != nil || s.SwarmMode() {
		t.Fatalf("/swarm off: %v, on %v", err, s.SwarmMode())
	}
	if err := s.SetSwarmMode(ctx, true); err != nil {
		t.Fatal(err)
	}
	prompt(t, s, "hello")
	if !s.SwarmMode() {
		t.Error("a manual swarm mode ended with the turn")
	}
	if enter, exit := swarmReminders(r, 0); enter != 1 || exit != 0 {
		t.Errorf("request: %d enter, %d exit reminders; want 1 (the first was taken back), 0", enter, exit)
	}
	if err := s.StartSwarmTask(ctx, " "); err == nil {
		t.Error("an empty swarm task was accepted")
	}
}
