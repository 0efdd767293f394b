package permission_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent/permission"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/tools"
	"github.com/kimigo/kimigo/workspace"
)

// TestChainOrder pins the chain of spec 04 §2.3, with the workspace
// boundary ask of ERRATA 12 between 14 and 15, and issue 16's opaque-Bash
// and sandbox-unavailable asks right below the deny rules, the plan and
// goal-start reviews above the session approvals and allow rules (no rule
// stands in for a review), and the manual-mode FetchURL host ask above the
// default-approve list.
func TestChainOrder(t *testing.T) {
	want := []string{
		"pre-tool-call-hook", "agent-swarm-exclusive-deny", "auto-mode-ask-user-question-deny",
		"plan-mode-guard-deny", "user-configured-deny", "unresolved-path-deny", "opaque-bash-ask", "sandbox-unavailable-ask", "auto-mode-approve",
		"exit-plan-mode-review-ask", "goal-start-review-ask", "session-approval-history",
		"user-configured-ask", "user-configured-allow",
		"plan-mode-tool-approve", "sensitive-file-access-ask", "git-control-path-access-ask",
		"executed-file-write-ask", "workspace-boundary-ask", "yolo-mode-approve", "swarm-mode-agent-swarm-approve",
		"fetch-url-host-ask", "default-tool-approve", "git-cwd-write-approve", "fallback-ask",
	}
	if d := cmp.Diff(want, newRig(t).m.PolicyNames()); d != "" {
		t.Errorf("chain order (-want +got):\n%s", d)
	}
	side := newRig(t, withSideChannel()).m.PolicyNames()
	if d := cmp.Diff(append([]string{"deny-all"}, want...), side); d != "" {
		t.Errorf("side-channel chain (-want +got):\n%s", d)
	}
}

func TestScenario01DenyAllFirst(t *testing.T) {
	r := newRig(t, withSideChannel())
	a, err := r.call("Read", `{"path":"a.go"}`)
	wantBlock(t, a, err, "Tool calls are disabled for side questions. Answer with text only.")
	if n := len(r.hooks.of(permission.HookPreToolUse)); n != 0 {
		t.Errorf("PreToolUse ran %d times for a side question", n)
	}
}

func TestScenario02PreToolUseBeatsAuto(t *testing.T) {
	r := newRig(t, withMode(permission.ModeAuto), withHookBlock("nope"))
	a, err := r.call("Bash", `{"command":"ls"}`)
	wantBlock(t, a, err, "nope")
	if r.requests() != 0 || r.decidedBy() != "pre-tool-call-hook" {
		t.Errorf("requests = %d, decided by %q", r.requests(), r.decidedBy())
	}
}

func TestScenario03PreToolUseEmptyReason(t *testing.T) {
	r := newRig(t, withHookBlock(""))
	a, err := r.call("Bash", `{"command":"ls"}`)
	wantBlock(t, a, err)
	if a.Reason != "Blocked by PreToolUse hook" {
		t.Errorf("reason = %q", a.Reason)
	}
}

func TestScenario04PreToolUseInputShape(t *testing.T) {
	r := newRig(t)
	r.call("Custom", `[1,2]`)
	ev := r.hooks.of(permission.HookPreToolUse)
	if len(ev) != 1 {
		t.Fatalf("PreToolUse ran %d times", len(ev))
	}
	want := map[string]any{"toolName": "Custom", "toolInput": map[string]any{}, "toolCallId": "c1"}
	if d := cmp.Diff(want, ev[0].input); d != "" || ev[0].matcher != "Custom" {
		t.Errorf("matcher %q, input (-want +got):\n%s", ev[0].matcher, d)
	}
}

func TestScenario05SwarmExclusivityMixed(t *testing.T) {
	slots, _ := swarmSlots(t, false)
	r := newRig(t, withMode(permission.ModeAuto), withSlots(slots))
	got := r.callBatch(llm.ToolCall{ID: "s", Name: "AgentSwarm", Arguments: `{}`}, llm.ToolCall{ID: "r", Name: "Read", Arguments: `{"path":"a.go"}`})
	for i, a := range got {
		wantBlock(t, a, nil, "only tool call")
		if i == 1 && r.decidedBy() != "agent-swarm-exclusive-deny" {
			t.Errorf("decided by %q", r.decidedBy())
		}
	}
}

