package plan_test

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent/permission"
	"github.com/kimigo/kimigo/agent/plan"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/osenv/osenvtest"
	"github.com/kimigo/kimigo/tools"
)

// recorder is the commit path of a Mode under test: it keeps each record
// as the agent would write it and applies what decodes back from it.
type recorder struct {
	m    *plan.Mode
	mode string
	recs []string
}

func (r *recorder) Commit(_ context.Context, p plan.Payload) error {
	b, err := json.Marshal(p)
	if err != nil {
		return err
	}
	back, err := plan.DecodeRecord(p.RecordType(), b)
	if err != nil {
		return err
	}
	r.recs = append(r.recs, string(p.RecordType())+" "+string(b))
	return r.m.Apply(back)
}

func (r *recorder) PermissionMode() string {
	if r.mode == "" {
		return "manual"
	}
	return r.mode
}

func newMode(t *testing.T, o plan.Options) (*plan.Mode, *recorder, *osenvtest.Env) {
	t.Helper()
	env := osenvtest.New(osenvtest.Options{Cwd: "/repo", Home: "/home/u"})
	if o.Env == nil {
		o.Env = env
	}
	m := plan.New(o)
	rec := &recorder{m: m}
	m.Bind(rec)
	return m, rec, env
}

func TestS60Enter(t *testing.T) {
	const home = "/home/u/.kimigo/sessions/s/agents/main"
	m, rec, env := newMode(t, plan.Options{HomeDir: home, NewID: func() string { return "storm-rocket-atom" }})
	if err := m.Enter(t.Context(), plan.EnterOptions{}); err != nil {
		t.Fatal(err)
	}
	want := plan.State{Active: true, ID: "storm-rocket-atom", Path: home + "/plans/storm-rocket-atom.md"}
	if d := cmp.Diff(want, m.State()); d != "" {
		t.Errorf("state (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{`plan_mode.enter {"id":"storm-rocket-atom"}`}, rec.recs); d != "" {
		t.Errorf("records (-want +got):\n%s", d)
	}
	if fi, err := env.Stat(home + "/plans"); err != nil || !fi.IsDir() {
		t.Errorf("plans directory: %v", err)
	}
	if _, err := env.Stat(want.Path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a plan file was written: %v", err)
	}
	if err := m.Enter(t.Context(), plan.EnterOptions{}); err == nil || err.Error() != "Already in plan mode" {
		t.Errorf("second Enter: %v", err)
	}

	// Replaying the record restores the same path, with no I/O at all.
	deny := osenvtest.Deny()
	replayed := plan.New(plan.Options{Env: deny, HomeDir: home})
	p, err := plan.DecodeRecord(plan.TypeEnter, []byte(`{"id":"storm-rocket-atom"}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := replayed.Apply(p); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, replayed.State()); d != "" || len(deny.Attempts()) > 0 {
		t.Errorf("replayed state (-want +got):\n%s\nOS attempts: %v", d, deny.Attempts())
	}

	// Without a home, the plan lives under the work dir.
	noHome, _, _ := newMode(t, plan.Options{NewID: func() string { return "p" }})
	if err := noHome.Enter(t.Context(), plan.EnterOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := noHome.State().Path; got != "/repo/plan/p.md" {
		t.Errorf("path without a home = %q", got)
	}
}

// call is a permission call of tool name with the given write accesses.
func call(name string, mode permission.Mode, writes ...string) *permission.Call {
	exec := &loop.Execution{Accesses: loop.None()}
	for _, w := range writes {
		exec.Accesses = append(exec.Accesses, loop.WriteFile(w)...)
	}
	tc := llm.ToolCall{ID: "c1", Name: name, Arguments: `{}`}
	return &permission.Call{ToolCtx: loop.ToolCtx{ToolCall: tc, ToolCalls: []llm.ToolCall{tc}, Execution: exec}, Mode: mode}
}

func TestS61WriteGuardShapes(t *testing.T) {
	m, _, _ := newMode(t, plan.Options{HomeDir: "/h", NewID: func() string { return "p" }})
	if err := m.Enter(t.Context(), plan.EnterOptions{}); err != nil {
		t.Fatal(err)
	}
	const p = "/h/plans/p.md"
	var slots permission.Slots
	m.Slots(&slots)
	for _, tt := range []struct {
		name   string
		writes []string
		guard  permission.Kind
		policy permission.Kind // plan-mode-tool-approve
	}{
		{"no write access", nil, permission.Deny, permission.None},
		{"plan file and another file", []string{p, "/repo/x"}, permission.Deny, permission.None},
		{"the plan file twice", []string{p, p}, permission.None, permission.Approve},
		{"the plan file", []string{p}, permission.None, permission.Approve},
		{"another file", []string{"/repo/x"}, permission.Deny, permission.None},
	} {
		for _, tool := range []string{"Write", "Edit"} {
			t.Run(tt.name+"/"+tool, func(t *testing.T) {
				g, err := slots.PlanGuard.Evaluate(t.Context(), call(tool, permission.ModeAuto, tt.writes...))
				if err != nil || g.Kind != tt.guard {
					t.Errorf("guard = %v, %v; want %v", g.Kind, err, tt.guard)
				}
				if g.Kind == permission.Deny && !strings.Contains(g.Message, "Plan mode is active") {
					t.Errorf("guard message %q", g.Message)
				}
				a, err := slots.PlanToolApprove.Evaluate(t.Context(), call(tool, permission.ModeManual, tt.writes...))
				if err != nil || a.Kind != tt.policy {
					t.Errorf("plan-mode-tool-approve = %v, %v; want %v", a.Kind, err, tt.policy)
				}
			})
		}
	}

	// With no plan file path every write is refused, naming the gap.
	unset, _, _ := newMode(t, plan.Options{Cwd: func() string { return "" }, NewID: func() string { return "p" }})
	if err := unset.Enter(t.Context(), plan.EnterOptions{}); err != nil {
		t.Fatal(err)
	}
	var s permission.Slots
	unset.Slots(&s)
	v, err := s.PlanGuard.Evaluate(t.Context(), call("Write", permission.ModeManual, "/repo/plan/p.md"))
	if err != nil || v.Kind != permission.Deny || !strings.Contains(v.Message, "(no plan file selected yet)") {
		t.Errorf("guard without a path = %+v, %v", v, err)
	}
}

func TestS63Clear(t *testing.T) {
	m, rec, env := newMode(t, plan.Options{HomeDir: "/h", NewID: func() string { return "p" }})
	if err := m.Enter(t.Context(), plan.EnterOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := env.WriteFile("/h/plans/p.md", []byte("# Plan\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := m.State()
	if err := m.Clear(); err != nil {
		t.Fatal(err)
	}
	b, err := env.ReadFile("/h/plans/p.md")
	if err != nil || len(b) != 0 {
		t.Errorf("plan file after Clear = %q, %v", b, err)
	}
	if m.State() != before || len(rec.recs) != 1 {
		t.Errorf("state %+v (was %+v), records %v", m.State(), before, rec.recs)
	}
	d, err := m.Data()
	if err != nil || d == nil || d.Content != "" || d.Path != before.Path {
		t.Errorf("Data = %+v, %v", d, err)
	}
}

func TestEnterCreateFileAndExit(t *testing.T) {
	m, rec, env := newMode(t, plan.Options{HomeDir: "/h", NewID: func() string { return "p" }})
	if err := m.Enter(t.Context(), plan.EnterOptions{CreateFile: true}); err != nil {
		t.Fatal(err)
	}
	if b, err := env.ReadFile("/h/plans/p.md"); err != nil || len(b) != 0 {
		t.Errorf("created plan file = %q, %v", b, err)
	}
	if err := m.Exit(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := m.Exit(t.Context()); !errors.Is(err, plan.ErrNotActive) {
		t.Errorf("Exit while off: %v", err)
	}
	if err := m.Cancel(t.Context()); err != nil {
		t.Errorf("Cancel while off: %v", err)
	}
	want := []string{`plan_mode.enter {"id":"p"}`, `plan_mode.exit {"id":"p"}`}
	if d := cmp.Diff(want, rec.recs); d != "" {
		t.Errorf("records (-want +got):\n%s", d)
	}
}

// An Enter whose directory cannot be made changes nothing and records
// nothing.
func TestEnterFailsCleanly(t *testing.T) {
	m, rec, _ := newMode(t, plan.Options{Env: osenvtest.Deny(), HomeDir: "/h", NewID: func() string { return "p" }})
	if err := m.Enter(t.Context(), plan.EnterOptions{}); err == nil || !strings.Contains(err.Error(), "create plan directory") {
		t.Errorf("Enter = %v", err)
	}
	if m.State().Active || len(rec.recs) != 0 {
		t.Errorf("state %+v, records %v", m.State(), rec.recs)
	}
}

func TestS91PlanTools(t *testing.T) {
	m, _, env := newMode(t, plan.Options{HomeDir: "/h", NewID: func() string { return "p" }})
	enter, exit := tools.NewEnterPlanMode(m), tools.NewExitPlanMode(m)
	run := func(tool loop.ExecutableTool, args string) loop.ToolResult {
		t.Helper()
		exec, res, err := tool.ResolveExecution(json.RawMessage(args))
		if err != nil {
			t.Fatal(err)
		}
		if res != nil {
			return *res
		}
		out, err := exec.Execute(t.Context(), loop.ExecCtx{})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if got := run(exit, `{}`); !got.IsError || got.Output.Text() !=
		"ExitPlanMode can only be called while plan mode is active. Use EnterPlanMode (or /plan) first." {
		t.Errorf("ExitPlanMode outside plan mode = %q", got.Output.Text())
	}
	if got := run(enter, `{}`); got.IsError || !strings.Contains(got.Output.Text(), "Plan file: /h/plans/p.md") {
		t.Errorf("first EnterPlanMode = %q", got.Output.Text())
	}
	if got := run(enter, `{}`); !got.IsError || got.Output.Text() != "Plan mode is already active. Use ExitPlanMode when the plan is ready." {
		t.Errorf("second EnterPlanMode = %q", got.Output.Text())
	}
	if got := run(exit, `{}`); !got.IsError || got.Output.Text() !=
		"No plan file found. Write your plan to /h/plans/p.md first, then call ExitPlanMode." {
		t.Errorf("ExitPlanMode with no plan = %q", got.Output.Text())
	}
	if got := run(exit, `{"options":[{"label":"Approve"}]}`); !got.IsError ||
		got.Output.Text() != "Option labels must not use reserved approval labels." {
		t.Errorf("reserved label = %q", got.Output.Text())
	}
	if got := run(exit, `{"options":[{"label":"A"},{"label":" a "}]}`); !got.IsError ||
		got.Output.Text() != "Option labels must be unique." {
		t.Errorf("duplicate labels = %q", got.Output.Text())
	}
	if err := env.WriteFile("/h/plans/p.md", []byte("# Plan"), 0o644); err != nil {
		t.Fatal(err)
	}
	exec, _, err := exit.ResolveExecution(json.RawMessage(`{"options":[{"label":"A","description":"one"},{"label":"B"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := &tools.PlanReviewDisplay{Plan: "# Plan", Path: "/h/plans/p.md",
		Options: []tools.PlanOption{{Label: "A", Description: "one"}, {Label: "B"}}}
	if d := cmp.Diff(want, exec.Display); d != "" {
		t.Errorf("display (-want +got):\n%s", d)
	}
	// Execute runs only when nobody reviewed the plan (auto mode, an allow
	// rule, a session approval): the model is told so.
	if got := run(exit, `{}`); got.IsError || !strings.Contains(got.Output.Text(), "## Plan (auto-approved, not user-reviewed):\n# Plan") || m.State().Active {
		t.Errorf("ExitPlanMode with a plan = %q, plan active %v", got.Output.Text(), m.State().Active)
	}
}
