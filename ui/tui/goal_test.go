package tui

import (
	"context"
	"testing"

	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/session"
	"github.com/kimigo/kimigo/tools"
)

// goaled is a recorder with goal mode.
type goaled struct {
	*recorder
	goal *event.Goal
	next []string
}

func (g *goaled) StartGoal(_ context.Context, objective string, replace bool) error {
	g.log("start goal %q replace=%v", objective, replace)
	return nil
}
func (g *goaled) Goal() *event.Goal                { return g.goal }
func (g *goaled) PauseGoal(context.Context) error  { g.log("pause goal"); return nil }
func (g *goaled) ResumeGoal(context.Context) error { g.log("resume goal"); return nil }
func (g *goaled) CancelGoal(context.Context) (*event.Goal, error) {
	g.log("cancel goal")
	return g.goal, nil
}
func (g *goaled) QueueGoal(_ context.Context, objective string) ([]string, error) {
	g.log("queue goal %q", objective)
	return g.next, nil
}
func (g *goaled) UpcomingGoals() []string { return g.next }
func (g *goaled) SetGoalBudget(_ context.Context, b tools.GoalBudgetRequest) error {
	g.log("goal budget %v", b)
	return nil
}

// /goal (spec 06 §5.11) through the session's grammar: status, start
// (a turn with the objective as the prompt), pause, cancel, budget;
// refused while a turn runs; the goal's changes shown as they arrive.
func TestGoalCommand(t *testing.T) {
	s := &goaled{recorder: newRecorder()}
	r := newRig(t, func(o *Options) { o.Session = s })
	r.sess = s.recorder
	do := func(line string) {
		t.Helper()
		r.key("ctrl+u")
		r.typeText(line)
		r.key("enter")
	}
	do("/goal")
	r.contains(r.screen(), "No goal. Start one with /goal <objective>.")

	do("/goal make the tests pass")
	r.contains(r.screen(), "✨ make the tests pass")
	r.expectCalls(`start goal "make the tests pass" replace=false`)

	r.event(event.TurnStarted{Header: event.InTurn(1)})
	do("/goal replace something else")
	r.contains(r.screen(), "Cannot start a goal while streaming")
	do("/goal pause")
	r.expectCalls("pause goal")
	r.event(event.TurnEnded{Header: event.InTurn(1), Reason: event.EndCancelled})

	turns := 3
	s.goal = &event.Goal{Objective: "make the tests pass", Status: "paused", TurnsUsed: 2, TurnBudget: &turns, TokensUsed: 900}
	do("/goal status")
	r.contains(r.screen(), "Goal (paused): make the tests pass · 2 turns of 3 · 900 tokens")
	do("/goal budget 20 turns")
	do("/goal cancel")
	calls := r.sess.Calls()
	if len(calls) != 2 || calls[1] != "cancel goal" {
		t.Errorf("calls %q; want a budget and a cancel", calls)
	}
	// /goal next: with no goal and nothing running the goal starts now,
	// else it is queued; the queue shows in /goal and /goal cancel
	// drops it.
	s.goal = nil
	r.sess.Calls()
	do("/goal next write the docs")
	r.contains(r.screen(), "✨ write the docs")
	r.expectCalls(`queue goal "write the docs"`)
	r.event(event.GoalUpdated{Goal: &event.Goal{Objective: "write the docs", Status: "active"}})
	r.lacks(r.screen(), "Goal started: write the docs") // the user's prompt shows it already
	r.event(event.TurnStarted{Header: event.InTurn(2)})
	s.goal = &event.Goal{Objective: "write the docs", Status: "active"}
	do("/goal next release it")
	r.contains(r.screen(), "Queued goal 1: release it. It starts when the current goal completes.")
	r.expectCalls(`queue goal "release it"`)
	s.next = []string{"release it", "announce it"}
	do("/goal")
	r.contains(r.screen(), "Goal (active): write the docs · 0 turns · 0 tokens")
	r.contains(r.screen(), "Next 1: release it")
	r.contains(r.screen(), "Next 2: announce it")
	do("/goal cancel")
	r.contains(r.screen(), "Dropped 2 queued goals.")
	r.expectCalls("cancel goal")
	r.event(event.TurnEnded{Header: event.InTurn(2), Reason: event.EndCancelled})
	s.goal, s.next = nil, nil
	do("/goal next manage")
	r.contains(r.screen(), "/goal next manage) is not available")

	r.event(event.GoalUpdated{Goal: nil, Change: &event.GoalChange{Kind: "completion", Status: "complete",
		Stats: &event.GoalStats{TurnsUsed: 3, TokensUsed: 1500}}})
	r.contains(r.screen(), "Goal complete after 3 turns and 1500 tokens.")
	r.event(event.GoalUpdated{Goal: &event.Goal{Objective: "release it", Status: "active"}})
	r.contains(r.screen(), "Goal started: release it")
}

// The session has goal and plan mode: /goal, /plan and Shift-Tab reach
// them.
var (
	_ goaler      = (*session.Session)(nil)
	_ planner     = (*session.Session)(nil)
	_ planClearer = (*session.Session)(nil)
)
