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
	// In manual mode a task first offers auto or yolo (spec 04 §7.2):
	// closing the picker starts nothing, manual keeps the mode, auto
	// switches before the task runs.
	do("/swarm audit every package")
	r.contains(r.screen(), "switch the permission mode first?")
	r.key("esc")
	r.lacks(r.screen(), "switch the permission mode first?")
	r.expectCalls()
	do("/swarm audit every package")
	r.key("up") // the list wraps: manual is the last item
	r.key("enter")
	r.expectCalls(`swarm task "audit every package"`)
	r.event(event.TurnEnded{Header: event.InTurn(1)})
	do("/swarm audit every module")
	r.key("enter") // auto is the first item
	r.contains(r.screen(), "audit every module")
	r.expectCalls("mode auto", `swarm task "audit every module"`)
	r.contains(r.screen(), "Permission mode: auto")
	r.event(event.TurnStarted{Header: event.InTurn(2)})
	do("/swarm another")
	r.contains(r.screen(), "Cannot start a swarm task while streaming")
	r.expectCalls()
}

// Outside manual mode /swarm <task> runs at once.
func TestSwarmTaskInYoloModeAsksNothing(t *testing.T) {
	s := &swarmed{recorder: newRecorder()}
	r := newRig(t, func(o *Options) { o.Session = s })
	r.sess = s.recorder
	r.event(event.Status{Permission: event.ModeYolo})
	r.typeText("/swarm audit every package")
	r.key("enter")
	r.lacks(r.screen(), "switch the permission mode first?")
	r.contains(r.screen(), "audit every package")
	r.expectCalls(`swarm task "audit every package"`)
}
