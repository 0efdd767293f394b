package session_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/session"
	"github.com/kimigo/kimigo/tools"
)

// The plan and goal controls of the facade, as the TUI's /plan and /goal
// and print mode's /goal drive them (spec 04 §5.3, §6.11; spec 06 §1.2,
// §1.6.6).

// goalEvents reads sub until a main-agent turn ends while the goal (as
// the events tell it) is no longer active, and returns the goal events
// it read.
func goalEvents(t *testing.T, sub *event.Subscription) []event.GoalUpdated {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a deadlock guard, not a measurement
	defer cancel()
	var (
		out    []event.GoalUpdated
		active bool
		ended  bool
	)
	for {
		ev, err := sub.Next(ctx)
		if err != nil {
			t.Fatalf("waiting for the goal to settle: %v", err)
		}
		switch e := ev.(type) {
		case event.GoalUpdated:
			out = append(out, e)
			active = e.Goal != nil && e.Goal.Status == "active"
		case event.TurnStarted:
			ended = false
		case event.TurnEnded:
			ended = true
		}
		if ended && !active {
			return out
		}
	}
}

func TestSessionStartGoalRunsItToCompletion(t *testing.T) {
	r := newRig(t)
	r.srv.Add(llmtest.Text("slice one"), llmtest.ToolCall("u1", "UpdateGoal", `{"status":"complete"}`), llmtest.Text("Shipped."))
	s, err := session.Open(t.Context(), r.opts(""))
	if err != nil {
		t.Fatal(err)
	}
	defer closeSession(t, s)
	sub := s.Subscribe()
	defer sub.Close()
	if err := s.StartGoal(t.Context(), "ship it", false); err != nil {
		t.Fatal(err)
	}
	evs := goalEvents(t, sub)
	if first := evs[0].Goal; first == nil || first.Objective != "ship it" || first.Status != "active" {
		t.Errorf("first goal event %+v", first)
	}
	var done *event.GoalChange
	for _, e := range evs {
		if e.Change != nil && e.Change.Kind == "completion" {
			done = e.Change
		}
	}
	if done == nil || done.Stats == nil || done.Stats.TurnsUsed != 2 {
		t.Errorf("completion change %+v in %+v", done, evs)
	}
	if last := evs[len(evs)-1]; last.Goal != nil {
		t.Errorf("the last goal event %+v; a completed goal is cleared", last.Goal)
	}
	if g := s.Goal(); g != nil {
		t.Errorf("Goal() = %+v after the completion", g)
	}
	if n := len(r.srv.Requests()); n != 3 {
		t.Errorf("%d model requests, want 3", n)
	}
	if st := readState(t, s.Dir()); st["lastPrompt"] != "ship it" {
		t.Errorf("lastPrompt %v", st["lastPrompt"])
	}
}

func TestSessionGoalControls(t *testing.T) {
	r := newRig(t)
	held := llmtest.NewGate() // the goal's first turn waits until /goal pause cancels it
	r.srv.Add(llmtest.Reply{Fault: llmtest.Fault{Hold: held}}, llmtest.Text("resumed"),
		llmtest.ToolCall("b1", "UpdateGoal", `{"status":"blocked"}`), llmtest.Text("Blocked."))
	ctx := t.Context()
	s, err := session.Open(ctx, r.opts(""))
	if err != nil {
		t.Fatal(err)
	}
	defer closeSession(t, s)
	if g := s.Goal(); g != nil {
		t.Fatalf("a new session has goal %+v", g)
	}
	if err := s.PauseGoal(ctx); !errors.Is(err, session.ErrNoGoal) {
		t.Errorf("PauseGoal without a goal = %v, want ErrNoGoal", err)
	}
	sub := s.Subscribe()
	defer sub.Close()
	if err := s.StartGoal(ctx, "ship it", false); err != nil {
		t.Fatal(err)
	}
	<-held.Reached()
	if err := s.StartGoal(ctx, "another", true); err == nil || !strings.Contains(err.Error(), "running turn") {
		t.Errorf("StartGoal during a turn = %v", err)
	}
	if err := s.SetGoalBudget(ctx, tools.GoalBudgetRequest{Value: 1, Unit: "milliseconds"}); err == nil ||
		!strings.Contains(err.Error(), "1 millisecond is not a reasonable goal budget") {
		t.Errorf("SetGoalBudget(1 ms) = %v", err)
	}
	if err := s.SetGoalBudget(ctx, tools.GoalBudgetRequest{Value: 5, Unit: "turns"}); err != nil {
		t.Fatal(err)
	}
	if err := s.PauseGoal(ctx); err != nil {
		t.Fatal(err)
	}
	goalEvents(t, sub)
	g := s.Goal()
	if g == nil || g.Status != "paused" || g.TurnBudget == nil || *g.TurnBudget != 5 {
		t.Fatalf("goal after /goal pause %+v", g)
	}
	if err := s.StartGoal(ctx, "another", false); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("StartGoal with a goal = %v", err)
	}

	if err := s.ResumeGoal(ctx); err != nil { // "resumed", then the model blocks the goal
		t.Fatal(err)
	}
	goalEvents(t, sub)
	if g := s.Goal(); g == nil || g.Status != "blocked" || g.TurnsUsed != 3 {
		t.Errorf("goal after the resumed turns %+v", g)
	}
	if !sentText(r.sentMessages(1), "Resume the active goal.") {
		t.Errorf("the resumed turn did not send the resume prompt: %v", r.sentMessages(1))
	}

	gone, err := s.CancelGoal(ctx)
	if err != nil || gone == nil || gone.Objective != "ship it" || gone.Status != "blocked" {
		t.Errorf("CancelGoal = %+v, %v", gone, err)
	}
	if _, err := s.CancelGoal(ctx); !errors.Is(err, session.ErrNoGoal) {
		t.Errorf("a second CancelGoal = %v, want ErrNoGoal", err)
	}
	if s.Goal() != nil {
		t.Errorf("Goal() = %+v after the cancel", s.Goal())
	}
}

