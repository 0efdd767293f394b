package session

import (
	"context"
	"errors"
	"strings"

	"github.com/kimigo/kimigo/agent"
	"github.com/kimigo/kimigo/agent/goal"
	planmode "github.com/kimigo/kimigo/agent/plan"
	"github.com/kimigo/kimigo/agent/swarm"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/tools"
)

// Plan mode and goal mode of the main agent (spec 04 §5–6): the session
// builds them with the agent and offers their user controls — the /plan
// and /goal commands of the TUI and of print mode.

// modes builds the main agent's plan mode (plan files under its home),
// goal mode and swarm mode.
func (s *Session) modes(o Options, home string) (*planmode.Mode, *goal.Store, *swarm.Mode) {
	workDir := s.workDir
	// A --plan run nobody answers (print mode) has its plan for an answer:
	// it leaves plan mode unreviewed rather than being refused.
	unreviewed := o.Plan && o.Requests != Answered
	return planmode.New(planmode.Options{Env: o.Env, HomeDir: home, Cwd: func() string { return workDir }, Logger: s.logger,
			Unreviewed: unreviewed}),
		goal.New(goal.Options{Logger: s.logger}), swarm.New()
}

// startPlan enters plan mode when this run asks for it: --plan, or
// default_plan_mode for a new session only (spec 04 §5.3).
func (s *Session) startPlan(ctx context.Context, o Options) error {
	on := o.Plan || (!s.resumed && o.Config.DefaultPlanMode)
	if !on || s.agent.Plan().State().Active {
		return nil
	}
	return s.agent.Plan().Enter(ctx, planmode.EnterOptions{})
}

// GoalCommand is a parsed /goal command; ParseGoalCommand reads the
// grammar print mode and the TUI share (spec 06 §1.6.1, §5.11): ok is
// false for text that is not a /goal command. Its Kind is one of the
// Goal* kinds below; Objective is set for create, replace and next, and
// Budget for budget (SetGoalBudget takes it as it is).
type GoalCommand = goal.Command

// The kinds of /goal command.
const (
	GoalStatus     = goal.CommandStatus     // "/goal", "/goal status"
	GoalCreate     = goal.CommandCreate     // "/goal <objective>", "/goal -- <objective>"
	GoalReplace    = goal.CommandReplace    // "/goal replace <objective>"
	GoalPause      = goal.CommandPause      // "/goal pause"
	GoalResume     = goal.CommandResume     // "/goal resume"
	GoalCancel     = goal.CommandCancel     // "/goal cancel"
	GoalBudget     = goal.CommandBudget     // "/goal budget <value> <unit>"
	GoalNext       = goal.CommandNext       // "/goal next <objective>": QueueGoal
	GoalNextManage = goal.CommandNextManage // "/goal next manage"
)

// ParseGoalCommand parses a /goal command; see goal.ParseCommand.
func ParseGoalCommand(text string) (cmd GoalCommand, ok bool, err error) {
	return goal.ParseCommand(text)
}

// ErrNoGoal is returned by the goal controls when there is no goal.
var ErrNoGoal = goal.ErrNotFound

// StartGoal starts a goal with objective as the user and runs the
// objective as the main agent's prompt; the goal driver carries it on
// turn after turn (/goal <objective>; replace for /goal replace). It
// refuses while a turn runs, and when a goal exists unless replace.
func (s *Session) StartGoal(ctx context.Context, objective string, replace bool) error {
	_, l, err := s.agent.StartGoal(ctx, tools.GoalInput{Objective: objective, Replace: replace})
	if err != nil {
		return err
	}
	if !l.Launched && !l.Buffered {
		return &agent.BusyError{Op: "start goal", TurnID: l.TurnID}
	}
	if err := s.RecordPrompt(objective); err != nil {
		s.logger.Warn("update session state after the goal's prompt", "err", err)
	}
	return nil
}

// Goal is the main agent's goal now, nil when there is none (/goal
// status).
func (s *Session) Goal() *event.Goal { return agent.EventGoal(s.agent.Goals().Get()) }

// PauseGoal pauses the goal and cancels its running turn (/goal pause).
func (s *Session) PauseGoal(ctx context.Context) error { return s.agent.PauseGoal(ctx) }

// ResumeGoal resumes a paused or blocked goal and prompts the model to
// carry on (/goal resume); it refuses while a turn runs.
func (s *Session) ResumeGoal(ctx context.Context) error {
	_, err := s.agent.ResumeGoal(ctx)
	return err
}

// CancelGoal removes the goal and the goals queued after it, and cancels
// its running turn (/goal cancel); it returns the goal as it was, nil
// when there was only a queue.
func (s *Session) CancelGoal(ctx context.Context) (*event.Goal, error) {
	g, err := s.agent.CancelGoal(ctx)
	if err != nil {
		return nil, err
	}
	return agent.EventGoal(g), nil
}

