package tui

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/session"
	"github.com/kimigo/kimigo/tools"
	"github.com/kimigo/kimigo/ui/render"
)

// goaler is a session with goal mode (/goal; spec 06 §5.11);
// *session.Session is one.
type goaler interface {
	StartGoal(ctx context.Context, objective string, replace bool) error
	Goal() *event.Goal
	PauseGoal(ctx context.Context) error
	ResumeGoal(ctx context.Context) error
	CancelGoal(ctx context.Context) (*event.Goal, error)
	SetGoalBudget(ctx context.Context, b tools.GoalBudgetRequest) error
	QueueGoal(ctx context.Context, objective string) ([]string, error)
	UpcomingGoals() []string
}

// cmdGoal is /goal: the grammar is the session's (shared with print
// mode); starting and resuming a goal run a turn, so they wait for the
// running one. The goal's changes show as they arrive (goalUpdated).
func cmdGoal(c *Ctx, args string) tea.Cmd {
	m := c.m
	g, ok := m.sess.(goaler)
	if !ok {
		c.Warn("This session has no goal mode.")
		return nil
	}
	cmd, ok, err := session.ParseGoalCommand(strings.TrimSpace("/goal " + args))
	if err != nil {
		c.Fail(err.Error())
		return nil
	}
	if !ok {
		c.Fail(fmt.Sprintf("/goal does not understand %q.", args))
		return nil
	}
	refuse := func(what string) bool {
		if m.busy() {
			c.Warn(fmt.Sprintf("Cannot %s while streaming — press Esc or Ctrl-C first.", what))
			return true
		}
		return false
	}
	switch cmd.Kind {
	case session.GoalStatus:
		c.Info(goalSummary(g.Goal(), g.UpcomingGoals()))
	case session.GoalCreate, session.GoalReplace:
		if refuse("start a goal") {
			return nil
		}
		m.startingGoal(cmd.Objective)
		replace := cmd.Kind == session.GoalReplace
		return tea.Batch(m.call("prompt", func(ctx context.Context) error { return g.StartGoal(ctx, cmd.Objective, replace) }), m.animate())
	case session.GoalNext: // always: with no goal and nothing running it starts now
		queued := g.UpcomingGoals()
		if g.Goal() == nil && !m.busy() && len(queued) == 0 {
			m.startingGoal(cmd.Objective)
			return tea.Batch(m.call("prompt", func(ctx context.Context) error {
				_, err := g.QueueGoal(ctx, cmd.Objective)
				return err
			}), m.animate())
		}
		when := "when the current goal completes"
		if g.Goal() == nil {
			when = "when the running turn ends"
		}
		c.Info(fmt.Sprintf("Queued goal %d: %s. It starts %s.", len(queued)+1, cmd.Objective, when))
		return c.Call("goal", func(ctx context.Context, _ Session) error {
			_, err := g.QueueGoal(ctx, cmd.Objective)
			return err
		})
	case session.GoalPause:
		return c.Call("goal", func(ctx context.Context, _ Session) error { return g.PauseGoal(ctx) })
	case session.GoalResume:
		if refuse("resume the goal") {
			return nil
		}
		return c.Call("goal", func(ctx context.Context, _ Session) error { return g.ResumeGoal(ctx) })
	case session.GoalCancel:
		if n := len(g.UpcomingGoals()); n > 0 {
			c.Info(fmt.Sprintf("Dropped %d queued %s.", n, plural(n, "goal", "goals")))
		}
		return c.Call("goal", func(ctx context.Context, _ Session) error {
			_, err := g.CancelGoal(ctx)
			return err
		})
	case session.GoalBudget:
		return c.Call("goal", func(ctx context.Context, _ Session) error { return g.SetGoalBudget(ctx, cmd.Budget) })
	default: // next manage
		c.Warn("Managing the queue of goals (/goal next manage) is not available in this version of kimigo yet; " +
			"/goal shows the queue and /goal cancel empties it.")
	}
	return nil
}

// startingGoal shows objective as the prompt of a goal about to start.
func (m *Model) startingGoal(objective string) {
	m.print(render.UserMessage(m.theme, objective, m.width, false))
	m.prompts = append(m.prompts, objective)
	m.content = true
	m.turn = &turnState{id: -1, started: m.now(), phase: phaseWaiting}
}

// goalSummary is one line on the goal: its status, objective and the
// work done against its budgets; then the goals queued after it, one a
// line.
func goalSummary(g *event.Goal, upcoming []string) string {
	var b strings.Builder
	if g == nil {
		b.WriteString("No goal. Start one with /goal <objective>.")
	} else {
		goalLine(&b, g)
	}
	for i, o := range upcoming {
		fmt.Fprintf(&b, "\nNext %d: %s", i+1, o)
	}
	return b.String()
}

// goalLine writes the goal's status line.
func goalLine(b *strings.Builder, g *event.Goal) {
	fmt.Fprintf(b, "Goal (%s): %s · %d %s", g.Status, g.Objective, g.TurnsUsed, plural(g.TurnsUsed, "turn", "turns"))
	if g.TurnBudget != nil {
		fmt.Fprintf(b, " of %d", *g.TurnBudget)
	}
	fmt.Fprintf(b, " · %d tokens", g.TokensUsed)
	if g.TokenBudget != nil {
		fmt.Fprintf(b, " of %d", *g.TokenBudget)
	}
	if g.TerminalReason != "" {
		b.WriteString(" · " + g.TerminalReason)
	}
}

// goalUpdated shows a change of the goal's status or its completion, and
// a new goal the user did not type (the queue's next, the model's); a
// snapshot without a change (work counted) shows nothing.
func (m *Model) goalUpdated(e event.GoalUpdated) {
	c := e.Change
	if c == nil {
		if g := e.Goal; g != nil && g.Status == "active" && g.TurnsUsed == 0 && g.TokensUsed == 0 &&
			(len(m.prompts) == 0 || m.prompts[len(m.prompts)-1] != g.Objective) {
			// a goal this interface did not start: the next of the queue,
			// or one the model created
			m.notice(render.Info, "Goal started: "+g.Objective)
		}
		return
	}
	text := "Goal " + c.Status
	if c.Status == "" {
		text = "Goal " + c.Kind
	}
	if c.Stats != nil {
		text += fmt.Sprintf(" after %d %s and %d tokens", c.Stats.TurnsUsed, plural(c.Stats.TurnsUsed, "turn", "turns"), c.Stats.TokensUsed)
	}
	if c.Reason != "" {
		text += ": " + c.Reason
	}
	level := render.Info
	switch c.Status {
	case "complete":
		level = render.Success
	case "blocked":
		level = render.Warning
	}
	m.notice(level, text+".")
}
