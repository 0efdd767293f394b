package agent_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/kimigo/kimigo/agent"
	"github.com/kimigo/kimigo/agent/agenttest"
	"github.com/kimigo/kimigo/agent/goal"
	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/injection"
	"github.com/kimigo/kimigo/agent/permission"
	"github.com/kimigo/kimigo/agent/plan"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/scripted"
	"github.com/kimigo/kimigo/tools"
)

// modesHome is the agent home of the mode scenarios: plan "p" is at
// modesPlan.
const (
	modesHome = "/home/u/sessions/s/agents/main"
	modesPlan = modesHome + "/plans/p.md"
)

// withModes gives an agent plan mode, goal mode, the reminders (the plan
// reminder per step, the goal reminder at the boundary) and the builtin
// tools with the plan and goal tools, the way a session builds a main
// agent.
func withModes(s agenttest.Setup, o *agent.Options) {
	env := s.Env
	o.HomeDir = modesHome
	o.Plan = plan.New(plan.Options{Env: env, HomeDir: modesHome, NewID: func() string { return "p" }})
	o.Goals = goal.New(goal.Options{Now: s.Now, NewID: func() string { return "goal-1" }})
	o.Injection = injection.New(injection.Options{PerStep: injection.PerStepWith(o.Plan.Reminder()),
		Boundary: []injection.Injector{o.Goals.Reminder()}})
	p, g := o.Plan, o.Goals
	o.NewToolManager = func(c tools.StoreCommitter) *tools.Manager {
		return tools.New(tools.Options{Base: tools.Base{Env: env}, Committer: c, Plan: p, Goals: g})
	}
}

// modesHarness is a harness whose agents have plan and goal mode.
func modesHarness(t *testing.T, opts ...agenttest.Option) *agenttest.Harness {
	t.Helper()
	return runtimeHarness(t, withModes, opts...)
}

// recordTypes are the types of the records so far that start with prefix.
func recordTypes(h *agenttest.Harness, prefix string) []string {
	var out []string
	for _, r := range h.Records() {
		if strings.HasPrefix(string(r.Type), prefix) {
			out = append(out, string(r.Type))
		}
	}
	return out
}

// goalUpdates are the goal.update payloads so far.
func goalUpdates(t *testing.T, h *agenttest.Harness) []goal.UpdateRecord {
	t.Helper()
	var out []goal.UpdateRecord
	for _, r := range h.Records() {
		if r.Type != records.Type(goal.TypeUpdate) {
			continue
		}
		var u goal.UpdateRecord
		if err := json.Unmarshal(r.Fields(), &u); err != nil {
			t.Fatal(err)
		}
		out = append(out, u)
	}
	return out
}

// turnsStarted counts turn.started events.
func turnsStarted(h *agenttest.Harness) int {
	n := 0
	for _, ev := range h.Events() {
		if ev.EventType() == "turn.started" {
			n++
		}
	}
	return n
}

// userOrigins lists the user messages of history as kind/name.
func userOrigins(msgs []history.Message) []string {
	var out []string
	for _, m := range msgs {
		if m.Role != llm.RoleUser || m.Origin.Is(history.OriginInjection) {
			continue
		}
		o := "user"
		if m.Origin != nil {
			o = string(m.Origin.Kind)
			if m.Origin.Name != "" {
				o += "/" + m.Origin.Name
			}
		}
		out = append(out, o)
	}
	return out
}

