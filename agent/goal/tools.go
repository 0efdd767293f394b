package goal

import (
	"context"
	"errors"

	"github.com/kimigo/kimigo/tools"
)

var _ tools.Goals = (*Store)(nil)

// CreateGoal implements tools.Goals: the model creates a goal.
func (s *Store) CreateGoal(ctx context.Context, in tools.GoalInput) (Snapshot, error) {
	return s.Create(ctx, in, ActorModel)
}

// CurrentGoal implements tools.Goals.
func (s *Store) CurrentGoal() *Snapshot { return s.Get() }

// SetGoalBudget implements tools.Goals.
func (s *Store) SetGoalBudget(ctx context.Context, limits tools.GoalBudgetLimits) (Snapshot, bool, error) {
	snap, err := s.SetBudget(ctx, limits, ActorModel)
	if errors.Is(err, ErrNotFound) {
		return Snapshot{}, false, nil
	}
	return snap, err == nil, err
}

// ResumeGoal implements tools.Goals: UpdateGoal active.
func (s *Store) ResumeGoal(ctx context.Context) (bool, error) {
	err := s.Resume(ctx, ActorModel)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// CompleteGoal implements tools.Goals: UpdateGoal complete.
func (s *Store) CompleteGoal(ctx context.Context) (*Snapshot, error) {
	return s.Complete(ctx, "", ActorModel)
}

// BlockGoal implements tools.Goals: UpdateGoal blocked, with no reason.
func (s *Store) BlockGoal(ctx context.Context) (*Snapshot, error) {
	return s.Block(ctx, "", ActorModel)
}

// PermissionMode implements tools.Goals.
func (s *Store) PermissionMode() string {
	if h := s.bound(); h != nil {
		return h.PermissionMode()
	}
	return "manual"
}
