package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

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
// above its choices: approve, edit, revise with feedback, reject. It
// offers neither "for this session" nor "always": each plan is reviewed.
func TestPlanReviewPanel(t *testing.T) {
	r := newRig(t)
	r.startTurn("plan it")
	r.sess.Calls()
	r.event(planReview("r1", longPlan(40)))
	live := r.live()
	for _, want := range []string{"ExitPlanMode", "Migrate the parser", "Keep every test green.", "1. Step number 1",
		"1 Approve the plan", "2 Edit the plan", "3 Revise: reject with feedback, keep planning", "4 Reject",
		"more lines (pgdn)", "p.md", "e edit · pgup/pgdn scroll"} {
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

	// Editing needs a terminal to hand over; the rig has none, so the
	// panel stays open and answers nothing.
	r.key("e")
	r.expectCalls()
	if _, ok := r.m.overlay.(*approvalPanel); !ok {
		t.Fatalf("e left %T open, not the panel", r.m.overlay)
	}
	r.contains(r.screen(), "The external editor needs a terminal.")

	// Revise needs a reason; enter without one sends nothing.
	r.key("3")
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
	r.key("4")
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
	for _, want := range []string{"1 Approve: Fast", "2 Approve: Safe", "3 Edit the plan", "4 Revise", "5 Reject", "Approaches:", "Fast — skip the cache"} {
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

// "Edit the plan" opens the plan file in $VISUAL with the terminal
// handed over; the panel then shows the edited plan, the file keeps it,
// and the approval that follows is sent for that file (the session reads
// the approved plan from it).
func TestPlanReviewEditInEditor(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.md")
	if err := os.WriteFile(plan, []byte("# Old plan\n\n1. Rewrite the lexer\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const edited = "# Edited plan\n\n1. Keep the lexer\n2. Fix the parser\n"
	editor := filepath.Join(dir, "edit.sh")
	script := "#!/bin/sh\necho \"$@\" > " + filepath.Join(dir, "args") + "\nprintf '" + strings.ReplaceAll(edited, "\n", `\n`) + "' > \"$1\"\n"
	if err := os.WriteFile(editor, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"VISUAL": editor, "EDITOR": "false"} // VISUAL comes first
	r := startPTY(t, func(o *Options) { o.TUI.Env = func(k string) string { return env[k] } })
	r.waitFor("context:")
	r.sess.bus.Publish(event.WithAgent(event.TurnStarted{Header: event.InTurn(1)}, mainAgent))
	req := planReview("r1", "# Old plan\n\n1. Rewrite the lexer\n")
	req.Display.(*tools.PlanReviewDisplay).Path = plan
	r.sess.bus.Publish(event.WithAgent(req, mainAgent))
	r.waitFor("Rewrite the lexer")
	r.waitFor("2 Edit the plan")

	r.send("e")
	r.waitFor("Fix the parser")
	r.waitFor("1 Approve the plan") // the panel is back, still unanswered
	r.mu.Lock()
	screen := strings.Join(r.vt.Lines(), "\n")
	r.mu.Unlock()
	if strings.Contains(screen, "Rewrite the lexer") {
		t.Errorf("the panel still shows the old plan:\n%s", screen)
	}
	if args, err := os.ReadFile(filepath.Join(dir, "args")); err != nil || strings.TrimSpace(string(args)) != plan {
		t.Errorf("the editor got %q, %v; want the plan file %s", args, err, plan)
	}
	if calls := r.sess.Calls(); len(calls) != 0 {
		t.Errorf("editing answered the review: %v", calls)
	}

	// The full preview shows the edited plan too.
	r.send("\x05") // Ctrl-E
	r.waitFor("Full preview")
	r.mu.Lock()
	screen = strings.Join(r.vt.Lines(), "\n")
	r.mu.Unlock()
	if !strings.Contains(screen, "Fix the parser") || strings.Contains(screen, "Rewrite the lexer") {
		t.Errorf("the full preview does not show the edited plan:\n%s", screen)
	}
	r.send("q")
	r.waitFor("1 Approve the plan")

	r.send("1")
	want := `approval r1 approve_once "" [Approve]`
	var calls []string
	for deadline := time.Now().Add(rigTimeout); !slices.Contains(calls, want); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("session calls %v; want %s", calls, want)
		}
		calls = append(calls, r.sess.Calls()...)
	}
	if b, err := os.ReadFile(plan); err != nil || string(b) != edited {
		t.Errorf("plan file at approval %q, %v; want the edit", b, err)
	}

	r.sess.bus.Publish(event.WithAgent(event.TurnEnded{Header: event.InTurn(1), Reason: event.EndCompleted}, mainAgent))
	r.send("\x03")
	r.waitFor("Press Ctrl+C again to exit")
	r.send("\x03")
	r.wait()
	r.restored()
}