func TestScenario06SwarmExclusivityMultiple(t *testing.T) {
	slots, _ := swarmSlots(t, false)
	r := newRig(t, withSlots(slots))
	two := r.callBatch(llm.ToolCall{ID: "a", Name: "AgentSwarm", Arguments: `{}`}, llm.ToolCall{ID: "b", Name: "AgentSwarm", Arguments: `{}`})
	for _, a := range two {
		wantBlock(t, a, nil, "one at a time")
		if strings.Contains(a.Reason, "combined with other tools") {
			t.Errorf("two swarms alone got the mixed-batch sentence: %q", a.Reason)
		}
	}
	three := r.callBatch(llm.ToolCall{ID: "a", Name: "AgentSwarm", Arguments: `{}`}, llm.ToolCall{ID: "b", Name: "AgentSwarm", Arguments: `{}`},
		llm.ToolCall{ID: "c", Name: "Read", Arguments: `{"path":"a.go"}`})
	for _, a := range three {
		wantBlock(t, a, nil, "one at a time", "combined with other tools")
	}
}

func TestScenario07AskUserQuestionInAuto(t *testing.T) {
	r := newRig(t, withMode(permission.ModeAuto))
	a, err := r.call("AskUserQuestion", `{}`)
	wantBlock(t, a, err, "Make the decision yourself")
	if r.decidedBy() != "auto-mode-ask-user-question-deny" {
		t.Errorf("decided by %q", r.decidedBy())
	}
	y := newRig(t, withMode(permission.ModeYolo))
	a, err = y.call("AskUserQuestion", `{}`)
	wantAllow(t, a, err)
}

func TestScenario08PlanGuardBeatsAutoAndYolo(t *testing.T) {
	for _, mode := range []permission.Mode{permission.ModeAuto, permission.ModeYolo} {
		r := newRig(t, withMode(mode), withPlanNoFile())
		a, err := r.call("Write", `{"path":"/repo/src/a.ts","content":"x"}`)
		wantBlock(t, a, err, "Plan mode is active", planPath)
		if r.decidedBy() != "plan-mode-guard-deny" {
			t.Errorf("%s: decided by %q", mode, r.decidedBy())
		}
	}
}

func TestScenario09PlanGuardOtherTools(t *testing.T) {
	for _, mode := range permission.Modes() {
		r := newRig(t, withMode(mode), withPlanNoFile())
		for _, name := range []string{"TaskStop", "CronCreate", "CronDelete"} {
			if got := r.judge(name, `{}`); got != denied || r.decidedBy() != "plan-mode-guard-deny" {
				t.Errorf("%s %s = %s by %q; want deny by the plan guard", mode, name, got, r.decidedBy())
			}
		}
		if got := r.judge("CronList", `{}`); got != approved {
			t.Errorf("%s CronList = %s; want approve", mode, got)
		}
		r.judge("Bash", `{"command":"ls"}`)
		if r.decidedBy() == "plan-mode-guard-deny" {
			t.Errorf("%s: the plan guard decided about Bash", mode)
		}
	}
}

func TestScenario10DenyRuleBeatsModes(t *testing.T) {
	for _, mode := range []permission.Mode{permission.ModeYolo, permission.ModeAuto} {
		r := newRig(t, withMode(mode), withRules(ruleWithReason(permission.DecisionDeny, "Bash", "blocked")))
		a, err := r.call("Bash", `{"command":"ls"}`)
		wantBlock(t, a, err, `Tool "Bash" was denied by permission rule. Reason: blocked`)
	}
}

func TestScenario11DenyRuleBeatsPlanFileApproval(t *testing.T) {
	r := newRig(t, withRules(rule(permission.DecisionDeny, "Write")), withPlan("# Plan"))
	a, err := r.call("Write", `{"path":"`+planPath+`","content":"x"}`)
	wantBlock(t, a, err, "denied by permission rule")
	if r.decidedBy() != "user-configured-deny" {
		t.Errorf("decided by %q", r.decidedBy())
	}
	if got, _ := r.plan.ReadPlan(); got != "# Plan" {
		t.Errorf("plan file = %q; want it unchanged", got)
	}
}

func TestScenario12AutoApprovesOutsideWrites(t *testing.T) {
	r := newRig(t, withMode(permission.ModeAuto))
	a, err := r.call("Write", `{"path":"/elsewhere/notes.md","content":"x"}`)
	wantAllow(t, a, err)
	if r.decidedBy() != "auto-mode-approve" {
		t.Errorf("decided by %q", r.decidedBy())
	}
}

