package goal

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
	"sync"
	"text/template"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/injection"
	"github.com/kimigo/kimigo/tools"
)

// Reminder variants and system-trigger names of goal mode.
const (
	VariantGoal           = "goal"
	TriggerGoalCancelled  = "goal_cancelled"
	TriggerGoalForkClears = "goal_fork_cleared"
)

// convergeFraction is the share of a budget past which the goal reminder
// asks the model to converge.
const convergeFraction = 0.75

var (
	//go:embed text/active.md
	activeText string
	//go:embed text/paused.md
	pausedText string
	//go:embed text/cancelled.md
	cancelledText string
	//go:embed text/fork_cleared.md
	forkClearedText string

	// The templates are parsed on first use, not at every process start.
	activeTemplate = sync.OnceValue(func() *template.Template { return template.Must(template.New("active").Parse(activeText)) })
	pausedTemplate = sync.OnceValue(func() *template.Template { return template.Must(template.New("paused").Parse(pausedText)) })
)

// CancelReminder is the reminder appended when the user cancels a goal.
func CancelReminder() history.Message {
	return history.SystemReminder(cancelledText, history.SystemTriggerOrigin(TriggerGoalCancelled))
}

// ForkReminder is the reminder a fork leaves where the goal it dropped
// was.
func ForkReminder() history.Message {
	return history.SystemReminder(forkClearedText, history.SystemTriggerOrigin(TriggerGoalForkClears))
}

// Reminder is the goal injector of the boundary group (spec 04 §6.6): at
// the start of every turn and after a compaction it appends one fresh copy
// of the goal's context when a goal exists. It never edits earlier copies
// and never enforces a budget.
type Reminder struct{ s *Store }

// Reminder returns the store's goal injector, for the boundary group of
// the injection manager (before the tools diff).
func (s *Store) Reminder() *Reminder { return &Reminder{s} }

// Inject implements injection.Injector.
func (r *Reminder) Inject(ctx context.Context, h injection.Host) error {
	g := r.s.Get()
	if g == nil {
		return nil
	}
	return h.AppendMessage(ctx, history.SystemReminder(ContextText(*g), history.InjectionOrigin(VariantGoal)))
}

// OnClear, OnCompacted and OnMessageRemoved implement injection.Injector:
// the goal reminder keeps no position.
func (*Reminder) OnClear()             {}
func (*Reminder) OnCompacted()         {}
func (*Reminder) OnMessageRemoved(int) {}

// ContextText is the goal context the model reads at a boundary.
func ContextText(g Snapshot) string {
	data := map[string]any{"Objective": escape(g.Objective), "Criterion": escape(g.CompletionCriterion),
		"Status": string(g.Status), "Reason": g.TerminalReason, "Turns": g.TurnsUsed, "Tokens": g.TokensUsed,
		"Elapsed": tools.FormatGoalElapsed(g.WallClockMs), "Budgets": budgetLine(g),
		"Converge": usedFraction(g) >= convergeFraction}
	t := pausedTemplate()
	if g.Status == tools.GoalActive {
		t = activeTemplate()
	}
	var b strings.Builder
	if err := t.Execute(&b, data); err != nil {
		return "" // the templates are fixed and tested
	}
	return strings.TrimSpace(b.String())
}

// untrustedEscaper makes user text safe inside the untrusted blocks.
var untrustedEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

func escape(s string) string { return untrustedEscaper.Replace(s) }

// budgetLine lists the set budgets: "turns 3/4 (remaining 1); …".
func budgetLine(g Snapshot) string {
	var parts []string
	l, b := g.BudgetLimits, g.Budget
	if l.TurnBudget != nil {
		parts = append(parts, fmt.Sprintf("turns %d/%d (remaining %d)", g.TurnsUsed, *l.TurnBudget, *b.RemainingTurns))
	}
	if l.TokenBudget != nil {
		parts = append(parts, fmt.Sprintf("tokens %d/%d (remaining %d)", g.TokensUsed, *l.TokenBudget, *b.RemainingTokens))
	}
	if l.WallClockBudgetMs != nil {
		parts = append(parts, fmt.Sprintf("time %s/%s (remaining %s)", tools.FormatGoalElapsed(g.WallClockMs),
			tools.FormatGoalElapsed(*l.WallClockBudgetMs), tools.FormatGoalElapsed(*b.RemainingWallClockMs)))
	}
	return strings.Join(parts, "; ")
}

// usedFraction is the highest share used of any set budget.
func usedFraction(g Snapshot) float64 {
	f := 0.0
	l := g.BudgetLimits
	if l.TurnBudget != nil && *l.TurnBudget > 0 {
		f = max(f, float64(g.TurnsUsed)/float64(*l.TurnBudget))
	}
	if l.TokenBudget != nil && *l.TokenBudget > 0 {
		f = max(f, float64(g.TokensUsed)/float64(*l.TokenBudget))
	}
	if l.WallClockBudgetMs != nil && *l.WallClockBudgetMs > 0 {
		f = max(f, float64(g.WallClockMs)/float64(*l.WallClockBudgetMs))
	}
	return f
}