// sentText reports whether a user message of msgs is text.
func sentText(msgs []map[string]any, text string) bool {
	for _, m := range msgs {
		if m["role"] != "user" {
			continue
		}
		switch c := m["content"].(type) {
		case string:
			if c == text {
				return true
			}
		case []any:
			for _, p := range c {
				if p, ok := p.(map[string]any); ok && p["text"] == text {
					return true
				}
			}
		}
	}
	return false
}

func TestSessionPlanControls(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	s, err := session.Open(ctx, r.opts(""))
	if err != nil {
		t.Fatal(err)
	}
	defer closeSession(t, s)
	if s.PlanMode() || s.PlanState().Active {
		t.Fatal("a new session is in plan mode")
	}
	if p, err := s.Plan(); p != nil || err != nil {
		t.Errorf("Plan() off = %+v, %v", p, err)
	}
	sub := s.Subscribe()
	defer sub.Close()
	if err := s.SetPlanMode(ctx, true); err != nil {
		t.Fatal(err)
	}
	st := s.PlanState()
	if !s.PlanMode() || st.ID == "" || filepath.Dir(st.Path) != filepath.Join(s.Dir(), "agents", "main", "plans") {
		t.Fatalf("plan state %+v", st)
	}
	if _, err := os.Stat(st.Path); err == nil {
		t.Error("turning plan mode on wrote the plan file")
	}
	if !nextStatus(t, sub).PlanMode || !s.Status().PlanMode {
		t.Error("no status with plan mode on")
	}
	if err := s.SetPlanMode(ctx, true); err != nil || s.PlanState() != st {
		t.Errorf("plan mode on again = %v, state %+v", err, s.PlanState())
	}
	if err := os.WriteFile(st.Path, []byte("1. do it"), 0o600); err != nil {
		t.Fatal(err)
	}
	if p, err := s.Plan(); err != nil || p == nil || p.Content != "1. do it" || p.Path != st.Path {
		t.Errorf("Plan() = %+v, %v", p, err)
	}
	if err := s.ClearPlan(); err != nil {
		t.Fatal(err)
	}
	if p, err := s.Plan(); err != nil || p.Content != "" || s.PlanState() != st {
		t.Errorf("after /plan clear: %+v, %v, state %+v", p, err, s.PlanState())
	}
	if err := s.SetPlanMode(ctx, false); err != nil {
		t.Fatal(err)
	}
	if s.PlanMode() || nextStatus(t, sub).PlanMode {
		t.Error("plan mode still on")
	}
}

// nextStatus reads sub until the main agent's next status event.
func nextStatus(t *testing.T, sub *event.Subscription) event.Status {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a deadlock guard, not a measurement
	defer cancel()
	for {
		ev, err := sub.Next(ctx)
		if err != nil {
			t.Fatalf("waiting for a status: %v", err)
		}
		if e, ok := ev.(event.Status); ok {
			return e
		}
	}
}