func TestScenario13SessionApprovalBeatsAskRule(t *testing.T) {
	r := newRig(t, withRules(rule(permission.DecisionAsk, "Bash")), withAnswers(answer(event.ApproveSession)))
	if got := r.judge("Bash", `{"command":"printf first"}`); got != asked {
		t.Fatalf("first call: %s", got)
	}
	if got := r.judge("Bash", `{"command":"printf first"}`); got != approved || r.decidedBy() != "session-approval-history" {
		t.Errorf("second call: %s by %q; want approve by session-approval-history", got, r.decidedBy())
	}
}

func TestScenario14SessionApprovalLosesToDeny(t *testing.T) {
	r := newRig(t, withRules(rule(permission.DecisionDeny, "Bash")))
	if err := r.m.Apply(sessionApproval("Bash(printf first)")); err != nil {
		t.Fatal(err)
	}
	if got := r.judge("Bash", `{"command":"printf first"}`); got != denied {
		t.Errorf("got %s; want deny", got)
	}
}

func sessionApproval(pattern string) permission.ApprovalResultRecord {
	return permission.ApprovalResultRecord{ToolName: "Bash", ToolCallID: "old", Action: "Running",
		SessionApprovalRule: pattern, Result: answer(event.ApproveSession)}
}

func TestScenario15AskBeatsAllow(t *testing.T) {
	allow := rule(permission.DecisionAllow, "Bash")
	allow.Scope = permission.ScopeProject
	r := newRig(t, withRules(allow, rule(permission.DecisionAsk, "Bash")))
	if got := r.judge("Bash", `{"command":"ls"}`); got != asked || r.decidedBy() != "user-configured-ask" {
		t.Errorf("got %s by %q; want ask by user-configured-ask", got, r.decidedBy())
	}
}

func TestScenario16NonMatchingAskFallsThrough(t *testing.T) {
	r := newRig(t, withRules(rule(permission.DecisionAsk, "Bash(git *)"), rule(permission.DecisionAllow, "Bash(npm *)")))
	if got := r.judge("Bash", `{"command":"npm test"}`); got != approved || r.decidedBy() != "user-configured-allow" {
		t.Errorf("got %s by %q; want approve by user-configured-allow", got, r.decidedBy())
	}
}

func TestScenario17AllowWithNonMatchingArgument(t *testing.T) {
	r := newRig(t, withRules(rule(permission.DecisionAllow, "Bash(git *)")))
	if got := r.judge("Bash", `{"command":"npm test"}`); got != asked || r.decidedBy() != "fallback-ask" {
		t.Errorf("got %s by %q; want ask by fallback-ask", got, r.decidedBy())
	}
}

func TestScenario18PlanReviewInYolo(t *testing.T) {
	r := newRig(t, withMode(permission.ModeYolo), withPlan("# Plan"),
		withAnswers(permission.ApprovalResponse{Decision: permission.ApprovalApproved, SelectedLabel: "B"}))
	a, err := r.call("ExitPlanMode", `{"options":[{"label":"A"},{"label":"B"}]}`)
	if err != nil || a.SyntheticResult == nil {
		t.Fatalf("got %+v, %v; want a synthetic result (the tool does not run)", a, err)
	}
	d, ok := r.approver.last().Display.(*tools.PlanReviewDisplay)
	if !ok || len(d.Options) != 2 || d.Plan != "# Plan" || d.Path != planPath {
		t.Errorf("request display = %#v", r.approver.last().Display)
	}
	out := a.SyntheticResult.Output.String()
	for _, f := range []string{"Selected approach: B", "## Approved Plan:", "# Plan"} {
		if !strings.Contains(out, f) {
			t.Errorf("result %q lacks %q", out, f)
		}
	}
	if r.planActive() {
		t.Error("plan mode is still active after approval")
	}
}