// writePlan puts content into the plan file.
func writePlan(t *testing.T, h *agenttest.Harness, content string) {
	t.Helper()
	if err := h.Env().WriteFile(modesPlan, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestS60EnterPlanOnTheAgent(t *testing.T) {
	h := modesHarness(t, agenttest.Permission(permission.Options{}))
	a := agentOf(h)
	if err := a.Plan().Enter(t.Context(), plan.EnterOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := recordStrings(h, records.Type(plan.TypeEnter)); len(got) != 1 || !strings.Contains(got[0], `"id":"p"`) {
		t.Errorf("records %v", got)
	}
	if a.HasActiveTurn() || turnsStarted(h) != 0 {
		t.Error("entering plan mode started a turn")
	}
	if !a.Status().PlanMode {
		t.Error("the status does not show plan mode")
	}
	r := h.ExpectResumeMatches()
	st := r.Agent.(host).Agent.State(t.Context()).Plan
	if st != (plan.State{Active: true, ID: "p", Path: modesPlan}) {
		t.Errorf("resumed plan state %+v", st)
	}
	var plans []bool
	for _, c := range r.Cards {
		if c.Type == "plan_updated" {
			plans = append(plans, c.Enabled)
		}
	}
	if len(plans) != 1 || !plans[0] {
		t.Errorf("plan cards %v", plans)
	}
}

// The model plans: enters plan mode, writes the plan, presents it; the
// user approves one option, and the model carries on with every tool.
func TestPlanModeWorkflow(t *testing.T) {
	approver := agenttest.NewApprover()
	h := modesHarness(t, agenttest.Permission(permission.Options{Approver: approver}))
	a := agentOf(h)
	h.Model(call("e1", "EnterPlanMode", `{}`),
		call("w1", "Write", `{"path":"`+modesPlan+`","content":"# Plan\n1. Do it"}`),
		call("w2", "Write", `{"path":"/ws/main.go","content":"package main"}`),
		call("x1", "ExitPlanMode", `{"options":[{"label":"Fast"},{"label":"Safe"}]}`),
		scripted.Text("Doing the safe approach."))
	h.Start("plan a change")
	q := approver.Next(t)
	if q.Request.ToolName != "ExitPlanMode" {
		t.Fatalf("asked about %s", q.Request.ToolName)
	}
	d, ok := q.Request.Display.(*tools.PlanReviewDisplay)
	if !ok || d.Plan != "# Plan\n1. Do it" || d.Path != modesPlan || len(d.Options) != 2 {
		t.Errorf("review display %#v", q.Request.Display)
	}
	q.Respond(permission.ApprovalResponse{Decision: permission.ApprovalApproved, SelectedLabel: "Safe"})
	if res := h.Wait(); res.Event.Reason != "completed" {
		t.Fatalf("turn %+v", res.Event)
	}
	results := summarize(a.History())
	joined := strings.Join(results, "\n")
	for _, f := range []string{"tool:w1:", "tool:w2:Plan mode is active: only the current plan file " + modesPlan,
		"tool:x1:Exited plan mode.\nSelected approach: Safe"} {
		if !strings.Contains(joined, f) {
			t.Errorf("history lacks %q:\n%s", f, joined)
		}
	}
	if a.Plan().State().Active {
		t.Error("plan mode is still on")
	}
	if _, err := h.Env().ReadFile("/ws/main.go"); err == nil {
		t.Error("the guard let a write through")
	}
	if got := reminders(a.History(), plan.VariantPlanMode); len(got) < 2 {
		t.Errorf("plan reminders %d; want the full one and the exit one", len(got))
	}
	h.ExpectResumeMatches()
}

func TestS62RejectedReviewStopsTheBatch(t *testing.T) {
	approver := agenttest.NewApprover()
	h := modesHarness(t, agenttest.Permission(permission.Options{Approver: approver}))
	a := agentOf(h)
	if err := a.Plan().Enter(t.Context(), plan.EnterOptions{}); err != nil {
		t.Fatal(err)
	}
	writePlan(t, h, "# Plan")
	h.Model(scripted.ToolCalls(scripted.Call{ID: "x1", Name: "ExitPlanMode", Arguments: `{}`},
		scripted.Call{ID: "w1", Name: "Write", Arguments: `{"path":"` + modesPlan + `","content":"# Other"}`}))
	h.Start("present it")
	approver.Next(t).Respond(permission.ApprovalResponse{Decision: permission.ApprovalRejected})
	if res := h.Wait(); res.Event.Reason != "completed" {
		t.Fatalf("turn %+v", res.Event)
	}
	if n := len(h.Requests()); n != 1 {
		t.Errorf("%d model requests; the turn must end after the rejected review", n)
	}
	if got, _ := h.Env().ReadFile(modesPlan); string(got) != "# Plan" {
		t.Errorf("the skipped Write ran: plan file %q", got)
	}
	if !a.Plan().State().Active {
		t.Error("a plain rejection ended plan mode")
	}
	h.ExpectResumeMatches()
}

// Spec 02 S51 with both modes: the resumed agent equals the live one,
// except that its active goal was paused by the one record the resume
// appends; plan mode is on with the same plan; the mode is yolo.
func TestResumeS51WithPlanAndGoal(t *testing.T) {
	approver := agenttest.AnswerAll(event.ApproveOnce)
	h := modesHarness(t, agenttest.Permission(permission.Options{Approver: approver}))
	a := agentOf(h)
	ctx := t.Context()
	h.Model(scripted.ToolCalls(
		scripted.Call{ID: "c1", Name: tools.NameTodoList, Arguments: `{"todos":[{"title":"write tests","status":"in_progress"}]}`},
		scripted.Call{ID: "c2", Name: tools.NameRead, Arguments: `{"path":"/ws/missing.go"}`}),
		scripted.Text("Planned."))
	h.Prompt("plan the work")
	if err := a.SetPermissionMode(ctx, permission.ModeYolo); err != nil {
		t.Fatal(err)
	}
	if err := a.Plan().Enter(ctx, plan.EnterOptions{}); err != nil {
		t.Fatal(err)
	}
	h.Model(scripted.Text("Nothing else."))
	h.Prompt("anything else?")
	h.Model(scripted.Text("Bye."))
	h.Prompt("wrap up")
	if err := a.Undo(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Goals().Create(ctx, tools.GoalInput{Objective: "ship it"}, goal.ActorUser); err != nil {
		t.Fatal(err)
	}

	live := a.State(ctx)
	r := h.Resume(h.Records())
	ra := r.Agent.(host).Agent
	resumed := ra.State(ctx)
	if g := resumed.Goal; g == nil || g.Status != tools.GoalPaused || g.TerminalReason != goal.ReasonResumed {
		t.Fatalf("resumed goal %+v", g)
	}
	want := *live.Goal
	want.Status, want.TerminalReason = tools.GoalPaused, goal.ReasonResumed
	if d := cmp.Diff(want, *resumed.Goal); d != "" {
		t.Errorf("goal (-live, paused +resumed):\n%s", d)
	}
	live.Goal, resumed.Goal = nil, nil
	if d := cmp.Diff(live, resumed, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("state (-live +resumed):\n%s", d)
	}
	if resumed.Plan != (plan.State{Active: true, ID: "p", Path: modesPlan}) || resumed.Permission.Mode != permission.ModeYolo {
		t.Errorf("plan %+v, mode %s", resumed.Plan, resumed.Permission.Mode)
	}
	appended := r.Store.Records()[len(h.Records()):]
	if len(appended) != 1 || appended[0].Type != records.Type(goal.TypeUpdate) {
		t.Errorf("appended %v", appended)
	}
	if got := ra.CurrentTurnID(); got != a.CurrentTurnID() {
		t.Errorf("resumed turn counter %d, live %d", got, a.CurrentTurnID())
	}
}