// QueueGoal queues a goal with objective to start when the current goal
// completes (/goal next <objective>); with no current goal it starts now,
// or when the running turn ends. It returns the objectives queued after.
func (s *Session) QueueGoal(ctx context.Context, objective string) ([]string, error) {
	_, l, err := s.agent.QueueGoal(ctx, objective)
	if err != nil {
		return nil, err
	}
	if g := s.Goal(); g != nil && (l.Launched || l.Buffered) {
		if err := s.RecordPrompt(g.Objective); err != nil {
			s.logger.Warn("update session state after the goal's prompt", "err", err)
		}
	}
	return s.UpcomingGoals(), nil
}

// UpcomingGoals are the objectives of the goals queued by /goal next,
// first to start first.
func (s *Session) UpcomingGoals() []string {
	var out []string
	for _, u := range s.agent.Goals().Upcoming() {
		out = append(out, u.Objective)
	}
	return out
}

// SetGoalBudget sets a budget of the goal as the user (/goal budget); a
// time outside a second to a day is an error naming it.
func (s *Session) SetGoalBudget(ctx context.Context, b tools.GoalBudgetRequest) error {
	limits, label, ok := b.Limits()
	if !ok {
		return errors.New("goal budget: " + label + " is not a reasonable goal budget (between a second and a day)")
	}
	_, err := s.agent.Goals().SetBudget(ctx, limits, goal.ActorUser)
	return err
}

// ExitPlanModeTool is the tool that ends plan mode: its approval request
// is the plan review, which no rule and no remembered answer skips.
const ExitPlanModeTool = tools.NameExitPlanMode

// PlanReviewDisplay is the display of a plan review's approval request:
// the plan, its file and the approaches it offers (two or more, or none).
type PlanReviewDisplay = tools.PlanReviewDisplay

// PlanOption is one approach a plan offers.
type PlanOption = tools.PlanOption

// PlanState is plan mode as a front end sees it: whether it is on, the
// plan id and the plan file (empty while off).
type PlanState = planmode.State

// PlanData is the current plan: its id, file and text.
type PlanData = planmode.Data

// PlanState is the main agent's plan mode now.
func (s *Session) PlanState() PlanState { return s.agent.Plan().State() }

// PlanMode reports whether plan mode is on (the footer's plan flag;
// event.Status.PlanMode carries each change).
func (s *Session) PlanMode() bool { return s.agent.Plan().State().Active }

// Plan is the current plan, nil when plan mode has no plan file; a plan
// file not written yet reads as empty.
func (s *Session) Plan() (*PlanData, error) { return s.agent.Plan().Data() }

// SetPlanMode turns plan mode on or off (/plan on|off, Shift-Tab);
// turning it on creates no plan file.
func (s *Session) SetPlanMode(ctx context.Context, on bool) error {
	if !on {
		return s.agent.Plan().Cancel(ctx)
	}
	if s.agent.Plan().State().Active {
		return nil
	}
	return s.agent.Plan().Enter(ctx, planmode.EnterOptions{})
}

// ClearPlan empties the plan file (/plan clear).
func (s *Session) ClearPlan() error { return s.agent.Plan().Clear() }

// SwarmMode reports whether swarm mode is on (the footer's swarm flag;
// event.Status.SwarmMode carries each change).
func (s *Session) SwarmMode() bool { return s.agent.Swarm().Active() }

// SetSwarmMode turns swarm mode on or off as the user (/swarm on|off,
// spec 04 §7.1): on appends the swarm reminder and stays until turned
// off; off right after on takes the reminder back, otherwise it appends
// the exit reminder.
func (s *Session) SetSwarmMode(ctx context.Context, on bool) error {
	if !on {
		return s.agent.Swarm().Exit(ctx)
	}
	return s.agent.Swarm().Enter(ctx, swarm.TriggerManual)
}

// StartSwarmTask runs task as a prompt in swarm mode (/swarm <task>):
// swarm mode is on for that turn and ends with it. It refuses while a
// turn runs, entering nothing.
func (s *Session) StartSwarmTask(ctx context.Context, task string) error {
	if strings.TrimSpace(task) == "" {
		return errors.New("swarm task: the task is empty")
	}
	if s.agent.HasActiveTurn() {
		return errors.New("swarm task: wait until the running turn ends")
	}
	m := s.agent.Swarm()
	entered := !m.Active() // a manual swarm mode stays what it is
	if err := m.Enter(ctx, swarm.TriggerTask); err != nil {
		return err
	}
	if err := s.Prompt(ctx, []llm.ContentPart{llm.TextPart(task)}); err != nil {
		if entered {
			err = errors.Join(err, m.Exit(ctx))
		}
		return err
	}
	return nil
}
