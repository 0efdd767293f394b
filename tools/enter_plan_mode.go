package tools

import (
	"context"
	_ "embed"
	"encoding/json"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
)

var (
	//go:embed enter_plan_mode.md
	enterPlanModeMD string
	//go:embed enter_plan_mode_result.md
	enterPlanModeResultMD string
)

// emptyObjectSchema is the schema of a tool that takes no arguments.
const emptyObjectSchema = `{"type":"object","properties":{},"additionalProperties":false}`

// EnterPlanMode is the EnterPlanMode tool (spec 05 §4.13, spec 04 §5.5).
type EnterPlanMode struct {
	plan PlanMode
	def  llm.Tool
}

// NewEnterPlanMode returns the EnterPlanMode tool over p.
func NewEnterPlanMode(p PlanMode) *EnterPlanMode {
	return &EnterPlanMode{plan: p, def: definition(NameEnterPlanMode, enterPlanModeMD, nil, emptyObjectSchema)}
}

// Definition implements loop.ExecutableTool.
func (t *EnterPlanMode) Definition() llm.Tool { return t.def }

// ResolveExecution implements loop.ExecutableTool. The call runs alone:
// it changes what every later call of the batch is allowed to do.
func (t *EnterPlanMode) ResolveExecution(raw json.RawMessage) (loop.Execution, *loop.ToolResult, error) {
	var a struct{}
	if r := decodeArgs(NameEnterPlanMode, raw, &a); r != nil {
		return loop.Execution{}, r, nil
	}
	return loop.Execution{
		Description:  "Requesting to enter plan mode",
		ApprovalRule: NameEnterPlanMode,
		Execute: func(ctx context.Context, _ loop.ExecCtx) (loop.ToolResult, error) {
			if active, _ := t.plan.PlanStatus(); active {
				return loop.ErrorResult("Plan mode is already active. Use ExitPlanMode when the plan is ready."), nil
			}
			path, err := t.plan.EnterPlan(ctx)
			if err != nil {
				return loop.ErrorResult("Failed to enter plan mode: " + err.Error()), nil
			}
			out := renderDescription(NameEnterPlanMode+" result", enterPlanModeResultMD, struct{ Path string }{path})
			return loop.ToolResult{Output: loop.TextOutput(out), Brief: "Entered plan mode"}, nil
		},
	}, nil, nil
}
