package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/tools"
)

// longPlan is a plan with a heading and n steps, Markdown.
func longPlan(n int) string {
	var b strings.Builder
	b.WriteString("# Migrate the parser\n\nKeep **every** test green.\n\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%d. Step number %d\n", i, i)
	}
	return b.String()
}

func planReview(id, plan string, options ...tools.PlanOption) event.ApprovalRequested {
	return event.ApprovalRequested{Header: event.InTurn(1), RequestID: id, ToolCallID: "x1", ToolName: "ExitPlanMode",
		Action: "Presenting plan and exiting plan mode", OnceOnly: true,
		Display: &tools.PlanReviewDisplay{Plan: plan, Path: "/home/u/.kimigo/plans/p.md", Options: options}}
}

// A plan review shows the plan, rendered as Markdown and scrollable,
// above its choices: approve, revise with feedback, reject. It offers
// neither "for this session" nor "always": each plan is reviewed.
func TestPlanReviewPanel(t *testing.T) {
	r := newRig(t)
	r.startTurn("plan it")
	r.sess.Calls()
	r.event(planReview("r1", longPlan(40)))
	live := r.live()
	for _, want := range []string{"ExitPlanMode", "Migrate the parser", "Keep every test green.", "1. Step number 1",
		"1 Approve the plan", "2 Revise: reject with feedback, keep planning", "3 Reject", "more lines (pgdn)", "p.md"} {
		r.contains(live, want)
	}
	for _, not := range []string{"# Migrate", "**every**", "Step number 40", "for this session", "always"} {
		r.lacks(live, not)
	}
	if n := strings.Count(live, "\n"); n > 30 {
		t.Errorf("the panel is %d lines tall on a 30-line terminal", n)
	}
	for range 10 {
		r.key("pgdown")
	}
	live = r.live()
	r.contains(live, "40. Step number 40")
	r.contains(live, "more lines") // the ↑ marker: the top scrolled away
	r.lacks(live, "Migrate the parser")
	r.key("pgup")
	r.contains(r.live(), "(pgdn)")

	// Ctrl-E opens the whole plan in the pager; esc comes back.
	r.key("ctrl+e")
	if _, ok := r.m.overlay.(*pager); !ok {
		t.Fatalf("ctrl+e opened %T, not the pager", r.m.overlay)
	}
	r.key("esc")
	if _, ok := r.m.overlay.(*approvalPanel); !ok {
		t.Fatalf("esc from the pager left %T open, not the panel", r.m.overlay)
	}
	full := approvalFull(r.m.theme, planReview("r1", longPlan(40)).Display, 80, "/home/u/proj")
	r.contains(stripANSI(strings.Join(full, "\n")), "40. Step number 40")

	// Revise needs a reason; enter without one sends nothing.
	r.key("2")
	r.key("enter")
	r.expectCalls()
	r.typeText("split step 3")
	r.key("enter")
	r.expectCalls(`approval r1 reject "split step 3" [Revise]`)
	if r.m.overlay != nil {
		t.Error("the panel stayed open")
	}
	r.contains(r.screen(), "↪ split step 3")

	r.event(planReview("r2", "# Short plan\n\n1. Do it\n"))
	r.lacks(r.live(), "more lines")
	r.key("1")
	r.expectCalls(`approval r2 approve_once "" [Approve]`)

	r.event(planReview("r3", "# P\n"))
	r.key("3")
	r.expectCalls(`approval r3 reject "" [Reject]`)
}

// A plan with approaches offers one approval per approach, carrying its
// label back; the approaches are listed under the plan.
func TestPlanReviewApproaches(t *testing.T) {
	r := newRig(t)
	r.startTurn("plan it")
	r.sess.Calls()
	r.event(planReview("r1", "# Plan\n", tools.PlanOption{Label: "Fast", Description: "skip the cache"}, tools.PlanOption{Label: "Safe"}))
	live := r.live()
	for _, want := range []string{"1 Approve: Fast", "2 Approve: Safe", "3 Revise", "4 Reject", "Approaches:", "Fast — skip the cache"} {
		r.contains(live, want)
	}
	r.key("down")
	r.key("enter")
	r.expectCalls(`approval r1 approve_once "" [Safe]`)
}

// Any request the session marks once-only offers no remembered choice;
// a goal start offers the modes to start in (spec 04 §4.2).
func TestOnceOnlyAndGoalStartChoices(t *testing.T) {
	r := newRig(t)
	r.startTurn("go")
	r.sess.Calls()
	once := writeApproval("r1")
	once.OnceOnly = true
	r.event(once)
	live := r.live()
	r.contains(live, "1 Approve once")
	r.contains(live, "3 Reject with feedback")
	r.lacks(live, "for this session")
	r.lacks(live, "always")
	r.key("1")
	r.expectCalls(`approval r1 approve_once ""`)

	goal := event.ApprovalRequested{Header: event.InTurn(1), RequestID: "r2", ToolName: "CreateGoal", OnceOnly: true,
		Display: &tools.GoalStartDisplay{Objective: "Ship the parser", CompletionCriterion: "tests pass", Mode: "manual"}}
	r.event(goal)
	live = r.live()
	for _, want := range []string{"Ship the parser", "done when: tests pass", "1 Switch to Auto and start",
		"2 Switch to YOLO and start", "3 Start in Manual", "4 Do not start"} {
		r.contains(live, want)
	}
	r.key("3")
	r.expectCalls(`approval r2 approve_once "" [manual]`)

	goal.RequestID, goal.Display = "r3", &tools.GoalStartDisplay{Objective: "Ship it", Mode: "yolo"}
	r.event(goal)
	r.contains(r.live(), "2 Keep YOLO and start")
	r.key("3")
	r.expectCalls(`approval r3 dismiss "" [cancel]`)
}
