package permission_test

import (
	"strings"
	"testing"

	"github.com/kimigo/kimigo/agent/permission"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
)

// guard is the outcome of a call the tool itself refuses in
// ResolveExecution, before the chain runs.
const guard outcome = "path guard"

// TestModeSituationMatrix is spec 04 §1.2: for each situation, the outcome
// and the deciding policy in manual, yolo and auto. One change from the
// spec's table: a Write outside the workspace asks in yolo (ERRATA 12).
func TestModeSituationMatrix(t *testing.T) {
	type cell struct {
		want outcome
		by   string
	}
	type situation struct {
		name  string
		tool  string
		args  string
		batch []llm.ToolCall // other calls of the response
		setup []rigOption
		plan  bool // plan mode on, the plan file holding a plan
		swarm bool
		cells [3]cell // manual, yolo, auto
	}
	const (
		p3  = "user-configured-deny"
		p6  = "auto-mode-approve"
		p13 = "sensitive-file-access-ask"
		p14 = "git-control-path-access-ask"
		pWB = "workspace-boundary-ask"
		p15 = "yolo-mode-approve"
		p17 = "default-tool-approve"
		p18 = "git-cwd-write-approve"
		p19 = "fallback-ask"
	)
	for _, s := range []situation{
		{name: "read inside", tool: "Read", args: `{"path":"/repo/a.go"}`,
			cells: [3]cell{{approved, p17}, {approved, p15}, {approved, p6}}},
		{name: "read outside", tool: "Read", args: `{"path":"/etc/hosts"}`,
			cells: [3]cell{{approved, p17}, {approved, p15}, {approved, p6}}},
		{name: "grep outside", tool: "Grep", args: `{"pattern":"x","path":"/etc"}`,
			cells: [3]cell{{approved, p17}, {approved, p15}, {approved, p6}}},
		{name: "read .env", tool: "Read", args: `{"path":".env"}`,
			cells: [3]cell{{guard, ""}, {guard, ""}, {guard, ""}}},
		{name: "write id_rsa", tool: "Write", args: `{"path":"/home/u/.ssh/id_rsa","content":"x"}`,
			cells: [3]cell{{guard, ""}, {guard, ""}, {guard, ""}}},
		{name: "grep sensitive path", tool: "Grep", args: `{"pattern":"x","path":"/repo/.env"}`,
			cells: [3]cell{{asked, p13}, {asked, p13}, {approved, p6}}},
		{name: "write inside git cwd", tool: "Write", args: `{"path":"src/a.go","content":"x"}`,
			cells: [3]cell{{approved, p18}, {approved, p15}, {approved, p6}}},
		{name: "write outside", tool: "Write", args: `{"path":"/elsewhere/a.go","content":"x"}`,
			cells: [3]cell{{asked, pWB}, {asked, pWB}, {approved, p6}}},
		{name: "write .git/config", tool: "Write", args: `{"path":".git/config","content":"x"}`,
			cells: [3]cell{{asked, p14}, {asked, p14}, {approved, p6}}},
		{name: "bash", tool: "Bash", args: `{"command":"rm -rf build"}`,
			cells: [3]cell{{asked, p19}, {approved, p15}, {approved, p6}}},
		{name: "ask user question", tool: "AskUserQuestion", args: `{}`,
			cells: [3]cell{{approved, p17}, {approved, p15}, {denied, "auto-mode-ask-user-question-deny"}}},
		{name: "exit plan mode with a plan", tool: "ExitPlanMode", args: `{}`, plan: true,
			cells: [3]cell{{result, "exit-plan-mode-review-ask"}, {result, "exit-plan-mode-review-ask"}, {approved, p6}}},
		{name: "create goal", tool: "CreateGoal", args: `{"objective":"work"}`,
			cells: [3]cell{{asked, "goal-start-review-ask"}, {asked, "goal-start-review-ask"}, {approved, p6}}},
		{name: "agent swarm alone, swarm off", tool: "AgentSwarm", args: `{}`,
			cells: [3]cell{{asked, p19}, {approved, p15}, {approved, p6}}},
		{name: "agent swarm alone, swarm on", tool: "AgentSwarm", args: `{}`, swarm: true,
			cells: [3]cell{{approved, "swarm-mode-agent-swarm-approve"}, {approved, p15}, {approved, p6}}},
		{name: "agent swarm with another call", tool: "AgentSwarm", args: `{}`,
			batch: []llm.ToolCall{{ID: "r", Name: "Read", Arguments: `{"path":"a"}`}},
			cells: [3]cell{{denied, "agent-swarm-exclusive-deny"}, {denied, "agent-swarm-exclusive-deny"}, {denied, "agent-swarm-exclusive-deny"}}},
		{name: "mcp tool", tool: "mcp__github__create_issue", args: `{}`,
			cells: [3]cell{{asked, p19}, {approved, p15}, {approved, p6}}},
		{name: "user tool", tool: "Custom", args: `{}`,
			cells: [3]cell{{asked, p19}, {approved, p15}, {approved, p6}}},
		{name: "plan active, write another file", tool: "Write", args: `{"path":"src/a.go","content":"x"}`, plan: true,
			cells: [3]cell{{denied, "plan-mode-guard-deny"}, {denied, "plan-mode-guard-deny"}, {denied, "plan-mode-guard-deny"}}},
		{name: "plan active, task stop", tool: "TaskStop", args: `{}`, plan: true,
			cells: [3]cell{{denied, "plan-mode-guard-deny"}, {denied, "plan-mode-guard-deny"}, {denied, "plan-mode-guard-deny"}}},
		{name: "plan active, write the plan file", tool: "Write", args: `{"path":"` + planPath + `","content":"x"}`, plan: true,
			cells: [3]cell{{approved, "plan-mode-tool-approve"}, {approved, "plan-mode-tool-approve"}, {approved, p6}}},
		{name: "deny rule", tool: "Bash", args: `{"command":"ls"}`, setup: []rigOption{withRules(rule(permission.DecisionDeny, "Bash"))},
			cells: [3]cell{{denied, p3}, {denied, p3}, {denied, p3}}},
	} {
		for i, mode := range []permission.Mode{permission.ModeManual, permission.ModeYolo, permission.ModeAuto} {
			want := s.cells[i]
			t.Run(s.name+"/"+string(mode), func(t *testing.T) {
				slots, _ := swarmSlots(t, s.swarm)
				modes := []rigOption{withSlots(slots), withGoals(), withPlanOff()}
				if s.plan {
					modes[2] = withPlan("# Plan")
				}
				r := newRig(t, append(append(s.setup, withMode(mode)), modes...)...)
				exec, err := r.resolve(s.tool, s.args)
				if err != nil {
					if want.want != guard || !strings.Contains(err.Error(), "sensitive-file pattern") {
						t.Fatalf("resolve: %v; want %s", err, want.want)
					}
					return
				}
				if want.want == guard {
					t.Fatal("the tool accepted a path its guard must refuse")
				}
				tc := llm.ToolCall{ID: "c1", Name: s.tool, Arguments: s.args}
				before := r.requests()
				a, err := r.m.Authorize(t.Context(), loop.ToolCtx{StepCtx: loop.StepCtx{TurnID: "0"}, ToolCall: tc,
					ToolCalls: append([]llm.ToolCall{tc}, s.batch...), Args: []byte(s.args), Execution: exec})
				got := classify(a, err, r.requests() > before && want.want != result)
				if got != want.want || r.decidedBy() != want.by {
					t.Errorf("got %s by %q; want %s by %q", got, r.decidedBy(), want.want, want.by)
				}
			})
		}
	}
}