func TestScenario19PlanReviewOutcomes(t *testing.T) {
	for _, tt := range []struct {
		name       string
		resp       permission.ApprovalResponse
		isErr      bool
		stopTurn   bool
		stillPlan  bool
		contains   string
		notContain string
	}{
		{"reject", permission.ApprovalResponse{Decision: permission.ApprovalRejected}, true, true, true, "remains active", ""},
		{"revise", permission.ApprovalResponse{Decision: permission.ApprovalRejected, SelectedLabel: "Revise", Feedback: "Add verification."}, false, false, true, "Add verification.", ""},
		{"revise without feedback", permission.ApprovalResponse{Decision: permission.ApprovalRejected, SelectedLabel: "Revise"}, false, false, true, "User requested revisions", ""},
		{"cancel", permission.ApprovalResponse{Decision: permission.ApprovalCancelled}, false, false, true, "dismissed", ""},
		{"reject and exit", permission.ApprovalResponse{Decision: permission.ApprovalRejected, SelectedLabel: "Reject and Exit"}, true, true, false, "deactivated", ""},
		{"unknown label", permission.ApprovalResponse{Decision: permission.ApprovalApproved, SelectedLabel: "C"}, false, false, false, "Approved Plan", "Selected approach"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, withPlan("# Plan"), withAnswers(tt.resp))
			a, err := r.call("ExitPlanMode", `{"options":[{"label":"A"},{"label":"B"}]}`)
			if err != nil || a.SyntheticResult == nil {
				t.Fatalf("got %+v, %v", a, err)
			}
			res := a.SyntheticResult
			out := res.Output.String()
			if res.IsError != tt.isErr || res.StopTurn != tt.stopTurn || r.planActive() != tt.stillPlan ||
				!strings.Contains(out, tt.contains) || (tt.notContain != "" && strings.Contains(out, tt.notContain)) {
				t.Errorf("result %q error=%v stopTurn=%v, plan active=%v", out, res.IsError, res.StopTurn, r.planActive())
			}
		})
	}
}

