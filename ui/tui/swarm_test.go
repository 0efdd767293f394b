package tui

import (
	"context"
	"testing"

	"github.com/kimigo/kimigo/event"
)

// swarmed is a recorder with swarm mode.
type swarmed struct {
	*recorder
	on bool
}

func (s *swarmed) SetSwarmMode(_ context.Context, on bool) error {
	s.on = on
	s.log("swarm mode %v", on)
	return nil
}
func (s *swarmed) SwarmMode() bool { return s.on }
func (s *swarmed) StartSwarmTask(_ context.Context, task string) error {
	s.log("swarm task %q", task)
	return nil
}

// /swarm (spec 04 §7.1): on, off, a toggle, and a task that runs as the
// prompt; the footer shows the mode; a task is refused while a turn runs.
func TestSwarmCommand(t *testing.T) {
	s := &swarmed{recorder: newRecorder()}
	r := newRig(t, func(o *Options) { o.Session = s })
	r.sess = s.recorder
	do := func(line string) {
		t.Helper()
		r.key("ctrl+u")
		r.typeText(line)
		r.key("enter")
	}
	do("/swarm on")
	r.expectCalls("swarm mode true")
	r.contains(r.screen(), "Swarm mode on.")
	r.contains(r.screen(), "swarm")
	do("/swarm")
	r.expectCalls("swarm mode false")
	do("/swarm audit every package")
	r.contains(r.screen(), "audit every package")
	r.expectCalls(`swarm task "audit every package"`)
	r.event(event.TurnStarted{Header: event.InTurn(1)})
	do("/swarm another")
	r.contains(r.screen(), "Cannot start a swarm task while streaming")
}
