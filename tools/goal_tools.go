package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
)

var (
	//go:embed create_goal.md
	createGoalMD string
	//go:embed get_goal.md
	getGoalMD string
	//go:embed set_goal_budget.md
	setGoalBudgetMD string
	//go:embed update_goal.md
	updateGoalMD string
	//go:embed update_goal_complete.md
	updateGoalCompleteMD string
	//go:embed update_goal_blocked.md
	updateGoalBlockedMD string
)

// goalTools are the four goal tools over g, in table order.
func goalTools(g Goals) []loop.ExecutableTool {
	return []loop.ExecutableTool{NewCreateGoal(g), NewGetGoal(g), NewSetGoalBudget(g), NewUpdateGoal(g)}
}

// goalJSON is the output of the tools that show a goal: {"goal": …}
// pretty-printed with two spaces, without the goal's id.
func goalJSON(s *GoalSnapshot) string {
	var v struct {
		Goal *GoalSnapshot `json:"goal"`
	}
	if s != nil {
		c := *s
		c.GoalID = ""
		v.Goal = &c
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil { // a snapshot always encodes
		return `{"goal": null}`
	}
	return string(b)
}

// CreateGoal is the CreateGoal tool (spec 04 §6.10).
type CreateGoal struct {
	goals Goals
	def   llm.Tool
}

// NewCreateGoal returns the CreateGoal tool over g.
func NewCreateGoal(g Goals) *CreateGoal {
	return &CreateGoal{goals: g, def: definition(NameCreateGoal, createGoalMD, nil, `{
  "type": "object",
  "properties": {
    "objective": {"type": "string", "minLength": 1, "description": "What the goal is, in the user's terms."},
    "completionCriterion": {"type": "string", "description": "How to tell that the goal is done."},
    "replace": {"type": "boolean", "description": "Replace the current goal instead of failing when one exists."}
  },
  "required": ["objective"],
  "additionalProperties": false
}`)}
}

// Definition implements loop.ExecutableTool.
func (t *CreateGoal) Definition() llm.Tool { return t.def }

// ResolveExecution implements loop.ExecutableTool. Outside auto mode the
// display asks the user how the goal should run (policy 11).
func (t *CreateGoal) ResolveExecution(raw json.RawMessage) (loop.Execution, *loop.ToolResult, error) {
	var a struct {
		Objective           string `json:"objective"`
		CompletionCriterion string `json:"completionCriterion"`
		Replace             bool   `json:"replace"`
	}
	if r := decodeArgs(NameCreateGoal, raw, &a); r != nil {
		return loop.Execution{}, r, nil
	}
	exec := loop.Execution{
		Description:  "Creating a goal",
		ApprovalRule: NameCreateGoal,
		Execute: func(ctx context.Context, _ loop.ExecCtx) (loop.ToolResult, error) {
			snap, err := t.goals.CreateGoal(ctx, GoalInput{Objective: a.Objective,
				CompletionCriterion: a.CompletionCriterion, Replace: a.Replace})
			if err != nil {
				return loop.ErrorResult(fmt.Sprintf("Tool %q failed: %s", NameCreateGoal, err.Error())), nil
			}
			return loop.ToolResult{Output: loop.TextOutput(goalJSON(&snap)), Brief: "Goal set"}, nil
		},
	}
	// Always shown: the goal-start review decides by the mode when it
	// runs, which a call earlier in the batch may have changed.
	exec.Display = &GoalStartDisplay{Objective: a.Objective, CompletionCriterion: a.CompletionCriterion, Mode: t.goals.PermissionMode()}
	return exec, nil, nil
}

// GetGoal is the GetGoal tool.
type GetGoal struct {
	goals Goals
	def   llm.Tool
}

// NewGetGoal returns the GetGoal tool over g.
func NewGetGoal(g Goals) *GetGoal {
	return &GetGoal{goals: g, def: definition(NameGetGoal, getGoalMD, nil, emptyObjectSchema)}
}

// Definition implements loop.ExecutableTool.
func (t *GetGoal) Definition() llm.Tool { return t.def }

// ResolveExecution implements loop.ExecutableTool.
func (t *GetGoal) ResolveExecution(raw json.RawMessage) (loop.Execution, *loop.ToolResult, error) {
	var a struct{}
	if r := decodeArgs(NameGetGoal, raw, &a); r != nil {
		return loop.Execution{}, r, nil
	}
	return loop.Execution{
		Accesses:     loop.None(),
		Description:  "Reading the goal",
		ApprovalRule: NameGetGoal,
		Execute: func(context.Context, loop.ExecCtx) (loop.ToolResult, error) {
			return loop.TextResult(goalJSON(t.goals.CurrentGoal())), nil
		},
	}, nil, nil
}

// Budget units of SetGoalBudget.
const (
	unitTurns        = "turns"
	unitTokens       = "tokens"
	unitMilliseconds = "milliseconds"
	unitSeconds      = "seconds"
	unitMinutes      = "minutes"
	unitHours        = "hours"
)

// goalBudgetMs bounds a time budget: a second to a day.
const (
	minGoalBudgetMs = 1_000
	maxGoalBudgetMs = 86_400_000
)

// msPerUnit converts the time units to milliseconds.
var msPerUnit = map[string]float64{unitMilliseconds: 1, unitSeconds: 1e3, unitMinutes: 60e3, unitHours: 3600e3}

// GoalBudgetRequest is one budget in the model's or the user's terms.
type GoalBudgetRequest struct {
	Value float64
	Unit  string
}

// Limits normalizes the request (spec 04 §6.10): turns and tokens round
// to a whole number, at least 1; a time becomes milliseconds and must lie
// between a second and a day. ok is false for a time outside that range.
// label is how the budget is worded ("2 turns", "1.5 hours").
func (r GoalBudgetRequest) Limits() (limits GoalBudgetLimits, label string, ok bool) {
	switch r.Unit {
	case unitTurns, unitTokens:
		n := max(1, int(math.Round(r.Value)))
		if r.Unit == unitTurns {
			limits.TurnBudget = &n
		} else {
			limits.TokenBudget = &n
		}
		return limits, unitLabel(float64(n), r.Unit), true
	}
	label = unitLabel(r.Value, r.Unit)
	per, known := msPerUnit[r.Unit]
	if !known {
		return limits, label, false
	}
	ms := int64(math.Round(r.Value * per))
	if ms < minGoalBudgetMs || ms > maxGoalBudgetMs {
		return limits, label, false
	}
	limits.WallClockBudgetMs = &ms
	return limits, label, true
}

// unitLabel is "<v> <unit>" with the unit singular when v is exactly 1.
func unitLabel(v float64, unit string) string {
	if v == 1 {
		unit = strings.TrimSuffix(unit, "s")
	}
	return strconv.FormatFloat(v, 'f', -1, 64) + " " + unit
}

// SetGoalBudget is the SetGoalBudget tool.
type SetGoalBudget struct {
	goals Goals
	def   llm.Tool
}

// NewSetGoalBudget returns the SetGoalBudget tool over g.
func NewSetGoalBudget(g Goals) *SetGoalBudget {
	return &SetGoalBudget{goals: g, def: definition(NameSetGoalBudget, setGoalBudgetMD, nil, `{
  "type": "object",
  "properties": {
    "value": {"type": "number", "exclusiveMinimum": 0, "description": "How much: a count of turns or tokens, or an amount of time."},
    "unit": {"type": "string", "enum": ["turns", "tokens", "milliseconds", "seconds", "minutes", "hours"]}
  },
  "required": ["value", "unit"],
  "additionalProperties": false
}`)}
}

// Definition implements loop.ExecutableTool.
func (t *SetGoalBudget) Definition() llm.Tool { return t.def }

// ResolveExecution implements loop.ExecutableTool: a budget the goal has
// already used up stops the batch after this call.
func (t *SetGoalBudget) ResolveExecution(raw json.RawMessage) (loop.Execution, *loop.ToolResult, error) {
	var a struct {
		Value float64 `json:"value"`
		Unit  string  `json:"unit"`
	}
	if r := decodeArgs(NameSetGoalBudget, raw, &a); r != nil {
		return loop.Execution{}, r, nil
	}
	req := GoalBudgetRequest{Value: a.Value, Unit: a.Unit}
	limits, label, valid := req.Limits()
	exec := loop.Execution{
		Accesses:     loop.None(),
		Description:  "Setting the goal budget to " + label,
		ApprovalRule: NameSetGoalBudget,
	}
	if g := t.goals.CurrentGoal(); g != nil && valid {
		merged := g.BudgetLimits.Merge(limits)
		exec.StopBatchAfterThis = ComputeGoalBudget(g.TurnsUsed, g.TokensUsed, g.WallClockMs, merged).OverBudget
	}
	exec.Execute = func(ctx context.Context, _ loop.ExecCtx) (loop.ToolResult, error) {
		if t.goals.CurrentGoal() == nil {
			return loop.TextResult("Goal budget not set: no current goal."), nil
		}
		if !valid {
			return loop.TextResult("Goal budget not set: " + label + " is not a reasonable goal budget."), nil
		}
		snap, ok, err := t.goals.SetGoalBudget(ctx, limits)
		switch {
		case err != nil:
			return loop.ToolResult{}, err
		case !ok:
			return loop.TextResult("Goal budget not set: no current goal."), nil
		}
		out := "Goal budget set: " + label + "."
		if snap.Budget.OverBudget {
			res := loop.TextResult(out + " The goal has already reached this budget, so it will stop now.")
			res.StopTurn = true
			return res, nil
		}
		return loop.TextResult(out), nil
	}
	return exec, nil, nil
}

// UpdateGoal is the UpdateGoal tool.
type UpdateGoal struct {
	goals Goals
	def   llm.Tool
}

// NewUpdateGoal returns the UpdateGoal tool over g.
func NewUpdateGoal(g Goals) *UpdateGoal {
	return &UpdateGoal{goals: g, def: definition(NameUpdateGoal, updateGoalMD, nil, `{
  "type": "object",
  "properties": {
    "status": {"type": "string", "enum": ["active", "complete", "blocked"], "description": "active resumes a paused or blocked goal; complete and blocked end the active goal."}
  },
  "required": ["status"],
  "additionalProperties": false
}`)}
}

// Definition implements loop.ExecutableTool.
func (t *UpdateGoal) Definition() llm.Tool { return t.def }

// ResolveExecution implements loop.ExecutableTool: ending an active goal
// stops the batch after this call, and its result stops the turn once the
// model wrote its final message.
func (t *UpdateGoal) ResolveExecution(raw json.RawMessage) (loop.Execution, *loop.ToolResult, error) {
	var a struct {
		Status GoalStatus `json:"status"`
	}
	if r := decodeArgs(NameUpdateGoal, raw, &a); r != nil {
		return loop.Execution{}, r, nil
	}
	switch a.Status {
	case GoalActive, GoalComplete, GoalBlocked:
	default:
		return loop.Execution{}, errorResult("Invalid goal status %q: use active, complete or blocked.", a.Status), nil
	}
	exec := loop.Execution{
		Accesses:     loop.None(),
		Description:  "Marking the goal " + string(a.Status),
		ApprovalRule: NameUpdateGoal,
		Execute: func(ctx context.Context, _ loop.ExecCtx) (loop.ToolResult, error) {
			return t.execute(ctx, a.Status)
		},
	}
	if g := t.goals.CurrentGoal(); g != nil && a.Status != GoalActive && g.Status == GoalActive {
		exec.StopBatchAfterThis = true
	}
	return exec, nil, nil
}

func (t *UpdateGoal) execute(ctx context.Context, status GoalStatus) (loop.ToolResult, error) {
	switch status {
	case GoalActive:
		ok, err := t.goals.ResumeGoal(ctx)
		switch {
		case err != nil:
			return loop.ToolResult{}, err
		case !ok:
			return loop.TextResult("Goal not resumed: no current goal."), nil
		}
		return loop.TextResult("Goal resumed."), nil
	case GoalComplete:
		snap, err := t.goals.CompleteGoal(ctx)
		switch {
		case err != nil:
			return loop.ToolResult{}, err
		case snap == nil:
			return loop.TextResult("Goal not completed: no active goal."), nil
		}
		return goalEndResult("Goal completed successfully.", snap, updateGoalCompleteMD), nil
	}
	snap, err := t.goals.BlockGoal(ctx)
	switch {
	case err != nil:
		return loop.ToolResult{}, err
	case snap == nil:
		return loop.TextResult("Goal not blocked: no active goal."), nil
	}
	return goalEndResult("Goal blocked.", snap, updateGoalBlockedMD), nil
}

// goalEndResult is the result of completing or blocking the goal: the
// model writes one final message, then the turn ends.
func goalEndResult(head string, s *GoalSnapshot, instruction string) loop.ToolResult {
	res := loop.TextResult(head + "\n" + GoalStats(*s) + "\n\n" + strings.TrimSpace(instruction))
	res.StopTurn = true
	return res
}

// GoalStats is the one-line account of a goal's work: "Worked 3 turns over
// 2m05s, using 1.2k tokens."
func GoalStats(s GoalSnapshot) string {
	turns := "turns"
	if s.TurnsUsed == 1 {
		turns = "turn"
	}
	return fmt.Sprintf("Worked %d %s over %s, using %s tokens.", s.TurnsUsed, turns, FormatGoalElapsed(s.WallClockMs),
		FormatGoalTokens(s.TokensUsed))
}