func TestScenario20PlanExitInAuto(t *testing.T) {
	r := newRig(t, withMode(permission.ModeAuto), withPlan("# Plan"))
	exec, err := r.resolve("ExitPlanMode", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	a, err := r.callExec("ExitPlanMode", `{}`, exec)
	wantAllow(t, a, err)
	if r.requests() != 0 || r.decidedBy() != "auto-mode-approve" {
		t.Errorf("requests %d, decided by %q", r.requests(), r.decidedBy())
	}
	res, err := exec.Execute(t.Context(), loop.ExecCtx{})
	out := res.Output.String()
	if err != nil || res.IsError || !strings.Contains(out, "auto-approved") || !strings.Contains(out, "not user-reviewed") {
		t.Errorf("tool result %q (error %v)", out, err)
	}
	if r.planActive() {
		t.Error("plan mode is still active")
	}
}

func TestScenario21BlankPlan(t *testing.T) {
	r := newRig(t, withPlan("  \n"))
	exec, err := r.resolve("ExitPlanMode", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	a, err := r.callExec("ExitPlanMode", `{}`, exec)
	wantAllow(t, a, err)
	if r.requests() != 0 || r.decidedBy() != "plan-mode-tool-approve" {
		t.Errorf("requests %d, decided by %q", r.requests(), r.decidedBy())
	}
	res, err := exec.Execute(t.Context(), loop.ExecCtx{})
	if out := res.Output.String(); err != nil || !res.IsError || !strings.Contains(out, "Write your plan to "+planPath+" first") {
		t.Errorf("tool result %q (error %v)", out, err)
	}
	if !r.planActive() {
		t.Error("plan mode ended")
	}
}

func TestScenario22GoalStartSwitchesMode(t *testing.T) {
	r := newRig(t, withGoals(), withAnswers(permission.ApprovalResponse{Decision: permission.ApprovalApproved, SelectedLabel: "auto"}))
	exec, err := r.resolve("CreateGoal", `{"objective":"work"}`)
	if err != nil {
		t.Fatal(err)
	}
	a, err := r.callExec("CreateGoal", `{"objective":"work"}`, exec)
	wantAllow(t, a, err)
	if d, ok := r.approver.last().Display.(*tools.GoalStartDisplay); !ok || d.Objective != "work" || d.Mode != "manual" {
		t.Errorf("request display = %#v", r.approver.last().Display)
	}
	if got := r.log.of(permission.TypeSetMode); len(got) != 1 || got[0] != `{"mode":"auto"}` || r.m.Mode() != permission.ModeAuto {
		t.Errorf("set_mode records %v, mode %s", got, r.m.Mode())
	}
	if res, err := exec.Execute(t.Context(), loop.ExecCtx{}); err != nil || res.IsError || r.goals.Get() == nil {
		t.Errorf("CreateGoal after the switch: %q, %v; goal %v", res.Output.String(), err, r.goals.Get())
	}
}

func TestScenario23GoalStartDeclined(t *testing.T) {
	r := newRig(t, withGoals(), withAnswers(permission.ApprovalResponse{Decision: permission.ApprovalCancelled, SelectedLabel: "cancel"}))
	a, err := r.call("CreateGoal", `{"objective":"work"}`)
	wantBlock(t, a, err, "approval request was cancelled")
	if r.m.Mode() != permission.ModeManual || r.goals.Get() != nil {
		t.Errorf("mode = %s, goal %v", r.m.Mode(), r.goals.Get())
	}
}

func TestScenario24EnterPlanMode(t *testing.T) {
	r := newRig(t, withPlanOff())
	exec, err := r.resolve("EnterPlanMode", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	a, err := r.callExec("EnterPlanMode", `{}`, exec)
	wantAllow(t, a, err)
	if r.requests() != 0 || r.decidedBy() != "plan-mode-tool-approve" {
		t.Errorf("requests %d, decided by %q", r.requests(), r.decidedBy())
	}
	if res, err := exec.Execute(t.Context(), loop.ExecCtx{}); err != nil || res.IsError || !r.planActive() {
		t.Errorf("EnterPlanMode: %q, %v; plan active %v", res.Output.String(), err, r.planActive())
	}
}

func TestScenario25PlanFileWriteAskRule(t *testing.T) {
	args := `{"path":"` + planPath + `","content":"# Plan"}`
	r := newRig(t, withPlanNoFile())
	if got := r.judge("Write", args); got != approved || r.decidedBy() != "plan-mode-tool-approve" {
		t.Errorf("without rules: %s by %q", got, r.decidedBy())
	}
	r = newRig(t, withPlanNoFile(), withRules(rule(permission.DecisionAsk, "Write")))
	if got := r.judge("Write", args); got != asked {
		t.Errorf("with ask Write: %s", got)
	}
}

func TestScenario26SensitiveSearchPath(t *testing.T) {
	args := `{"pattern":"KEY","path":"/repo/.env"}`
	for _, tt := range []struct {
		mode permission.Mode
		want outcome
		by   string
	}{
		{permission.ModeManual, asked, "sensitive-file-access-ask"},
		{permission.ModeYolo, asked, "sensitive-file-access-ask"},
		{permission.ModeAuto, approved, "auto-mode-approve"},
	} {
		r := newRig(t, withMode(tt.mode))
		if got := r.judge("Grep", args); got != tt.want || r.decidedBy() != tt.by {
			t.Errorf("%s: %s by %q; want %s by %s", tt.mode, got, r.decidedBy(), tt.want, tt.by)
		}
	}
}

func TestScenario27SensitiveReadRefusedByTool(t *testing.T) {
	for _, mode := range permission.Modes() {
		r := newRig(t, withMode(mode))
		if _, err := r.resolve("Read", `{"path":".env"}`); err == nil || !strings.Contains(err.Error(), "sensitive-file pattern") {
			t.Errorf("%s: resolving Read .env: %v", mode, err)
		}
		if r.requests() != 0 {
			t.Errorf("%s: a request was sent", mode)
		}
		if got := r.judge("Read", `{"path":".env.example"}`); got != approved {
			t.Errorf("%s: Read .env.example = %s", mode, got)
		}
	}
}

func TestScenario28SensitivePredicate(t *testing.T) {
	for p, want := range map[string]bool{
		".env": true, "/app/.Env.Local": true, "id_rsa": true, "/home/u/.ssh/ID_ED25519.OLD": true,
		"credentials-prod": true, "/home/u/.aws/credentials": true,
		"id_rsa.pub": false, "credentials.json": false, ".envrc": false, ".env_example": false,
		".ENV.TEMPLATE": false, "id_rsafoo": false,
	} {
		if got := workspace.IsSensitive(p); got != want {
			t.Errorf("IsSensitive(%q) = %v; want %v", p, got, want)
		}
	}
}

func TestScenario29GitControlPaths(t *testing.T) {
	for _, mode := range []permission.Mode{permission.ModeManual, permission.ModeYolo} {
		r := newRig(t, withMode(mode))
		for _, p := range []string{".git/config", ".GIT/config"} {
			if got := r.judge("Write", `{"path":"`+p+`","content":"x"}`); got != asked || r.decidedBy() != "git-control-path-access-ask" {
				t.Errorf("%s: Write %s = %s by %q", mode, p, got, r.decidedBy())
			}
		}
	}
	r := newRig(t)
	if got := r.judge("Read", `{"path":"/repo/.git"}`); got != asked {
		t.Errorf("Read /repo/.git = %s", got)
	}
	if got := r.judge("Read", `{"path":"/repo/src/a.ts"}`); got != approved {
		t.Errorf("Read /repo/src/a.ts = %s", got)
	}
	linked := newRig(t, withoutGit(), withFile("/repo/.git", "gitdir: .gitdir\n"))
	if got := linked.judge("Write", `{"path":"/repo/.gitdir/config","content":"x"}`); got != asked || linked.decidedBy() != "git-control-path-access-ask" {
		t.Errorf("Write into the linked gitdir = %s by %q", got, linked.decidedBy())
	}
}

func TestScenario30YoloApprovesOrdinaryCalls(t *testing.T) {
	r := newRig(t, withMode(permission.ModeYolo))
	if got := r.judge("Bash", `{"command":"rm x"}`); got != approved {
		t.Errorf("Bash rm x = %s", got)
	}
	// ERRATA 12: in yolo a write outside the workspace asks.
	if got := r.judge("Write", `{"path":"/elsewhere/x","content":"x"}`); got != asked || r.decidedBy() != "workspace-boundary-ask" {
		t.Errorf("Write /elsewhere/x = %s by %q; want ask by workspace-boundary-ask", got, r.decidedBy())
	}
	if p := r.m.SessionPatterns(); len(p) != 0 {
		t.Errorf("session patterns %v", p)
	}
}

func TestScenario31SwarmModeApprove(t *testing.T) {
	slots, mode := swarmSlots(t, true)
	r := newRig(t, withSlots(slots))
	if got := r.judge("AgentSwarm", `{}`); got != approved || r.decidedBy() != "swarm-mode-agent-swarm-approve" {
		t.Errorf("swarm on: %s by %q", got, r.decidedBy())
	}
	if err := mode.Exit(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := r.judge("AgentSwarm", `{}`); got != asked {
		t.Errorf("swarm off: %s", got)
	}
}

func TestScenario32DefaultApproveList(t *testing.T) {
	r := newRig(t)
	for _, c := range [][2]string{
		{"Read", `{"path":"/etc/hosts"}`}, {"Glob", `{"pattern":"*.go"}`}, {"WebSearch", `{}`}, {"Agent", `{}`},
		{"TodoList", `{}`}, {"GetGoal", `{}`}, {"select_tools", `{}`},
	} {
		if got := r.judge(c[0], c[1]); got != approved {
			t.Errorf("%s = %s; want approve", c[0], got)
		}
	}
	if got := r.judge("Bash", `{"command":"ls"}`); got != asked {
		t.Errorf("Bash = %s", got)
	}
	if got := r.judge("Custom", `{}`); got != asked {
		t.Errorf("custom tool = %s", got)
	}
	nogit := newRig(t, withoutGit())
	if got := nogit.judge("Write", `{"path":"/repo/a.ts","content":"x"}`); got != asked {
		t.Errorf("Write in a non-git cwd = %s", got)
	}
}

func TestScenario33GitCwdWriteApprove(t *testing.T) {
	r := newRig(t, withAddDir("/extra"), withDir("/extra-evil"))
	for _, c := range [][2]string{
		{"Write", `{"path":"src/a.ts","content":"x"}`},
		{"Edit", `{"path":"/repo/src/a.ts","old_string":"a","new_string":"b"}`},
		{"Write", `{"path":"/extra/a.ts","content":"x"}`},
	} {
		if got := r.judge(c[0], c[1]); got != approved || r.decidedBy() != "git-cwd-write-approve" {
			t.Errorf("%s %s = %s by %q", c[0], c[1], got, r.decidedBy())
		}
	}
	for _, p := range []string{"/elsewhere/x.ts", "/extra-evil/a.ts"} {
		if got := r.judge("Write", `{"path":"`+p+`","content":"x"}`); got != asked {
			t.Errorf("Write %s = %s; want ask", p, got)
		}
	}
	if got := newRig(t, withoutGit()).judge("Write", `{"path":"src/a.ts","content":"x"}`); got != asked {
		t.Errorf("no .git anywhere: %s", got)
	}
	deep := newRig(t, withoutGit(), withCwd("/a/b/c"), withDir("/a/.git"))
	if got := deep.judge("Write", `{"path":"/a/x.ts","content":"x"}`); got != asked {
		t.Errorf("write above the work dir: %s", got)
	}
	if got := newRig(t, withWin32()).judge("Write", `{"path":"/repo/a.ts","content":"x"}`); got != asked {
		t.Errorf("win32 path class: %s", got)
	}
}

func TestScenario34Fallback(t *testing.T) {
	r := newRig(t)
	if got := r.judge("mcp__github__create_issue", `{}`); got != asked || r.decidedBy() != "fallback-ask" {
		t.Errorf("got %s by %q", got, r.decidedBy())
	}
}
