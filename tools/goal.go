package tools

import (
	"context"
	"fmt"

	"github.com/kimigo/kimigo/loop"
)

// Names of the goal tools (spec 05 §4.14).
const (
	NameCreateGoal    = "CreateGoal"
	NameGetGoal       = "GetGoal"
	NameSetGoalBudget = "SetGoalBudget"
	NameUpdateGoal    = "UpdateGoal"
)

// GoalStatus is a goal's status. It is persisted in goal.update records.
type GoalStatus string

// Goal statuses (spec 04 §6.2). Complete is transient: a completed goal
// is cleared at once.
const (
	GoalActive   GoalStatus = "active"
	GoalPaused   GoalStatus = "paused"
	GoalBlocked  GoalStatus = "blocked"
	GoalComplete GoalStatus = "complete"
)

// GoalBudgetLimits are a goal's budgets; nil means none. They are
// persisted in goal.update records.
type GoalBudgetLimits struct {
	TokenBudget       *int   `json:"tokenBudget,omitempty"`
	TurnBudget        *int   `json:"turnBudget,omitempty"`
	WallClockBudgetMs *int64 `json:"wallClockBudgetMs,omitempty"`
}

// IsZero reports limits with no budget set.
func (l GoalBudgetLimits) IsZero() bool {
	return l.TokenBudget == nil && l.TurnBudget == nil && l.WallClockBudgetMs == nil
}

// Merge returns l with every budget n sets replacing l's: a budget can be
// changed, never removed.
func (l GoalBudgetLimits) Merge(n GoalBudgetLimits) GoalBudgetLimits {
	if n.TokenBudget != nil {
		v := *n.TokenBudget
		l.TokenBudget = &v
	}
	if n.TurnBudget != nil {
		v := *n.TurnBudget
		l.TurnBudget = &v
	}
	if n.WallClockBudgetMs != nil {
		v := *n.WallClockBudgetMs
		l.WallClockBudgetMs = &v
	}
	return l
}

// GoalBudget is what a snapshot says about the budgets (spec 04 §6.1):
// each limit and what remains of it (null without the limit), which are
// reached (used ≥ limit), and whether any is.
type GoalBudget struct {
	TokenBudget            *int   `json:"tokenBudget"`
	TurnBudget             *int   `json:"turnBudget"`
	WallClockBudgetMs      *int64 `json:"wallClockBudgetMs"`
	RemainingTokens        *int   `json:"remainingTokens"`
	RemainingTurns         *int   `json:"remainingTurns"`
	RemainingWallClockMs   *int64 `json:"remainingWallClockMs"`
	TokenBudgetReached     bool   `json:"tokenBudgetReached"`
	TurnBudgetReached      bool   `json:"turnBudgetReached"`
	WallClockBudgetReached bool   `json:"wallClockBudgetReached"`
	OverBudget             bool   `json:"overBudget"`
}

// GoalSnapshot is a goal as it is at one instant: the wall clock includes
// the running active interval. GoalID is never shown to the model.
type GoalSnapshot struct {
	GoalID              string           `json:"goalId,omitempty"`
	Objective           string           `json:"objective"`
	CompletionCriterion string           `json:"completionCriterion,omitempty"`
	Status              GoalStatus       `json:"status"`
	TurnsUsed           int              `json:"turnsUsed"`
	TokensUsed          int              `json:"tokensUsed"`
	WallClockMs         int64            `json:"wallClockMs"`
	BudgetLimits        GoalBudgetLimits `json:"budgetLimits"`
	TerminalReason      string           `json:"terminalReason,omitempty"`
	Budget              GoalBudget       `json:"budget"`
}

// GoalInput is a request to start a goal.
type GoalInput struct {
	Objective           string
	CompletionCriterion string
	// Replace clears an existing goal first; without it an existing goal
	// is an error.
	Replace bool
}

