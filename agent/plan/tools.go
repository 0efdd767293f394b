package plan

import (
	"context"

	"github.com/kimigo/kimigo/tools"
)

var _ tools.PlanMode = (*Mode)(nil)

// PlanStatus implements tools.PlanMode.
func (m *Mode) PlanStatus() (active bool, path string) {
	s := m.State()
	return s.Active, s.Path
}

// ReadPlan implements tools.PlanMode.
func (m *Mode) ReadPlan() (string, error) {
	s := m.State()
	if !s.Active || s.Path == "" {
		return "", nil
	}
	return m.read(s.Path)
}

// EnterPlan implements tools.PlanMode: the model's EnterPlanMode, which
// writes no plan file.
func (m *Mode) EnterPlan(ctx context.Context) (string, error) {
	if err := m.Enter(ctx, EnterOptions{}); err != nil {
		return "", err
	}
	return m.State().Path, nil
}

// ExitPlan implements tools.PlanMode.
func (m *Mode) ExitPlan(ctx context.Context) error { return m.Exit(ctx) }

// PermissionMode implements tools.PlanMode.
func (m *Mode) PermissionMode() string { return m.permissionMode() }
