package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"strings"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
)

var (
	//go:embed exit_plan_mode.md
	exitPlanModeMD string
	//go:embed exit_plan_mode_auto.md
	exitPlanModeAutoMD string
)

const exitPlanModeSchema = `{
  "type": "object",
  "properties": {
    "options": {
      "type": "array",
      "minItems": 1,
      "maxItems": 3,
      "description": "Two or three different approaches described in the plan, for the user to choose from.",
      "items": {
        "type": "object",
        "properties": {
          "label": {"type": "string", "minLength": 1, "maxLength": 80, "description": "A short name for the approach."},
          "description": {"type": "string", "default": "", "description": "What choosing it means."}
        },
        "required": ["label"],
        "additionalProperties": false
      }
    }
  },
  "additionalProperties": false
}`

// reservedPlanLabels are the labels of the review's own choices (spec 04
// §5.6), compared trimmed and case-insensitively.
var reservedPlanLabels = []string{"approve", "reject", "reject and exit", "revise"}

// DisplayPlanReview is the kind of ExitPlanMode's review display.
const DisplayPlanReview loop.DisplayKind = "plan_review"

// PlanReviewDisplay is the display of an ExitPlanMode call that presents a
// plan for review; policy 10 asks the user with it. Options are set only
// when the plan offers two or more approaches.
type PlanReviewDisplay struct {
	Plan    string       `json:"plan"`
	Path    string       `json:"path,omitempty"`
	Options []PlanOption `json:"options,omitempty"`
}

// PlanOption is one approach of a PlanReviewDisplay.
type PlanOption struct {
	Label       string `json:"label"`
	Description string `json:"description"`
}

// DisplayKind implements loop.Display.
func (*PlanReviewDisplay) DisplayKind() loop.DisplayKind { return DisplayPlanReview }

// MarshalJSON writes {"kind":"plan_review",…}.
func (d *PlanReviewDisplay) MarshalJSON() ([]byte, error) {
	type plain PlanReviewDisplay
	return loop.MarshalDisplay(DisplayPlanReview, (*plain)(d))
}

// ExitPlanMode is the ExitPlanMode tool (spec 05 §4.13, spec 04 §5.6). In
// manual and yolo mode the review policy answers the call and Execute
// does not run; Execute runs when nobody reviews it (auto mode, a headless
// --plan run), or when there is no plan to review. No permission rule
// skips a review.
type ExitPlanMode struct {
	plan PlanMode
	def  llm.Tool
}

// NewExitPlanMode returns the ExitPlanMode tool over p.
func NewExitPlanMode(p PlanMode) *ExitPlanMode {
	return &ExitPlanMode{plan: p, def: definition(NameExitPlanMode, exitPlanModeMD, nil, exitPlanModeSchema)}
}

// Definition implements loop.ExecutableTool.
func (t *ExitPlanMode) Definition() llm.Tool { return t.def }

// ResolveExecution implements loop.ExecutableTool: the display carries the
// plan as it is now, for the review.
func (t *ExitPlanMode) ResolveExecution(raw json.RawMessage) (loop.Execution, *loop.ToolResult, error) {
	var a struct {
		Options []PlanOption `json:"options"`
	}
	if r := decodeArgs(NameExitPlanMode, raw, &a); r != nil {
		return loop.Execution{}, r, nil
	}
	seen := map[string]bool{}
	for _, o := range a.Options {
		key := strings.ToLower(strings.TrimSpace(o.Label))
		for _, r := range reservedPlanLabels {
			if key == r {
				return loop.Execution{}, errorResult("Option labels must not use reserved approval labels."), nil
			}
		}
		if seen[key] {
			return loop.Execution{}, errorResult("Option labels must be unique."), nil
		}
		seen[key] = true
	}
	exec := loop.Execution{
		Description:  "Presenting plan and exiting plan mode",
		ApprovalRule: NameExitPlanMode,
		Execute:      t.execute,
	}
	if active, path := t.plan.PlanStatus(); active {
		if plan, err := t.plan.ReadPlan(); err == nil && strings.TrimSpace(plan) != "" {
			d := &PlanReviewDisplay{Plan: plan, Path: path}
			if len(a.Options) >= 2 {
				d.Options = a.Options
			}
			exec.Display = d
		}
	}
	return exec, nil, nil
}

// execute leaves plan mode without a review.
func (t *ExitPlanMode) execute(ctx context.Context, _ loop.ExecCtx) (loop.ToolResult, error) {
	active, path := t.plan.PlanStatus()
	if !active {
		return loop.ErrorResult("ExitPlanMode can only be called while plan mode is active. Use EnterPlanMode (or /plan) first."), nil
	}
	plan, err := t.plan.ReadPlan()
	if err != nil {
		return loop.ErrorResult("Failed to read plan file: " + err.Error()), nil
	}
	if strings.TrimSpace(plan) == "" {
		return loop.ErrorResult(NoPlanText(path)), nil
	}
	if err := t.plan.ExitPlan(ctx); err != nil {
		return loop.ErrorResult("Failed to exit plan mode: " + err.Error()), nil
	}
	// Nobody read this plan: the review policy answers every call a user
	// reviews, so Execute runs only in auto mode or a headless --plan run.
	var b strings.Builder
	b.WriteString("Exited plan mode. Plan mode deactivated. All tools are now available.\n\n")
	b.WriteString(strings.TrimSpace(exitPlanModeAutoMD))
	b.WriteString("\n\n")
	if path != "" {
		b.WriteString("Plan saved to: " + path + "\n\n")
	}
	b.WriteString("## Plan (auto-approved, not user-reviewed):\n" + plan)
	return loop.ToolResult{Output: loop.TextOutput(b.String()), Brief: "Auto-approved"}, nil
}

// NoPlanText tells the model to write the plan before ExitPlanMode.
func NoPlanText(path string) string {
	if path == "" {
		return "No plan file found. Wait for the host to provide a plan file path, write your plan there, then call ExitPlanMode."
	}
	return "No plan file found. Write your plan to " + path + " first, then call ExitPlanMode."
}

// ApprovedPlanText is the result of an approved plan (spec 04 §5.6): with
// selected, one of the plan's options, the model is told to carry out only
// that approach.
func ApprovedPlanText(plan, path, selected string) string {
	var b strings.Builder
	b.WriteString("Exited plan mode.\n")
	if selected != "" {
		b.WriteString("Selected approach: " + selected + "\nCarry out only the selected approach; leave the other options aside.\n")
	}
	b.WriteString("Plan mode deactivated. All tools are now available.\n")
	if path != "" {
		b.WriteString("Plan saved to: " + path + "\n")
	}
	b.WriteString("\n## Approved Plan:\n" + plan)
	return b.String()
}