// Goals is an agent's goal mode as the goal tools see it (spec 04 §6;
// agent/goal implements it). Only a main agent has one. Every method is
// safe for concurrent use; the ones that change the goal act as the model.
type Goals interface {
	// CreateGoal starts a goal.
	CreateGoal(ctx context.Context, in GoalInput) (GoalSnapshot, error)
	// CurrentGoal returns the goal, or nil when there is none.
	CurrentGoal() *GoalSnapshot
	// SetGoalBudget merges limits into the goal's budgets; ok is false
	// when there is no goal.
	SetGoalBudget(ctx context.Context, limits GoalBudgetLimits) (snap GoalSnapshot, ok bool, err error)
	// ResumeGoal makes a paused or blocked goal active (no change when it
	// is active); ok is false when there is no goal.
	ResumeGoal(ctx context.Context) (ok bool, err error)
	// CompleteGoal and BlockGoal end an active goal and return its final
	// snapshot; nil when no goal is active.
	CompleteGoal(ctx context.Context) (*GoalSnapshot, error)
	BlockGoal(ctx context.Context) (*GoalSnapshot, error)
	// PermissionMode is the agent's permission mode (manual, yolo, auto).
	PermissionMode() string
}

// DisplayGoalStart is the kind of CreateGoal's display.
const DisplayGoalStart loop.DisplayKind = "goal_start"

// GoalStartDisplay is the display of a CreateGoal call that asks the user
// how the goal should run; policy 11 asks with it. Mode is the permission
// mode the goal would start in.
type GoalStartDisplay struct {
	Objective           string `json:"objective"`
	CompletionCriterion string `json:"completionCriterion,omitempty"`
	Mode                string `json:"mode"`
}

// DisplayKind implements loop.Display.
func (*GoalStartDisplay) DisplayKind() loop.DisplayKind { return DisplayGoalStart }

// MarshalJSON writes {"kind":"goal_start",…}.
func (d *GoalStartDisplay) MarshalJSON() ([]byte, error) {
	type plain GoalStartDisplay
	return loop.MarshalDisplay(DisplayGoalStart, (*plain)(d))
}

// FormatGoalElapsed words a duration for goal texts (spec 04 §6.6): whole
// seconds under a minute ("45s"), minutes and seconds under an hour
// ("2m05s"), else hours and minutes ("1h05m").
func FormatGoalElapsed(ms int64) string {
	s := (max(0, ms) + 500) / 1000
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	return fmt.Sprintf("%dh%02dm", s/3600, (s%3600)/60)
}

// FormatGoalTokens words a token count (spec 04 §6.10): raw under 1,000,
// then one decimal with k, then with M.
func FormatGoalTokens(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d", n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return fmt.Sprintf("%.1fM", float64(n)/1_000_000)
}

// ComputeGoalBudget is the budget view of a goal that used turns, tokens
// and wallMs under limits (spec 04 §6.1): a budget is reached when the use
// is at least the limit.
func ComputeGoalBudget(turns, tokens int, wallMs int64, limits GoalBudgetLimits) GoalBudget {
	b := GoalBudget{TokenBudget: limits.TokenBudget, TurnBudget: limits.TurnBudget, WallClockBudgetMs: limits.WallClockBudgetMs}
	if l := limits.TokenBudget; l != nil {
		r := max(0, *l-tokens)
		b.RemainingTokens, b.TokenBudgetReached = &r, tokens >= *l
	}
	if l := limits.TurnBudget; l != nil {
		r := max(0, *l-turns)
		b.RemainingTurns, b.TurnBudgetReached = &r, turns >= *l
	}
	if l := limits.WallClockBudgetMs; l != nil {
		r := max(0, *l-wallMs)
		b.RemainingWallClockMs, b.WallClockBudgetReached = &r, wallMs >= *l
	}
	b.OverBudget = b.TokenBudgetReached || b.TurnBudgetReached || b.WallClockBudgetReached
	return b
}