// --plan and default_plan_mode (spec 06 §1.2, §1.4 rules 4 and 5): a new
// session starts in plan mode with either; a resumed one keeps its saved
// plan mode, which --plan turns on and default_plan_mode does not.
func TestSessionStartsInPlanMode(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	open := func(o session.Options) *session.Session {
		t.Helper()
		s, err := session.Open(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	withPlan := r.opts("")
	withPlan.Plan = true
	s := open(withPlan)
	if !s.PlanMode() {
		t.Error("--plan: a new session is not in plan mode")
	}
	planned := s.PlanState()
	closeSession(t, s)
	s = open(r.resumeOpts(s.ID(), ""))
	if s.PlanState() != planned {
		t.Errorf("resumed plan mode %+v, want %+v", s.PlanState(), planned)
	}
	closeSession(t, s)

	plain := open(r.opts(""))
	closeSession(t, plain)
	r.writeConfig(strings.Replace(mustRead(t, r), "default_model", "default_plan_mode = true\ndefault_model", 1))
	s = open(r.opts(""))
	if !s.PlanMode() {
		t.Error("default_plan_mode: a new session is not in plan mode")
	}
	closeSession(t, s)
	s = open(r.resumeOpts(plain.ID(), ""))
	if s.PlanMode() {
		t.Error("default_plan_mode turned plan mode on in a resumed session")
	}
	closeSession(t, s)
	resumePlan := r.resumeOpts(plain.ID(), "")
	resumePlan.Plan = true
	s = open(resumePlan)
	if !s.PlanMode() {
		t.Error("--plan did not turn plan mode on in a resumed session")
	}
	closeSession(t, s)
}

func mustRead(t *testing.T, r *rig) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.cfgHome, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// /goal next through the session (spec 06 §5.11): a goal queued behind a
// blocked goal waits, survives closing and resuming the session, and
// starts by itself once the resumed goal completes; its objective is the
// user's prompt.
func TestSessionGoalQueue(t *testing.T) {
	r := newRig(t)
	r.srv.Add(llmtest.ToolCall("b1", "UpdateGoal", `{"status":"blocked"}`), llmtest.Text("Blocked."))
	ctx := t.Context()
	s, err := session.Open(ctx, r.opts(""))
	if err != nil {
		t.Fatal(err)
	}
	sub := s.Subscribe()
	if err := s.StartGoal(ctx, "ship it", false); err != nil {
		t.Fatal(err)
	}
	goalEvents(t, sub)
	sub.Close()
	queued, err := s.QueueGoal(ctx, "announce it")
	if err != nil || len(queued) != 1 || queued[0] != "announce it" {
		t.Fatalf("QueueGoal behind a blocked goal = %q, %v", queued, err)
	}
	if n := len(r.srv.Requests()); n != 2 {
		t.Errorf("%d requests; the queued goal must wait behind the blocked one", n)
	}
	id := s.ID()
	closeSession(t, s)

	r.srv.Add(llmtest.ToolCall("u1", "UpdateGoal", `{"status":"complete"}`), llmtest.Text("Shipped."),
		llmtest.ToolCall("u2", "UpdateGoal", `{"status":"complete"}`), llmtest.Text("Announced."))
	s, err = session.Open(ctx, r.resumeOpts(id, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer closeSession(t, s)
	if got := s.UpcomingGoals(); len(got) != 1 || got[0] != "announce it" {
		t.Fatalf("resumed queue %q", got)
	}
	sub = s.Subscribe()
	defer sub.Close()
	if err := s.ResumeGoal(ctx); err != nil {
		t.Fatal(err)
	}
	var created []string
	deadline, cancel := context.WithTimeout(ctx, time.Minute) // a deadlock guard, not a measurement
	defer cancel()
	for len(r.srv.Requests()) < 6 || s.Goal() != nil || len(created) < 1 {
		ev, err := sub.Next(deadline)
		if err != nil {
			t.Fatalf("waiting for the queued goal: %v (created %q)", err, created)
		}
		if e, ok := ev.(event.GoalUpdated); ok && e.Goal != nil && e.Goal.Status == "active" && e.Goal.TurnsUsed == 0 {
			created = append(created, e.Goal.Objective)
		}
	}
	if len(created) != 1 || created[0] != "announce it" {
		t.Errorf("goals started %q", created)
	}
	if !sentText(r.sentMessages(4), "announce it") {
		t.Errorf("the queued goal's objective was not sent: %v", r.sentMessages(4))
	}
	if got := s.UpcomingGoals(); len(got) != 0 {
		t.Errorf("queue after the start %q", got)
	}
}
