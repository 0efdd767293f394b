package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

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

// rateLimited is the reason the batch scheduler gives with
// subagent.suspended (spec 05 §5.7).
const rateLimited = "Provider rate limit; subagent requeued for retry."

// lineIndex is the index of the first line of live holding s, or -1.
func lineIndex(live, s string) int {
	for i, l := range strings.Split(live, "\n") {
		if strings.Contains(l, s) {
			return i
		}
	}
	return -1
}

// A child a rate limit suspends (subagent.suspended) gets a line below
// the activity line naming it and the reason; a second suspension of
// the same child replaces its line; the line goes when the child starts
// again, completes or fails, and every line goes when the turn ends.
// Past three children the rest are counted on one line.
func TestSwarmSuspendedChildren(t *testing.T) {
	r := newRig(t)
	shown := func() string { // the terminal after the next frame tick
		r.advance(100 * time.Millisecond)
		return r.screen()
	}
	r.startTurn("audit every package")
	for i := 2; i <= 7; i++ {
		id := fmt.Sprintf("agent-%d", i)
		idx := i - 2
		r.event(event.SubagentSpawned{Header: event.InTurn(1), SubagentID: id, SubagentName: "coder",
			ParentAgentID: mainAgent, SwarmIndex: &idx})
		r.event(event.SubagentStarted{Header: event.InTurn(1), SubagentID: id})
	}
	r.lacks(r.live(), "suspended")

	r.event(event.SubagentSuspended{Header: event.InTurn(1), SubagentID: "agent-3", Reason: rateLimited})
	want := "agent-3 suspended: " + rateLimited
	live := r.live()
	r.contains(live, want)
	r.contains(shown(), want)
	if a, s := lineIndex(live, "Waiting for the model"), lineIndex(live, want); a < 0 || s != a+1 {
		t.Errorf("the suspended line is row %d, the activity line row %d; want it right below:\n%s", s, a, live)
	}
	r.contains(live, want+" · 0s")
	r.advance(4 * time.Second)
	r.contains(shown(), want+" · 4s") // how long it has waited, on the frame tick
	r.event(event.SubagentSuspended{Header: event.InTurn(1), SubagentID: "agent-3", Reason: rateLimited})
	r.contains(r.live(), want+" · 0s") // suspended again: the wait starts over
	if n := strings.Count(r.live(), "agent-3 suspended"); n != 1 {
		t.Errorf("agent-3 suspended twice shows %d lines; want 1:\n%s", n, r.live())
	}

	r.event(event.SubagentStarted{Header: event.InTurn(1), SubagentID: "agent-3"}) // the retry
	r.lacks(r.live(), "suspended")
	r.lacks(shown(), "agent-3 suspended")

	for i := 2; i <= 7; i++ {
		r.event(event.SubagentSuspended{Header: event.InTurn(1), SubagentID: fmt.Sprintf("agent-%d", i), Reason: rateLimited})
	}
	live = r.live()
	for _, id := range []string{"agent-2", "agent-3", "agent-4"} {
		r.contains(live, id+" suspended: "+rateLimited)
	}
	r.lacks(live, "agent-5 suspended")
	r.contains(live, "… 3 more suspended")

	r.event(event.SubagentCompleted{Header: event.InTurn(1), SubagentID: "agent-2", ResultSummary: "done"})
	r.event(event.SubagentFailed{Header: event.InTurn(1), SubagentID: "agent-4", Error: "boom"})
	live = r.live()
	r.lacks(live, "agent-2 suspended")
	r.lacks(live, "agent-4 suspended")
	for _, id := range []string{"agent-3", "agent-5", "agent-6", "agent-7"} {
		r.contains(live, id+" suspended: "+rateLimited) // four lines: no count for one more
	}
	r.lacks(live, "more suspended")

	r.endTurn(event.EndCompleted)
	r.lacks(r.live(), "suspended")
	r.lacks(shown(), "suspended:")
}
