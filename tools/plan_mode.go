package tools

import "context"

// Names of the plan-mode tools (spec 05 §4.13).
const (
	NameEnterPlanMode = "EnterPlanMode"
	NameExitPlanMode  = "ExitPlanMode"
)

// PlanMode is an agent's plan mode as the plan tools see it (spec 04 §5;
// agent/plan implements it). Every method is safe for concurrent use.
type PlanMode interface {
	// PlanStatus reports whether plan mode is on and the plan file's path
	// ("" when the agent has none yet).
	PlanStatus() (active bool, path string)
	// ReadPlan returns the plan file's text: "" when plan mode is off, no
	// path is set or the file does not exist. Other read errors are
	// returned.
	ReadPlan() (string, error)
	// EnterPlan turns plan mode on and returns the plan file's path ("" if
	// none). It fails when plan mode is on already.
	EnterPlan(ctx context.Context) (path string, err error)
	// ExitPlan turns plan mode off.
	ExitPlan(ctx context.Context) error
	// PermissionMode is the agent's permission mode (manual, yolo, auto).
	PermissionMode() string
}
