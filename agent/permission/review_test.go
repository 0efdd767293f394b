package permission_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/agent/permission"
	"github.com/kimigo/kimigo/agent/plan"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/osenv"
)

// reenterPlan turns the rig's plan mode on again with a new plan.
func (r *rig) reenterPlan(t *testing.T, content string) {
	t.Helper()
	if err := r.plan.Enter(t.Context(), plan.EnterOptions{ID: "p"}); err != nil {
		t.Fatal(err)
	}
	if err := osenv.WriteFileAtomic(r.env, planPath, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A plan review and a goal start are asked about every time. Their
// requests are marked once-only; answered "for the session" or "always"
// anyway, they approve this call alone: no allow rule is written, no
// session pattern kept, the record says once. The next plan and the next
// goal are asked about again, also after the records are replayed.
func TestReviewsAreNeverRemembered(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(cfg, []byte("# kimigo\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := newRig(t, withPlan("# Plan 1"), withGoals(), withWriter(&fileRuleWriter{path: cfg}),
		withAnswers(answer(event.ApproveAlways), answer(event.ApproveSession), answer(event.ApproveAlways),
			answer(event.ApproveAlways), answer(event.ApproveOnce), answer(event.ApproveAlways)))
	for i, plan := range []string{"# Plan 1", "# Plan 2", "# Plan 3"} {
		if i > 0 {
			r.reenterPlan(t, plan)
		}
		a, err := r.call("ExitPlanMode", `{}`)
		if err != nil || a.SyntheticResult == nil || !strings.Contains(a.SyntheticResult.Output.Text(), "## Approved Plan:\n"+plan) {
			t.Fatalf("plan %d: %+v, %v; want the reviewed result", i+1, a.SyntheticResult, err)
		}
		if n := r.requests(); n != i+1 || !r.approver.last().OnceOnly || r.decidedBy() != "exit-plan-mode-review-ask" {
			t.Errorf("plan %d: %d requests, once-only %v, decided by %q", i+1, n, r.approver.last().OnceOnly, r.decidedBy())
		}
		if r.planActive() {
			t.Errorf("plan %d approved, plan mode still on", i+1)
		}
	}
	for i := range 2 {
		exec, err := r.resolve("CreateGoal", `{"objective":"work","replace":true}`)
		if err != nil {
			t.Fatal(err)
		}
		a, err := r.callExec("CreateGoal", `{"objective":"work","replace":true}`, exec)
		wantAllow(t, a, err)
		if n := r.requests(); n != 4+i || !r.approver.last().OnceOnly || r.decidedBy() != "goal-start-review-ask" {
			t.Errorf("goal %d: %d requests, once-only %v, decided by %q", i+1, n, r.approver.last().OnceOnly, r.decidedBy())
		}
	}
	if data, err := os.ReadFile(cfg); err != nil || string(data) != "# kimigo\n" {
		t.Errorf("config.toml = %q, %v; want it unchanged", data, err)
	}
	results := r.hooks.of(permission.HookPermissionResult)
	if len(results) != 5 {
		t.Errorf("%d PermissionResult hooks, want 5", len(results))
	}
	for _, h := range results { // the hooks hear the scope that applied
		if h.input["scope"] != string(permission.ApprovalOnce) {
			t.Errorf("PermissionResult for %v: scope %v, want once", h.input["toolName"], h.input["scope"])
		}
	}
	for _, rec := range r.log.of(permission.TypeApprovalResult) {
		if strings.Contains(rec, `"scope"`) || strings.Contains(rec, "sessionApprovalRule") {
			t.Errorf("record remembers a review: %s", rec)
		}
	}
	// An ordinary approval still asks, so the rig's approver really
	// answers "always" where it is allowed to.
	if got := r.judge("Bash", `{"command":"make"}`); got != asked {
		t.Errorf("Bash: %s", got)
	}
	if data, _ := os.ReadFile(cfg); !strings.Contains(string(data), `pattern = "Bash(make)"`) {
		t.Errorf("an always answer to Bash wrote no rule:\n%s", data)
	}
}

// Neither an allow rule nor a session approval of ExitPlanMode or
// CreateGoal (left by an older kimigo, or typed by hand) skips a review;
// a deny rule still refuses the call before anyone is asked.
func TestRulesDoNotSkipReviews(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts []rigOption
	}{
		{"allow rules", []rigOption{withRules(rule(permission.DecisionAllow, "ExitPlanMode"), rule(permission.DecisionAllow, "CreateGoal"))}},
		{"session approvals", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, append(tt.opts, withPlan("# Plan"), withGoals())...)
			if tt.opts == nil {
				for _, p := range []string{"ExitPlanMode", "CreateGoal"} {
					rec := permission.ApprovalResultRecord{ToolName: p, SessionApprovalRule: p,
						Result: permission.ApprovalResponse{Decision: permission.ApprovalApproved, Scope: permission.ApprovalSession}}
					if err := r.m.Apply(rec); err != nil {
						t.Fatal(err)
					}
				}
			}
			if a, err := r.call("ExitPlanMode", `{}`); err != nil || a.SyntheticResult == nil || r.decidedBy() != "exit-plan-mode-review-ask" {
				t.Errorf("ExitPlanMode: %+v, %v, decided by %q", a, err, r.decidedBy())
			}
			if got := r.judge("CreateGoal", `{"objective":"work"}`); got != asked || r.decidedBy() != "goal-start-review-ask" || r.requests() != 2 {
				t.Errorf("CreateGoal: %s by %q, %d requests", got, r.decidedBy(), r.requests())
			}
		})
	}
	r := newRig(t, withPlan("# Plan"), withRules(rule(permission.DecisionDeny, "ExitPlanMode")))
	a, err := r.call("ExitPlanMode", `{}`)
	wantBlock(t, a, err)
	if r.requests() != 0 || r.decidedBy() != "user-configured-deny" {
		t.Errorf("deny rule: %d requests, decided by %q", r.requests(), r.decidedBy())
	}
}

// A CreateGoal resolved while the mode was auto and authorized after it
// left auto (a mode switch earlier in the batch) is still reviewed: the
// review decides by the mode when it runs, and an allow rule does not
// skip it.
func TestGoalStartReviewedWhenTheModeLeftAutoAfterResolve(t *testing.T) {
	r := newRig(t, withGoals(), withRules(rule(permission.DecisionAllow, "CreateGoal")))
	if err := r.m.SetMode(t.Context(), permission.ModeAuto); err != nil {
		t.Fatal(err)
	}
	exec, err := r.resolve("CreateGoal", `{"objective":"work"}`)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.m.SetMode(t.Context(), permission.ModeManual); err != nil {
		t.Fatal(err)
	}
	if _, err := r.callExec("CreateGoal", `{"objective":"work"}`, exec); err != nil || r.decidedBy() != "goal-start-review-ask" || r.requests() != 1 {
		t.Errorf("decided by %q with %d requests, %v; want the goal-start review asked", r.decidedBy(), r.requests(), err)
	}
}
