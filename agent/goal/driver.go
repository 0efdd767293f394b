package goal

import (
	"context"

	"github.com/kimigo/kimigo/tools"
)

// The turn's goal driver (agent/turn GoalStore, spec 03 §1.4) drives the
// store through these, with MarkBlocked, PauseActive and PauseOnInterrupt.

// Active reports an active goal.
func (s *Store) Active() bool { return s.Status() == tools.GoalActive }

// OverBudget reports an active goal that reached one of its budgets.
func (s *Store) OverBudget() bool {
	g := s.Get()
	return g != nil && g.Status == tools.GoalActive && g.Budget.OverBudget
}

// IncrementTurn counts a goal turn: goal.update {turnsUsed} and an event
// without a change. Without an active goal it does nothing.
func (s *Store) IncrementTurn(ctx context.Context) error {
	s.op.Lock()
	cur, wall := s.current()
	if cur == nil || cur.Status != tools.GoalActive {
		s.op.Unlock()
		return nil
	}
	turns := cur.TurnsUsed + 1
	err := s.commit(ctx, UpdateRecord{TurnsUsed: &turns, WallClockMs: &wall})
	after, _ := s.current()
	s.op.Unlock()
	if err == nil && after != nil {
		s.publish(Event{Snapshot: after})
	}
	return err
}

// RecordTokenUsage charges an active goal the output tokens of one model
// step (spec 04 §6.5; input and cache tokens are never charged) with
// goal.update {tokensUsed}, silently, and reports whether the goal is now
// over a budget. A step without output tokens writes nothing.
func (s *Store) RecordTokenUsage(ctx context.Context, output int) (overBudget bool, err error) {
	s.op.Lock()
	defer s.op.Unlock()
	cur, wall := s.current()
	if cur == nil || cur.Status != tools.GoalActive {
		return false, nil
	}
	if output > 0 {
		tokens := cur.TokensUsed + output
		if err := s.commit(ctx, UpdateRecord{TokensUsed: &tokens, WallClockMs: &wall}); err != nil {
			return false, err
		}
		cur, _ = s.current()
	}
	return cur != nil && cur.Budget.OverBudget, nil
}
