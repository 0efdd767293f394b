package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/kimigo/kimigo/agent/goal"
	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/permission"
	"github.com/kimigo/kimigo/agent/plan"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/agent/replay"
	"github.com/kimigo/kimigo/agent/turn"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/tools"
)

// Plan mode and goal mode (Options.Plan, Options.Goals; spec 04 §5–6):
// the agent binds them to its commit path, puts their policies into the
// permission chain's slots, gives goals to the turn's goal driver, applies
// their records and settles a restored goal after a resume.

// bindModes connects plan and goal mode to the agent.
func (a *Agent) bindModes() {
	if a.o.Plan != nil {
		a.o.Plan.Bind(planHost{a})
	}
	if a.o.Goals != nil {
		a.o.Goals.Bind(goalHost{a})
	}
	a.bindSwarm()
}

// fillSlots puts the plan and goal policies into the chain's empty slots.
func (a *Agent) fillSlots(s *permission.Slots) {
	if p := a.o.Plan; p != nil && s.PlanGuard == nil && s.PlanReview == nil && s.PlanToolApprove == nil {
		p.Slots(s)
	}
	if g := a.o.Goals; g != nil && s.GoalStart == nil {
		s.GoalStart = g.StartReview()
	}
	a.fillSwarmSlots(s)
}

// Plan is the agent's plan mode, nil without one.
func (a *Agent) Plan() *plan.Mode { return a.o.Plan }

// Goals is the agent's goal mode, nil without one.
func (a *Agent) Goals() *goal.Store { return a.o.Goals }

// The goal store is the driver's queue of upcoming goals as well.
var _ turn.GoalQueue = (*goal.Store)(nil)

// goalDriver is the turn's view of goal mode, nil without one.
func (a *Agent) goalDriver() turn.GoalStore {
	if a.o.Goals == nil {
		return nil
	}
	return a.o.Goals
}

// applyPlan hands a plan_mode.* record to plan mode; without one it only
// checks that the record decodes. The caller holds mu.
func (a *Agent) applyPlan(rec records.Record) (applied, error) {
	p, err := plan.DecodeRecord(plan.RecordType(rec.Type), rec.Fields())
	if err != nil || a.o.Plan == nil {
		return applied{}, err
	}
	if err := a.o.Plan.Apply(p); err != nil {
		return applied{}, err
	}
	return applied{status: true}, nil // the status shows plan mode
}

// applyGoal hands a goal.* record to goal mode, and adds its card to the
// replay stream; without goal mode it only checks that the record
// decodes. The caller holds mu.
func (a *Agent) applyGoal(rec records.Record) (applied, error) {
	p, err := goal.DecodeRecord(goal.RecordType(rec.Type), rec.Fields())
	if err != nil || a.o.Goals == nil {
		return applied{}, err
	}
	if err := a.o.Goals.Apply(p, a.recordTime); err != nil {
		return applied{}, err
	}
	if a.cards != nil {
		a.goalCard(rec, p)
	}
	return applied{}, nil
}

// goalCard adds goal_updated {snapshot, change} for a goal record that
// created a goal or changed its status (spec 02 §6.12).
func (a *Agent) goalCard(rec records.Record, p goal.Payload) {
	var change goal.Change
	switch r := p.(type) {
	case goal.CreateRecord:
		change = goal.Change{Kind: goal.ChangeCreated, Status: tools.GoalActive}
	case goal.UpdateRecord:
		if r.Status == "" {
			return
		}
		change = goal.Change{Kind: goal.ChangeLifecycle, Status: r.Status, Reason: r.Reason, Actor: r.Actor}
		if r.Status == tools.GoalComplete {
			change.Kind = goal.ChangeCompletion
		}
	default:
		return
	}
	snap := a.o.Goals.SnapshotAt(a.recordTime)
	if change.Kind == goal.ChangeCompletion && snap != nil {
		change.Stats = &goal.Stats{TurnsUsed: snap.TurnsUsed, TokensUsed: snap.TokensUsed, WallClockMs: snap.WallClockMs}
	}
	s, _ := json.Marshal(snap)   // a snapshot always encodes
	c, _ := json.Marshal(change) // and so does a change
	a.cards.Add(replay.Card{Type: replay.CardGoalUpdated, Time: rec.Time, Snapshot: s, Fields: c})
}

// applyForked drops a goal copied from the source of a fork and leaves the
// fork reminder in its place; the reminder is derived, not recorded, so
// every replay of the record derives it again (spec 02 §6.3). The caller
// holds mu.
func (a *Agent) applyForked(records.Record) (applied, error) {
	if a.o.Goals == nil || !a.o.Goals.DropForFork() {
		return applied{}, nil
	}
	ch, err := a.mem.Apply(history.AppendMessageRecord{Message: goal.ForkReminder()})
	return applied{change: ch}, err
}

// normalizeGoal settles a restored goal (spec 02 §6.14 step 3.1): an
// active one is paused. It reports whether it wrote a record.
func (a *Agent) normalizeGoal(ctx context.Context) (bool, error) {
	if a.o.Goals == nil {
		return false, nil
	}
	a.mu.Lock()
	last := a.recordTime // the time of the last record replayed
	a.mu.Unlock()
	wrote, err := a.o.Goals.NormalizeAfterReplay(ctx, last)
	if err != nil {
		return wrote, fmt.Errorf("resume goal: %w", err)
	}
	return wrote, nil
}

// modesPermission is the agent's permission mode for plan and goal mode;
// manual without a permission manager.
func (a *Agent) modesPermission() string {
	if a.perm == nil {
		return string(permission.ModeManual)
	}
	return string(a.perm.Mode())
}

// planHost is the agent as plan mode sees it.
type planHost struct{ a *Agent }

// Commit implements plan.Host.
func (h planHost) Commit(ctx context.Context, p plan.Payload) error {
	_, err := h.a.commitPayload(ctx, records.Type(p.RecordType()), p)
	return err
}

// PermissionMode implements plan.Host.
func (h planHost) PermissionMode() string { return h.a.modesPermission() }

// goalHost is the agent as goal mode sees it.
type goalHost struct{ a *Agent }

// Commit implements goal.Host.
func (h goalHost) Commit(ctx context.Context, p goal.Payload) error {
	_, err := h.a.commitPayload(ctx, records.Type(p.RecordType()), p)
	return err
}

// Publish implements goal.Host: the change goes out as the front end's
// event.
func (h goalHost) Publish(ev goal.Event) { h.a.events.Publish(goalUpdated(ev)) }

// EventGoal is g in the front ends' vocabulary; nil for nil.
func EventGoal(g *goal.Snapshot) *event.Goal {
	if g == nil {
		return nil
	}
	return &event.Goal{GoalID: g.GoalID, Objective: g.Objective, CompletionCriterion: g.CompletionCriterion,
		Status: string(g.Status), TurnsUsed: g.TurnsUsed, TokensUsed: g.TokensUsed, WallClockMs: g.WallClockMs,
		TurnBudget: g.BudgetLimits.TurnBudget, TokenBudget: g.BudgetLimits.TokenBudget,
		WallClockBudgetMs: g.BudgetLimits.WallClockBudgetMs, TerminalReason: g.TerminalReason}
}

// goalUpdated is ev in the front ends' vocabulary.
func goalUpdated(ev goal.Event) event.GoalUpdated {
	out := event.GoalUpdated{Header: event.InTurn(event.NoTurn), Goal: EventGoal(ev.Snapshot)}
	if c := ev.Change; c != nil {
		out.Change = &event.GoalChange{Kind: string(c.Kind), Status: string(c.Status), Reason: c.Reason, Actor: string(c.Actor)}
		if st := c.Stats; st != nil {
			out.Change.Stats = &event.GoalStats{TurnsUsed: st.TurnsUsed, TokensUsed: st.TokensUsed, WallClockMs: st.WallClockMs}
		}
	}
	return out
}

// AppendMessage implements goal.Host.
func (h goalHost) AppendMessage(ctx context.Context, m history.Message) error {
	return h.a.appendMessage(ctx, m)
}

// PermissionMode implements goal.Host.
func (h goalHost) PermissionMode() string { return h.a.modesPermission() }

// SetPermissionMode implements goal.Host.
func (h goalHost) SetPermissionMode(ctx context.Context, mode string) error {
	return h.a.SetPermissionMode(ctx, permission.Mode(mode))
}

// errNoGoals fails the goal controls of an agent without goal mode.
var errNoGoals = errors.New("the agent has no goal mode")

// resumeGoalPrompt is what /goal resume sends (spec 04 §6.11).
const resumeGoalPrompt = "Resume the active goal."

// StartGoal starts a goal as the user and runs its objective as a prompt,
// so the turn begins with the goal active and the goal driver carries it
// on (spec 04 §6.11 "/goal <objective>"). It refuses while a turn runs,
// waits for a cancelled turn's worker to finish (a cancelled goal turn
// pauses its goal after it ended, and must not pause the new one), and
// nothing is prompted when the goal cannot be created.
func (a *Agent) StartGoal(ctx context.Context, in tools.GoalInput) (goal.Snapshot, turn.Launch, error) {
	if a.o.Goals == nil {
		return goal.Snapshot{}, turn.Launch{}, errNoGoals
	}
	if a.HasActiveTurn() {
		return goal.Snapshot{}, turn.Launch{}, errors.New("start goal: wait until the running turn ends")
	}
	if err := a.turns.WaitSettled(ctx); err != nil {
		return goal.Snapshot{}, turn.Launch{}, fmt.Errorf("start goal: %w", err)
	}
	snap, err := a.o.Goals.Create(ctx, in, goal.ActorUser)
	if err != nil {
		return goal.Snapshot{}, turn.Launch{}, err
	}
	l, err := a.Prompt(ctx, []llm.ContentPart{llm.TextPart(snap.Objective)}, nil)
	return snap, l, err
}

// PauseGoal pauses the goal as the user and cancels the running turn
// (/goal pause).
func (a *Agent) PauseGoal(ctx context.Context) error {
	if a.o.Goals == nil {
		return errNoGoals
	}
	if err := a.o.Goals.Pause(ctx, ""); err != nil {
		return err
	}
	return a.cancelIfRunning(ctx)
}

// ResumeGoal makes a paused or blocked goal active and prompts the model
// to carry on (/goal resume). It refuses while a turn runs, and waits for
// a cancelled turn's worker to finish, as StartGoal does.
func (a *Agent) ResumeGoal(ctx context.Context) (turn.Launch, error) {
	if a.o.Goals == nil {
		return turn.Launch{}, errNoGoals
	}
	if a.HasActiveTurn() {
		return turn.Launch{}, errors.New("resume goal: wait until the running turn ends")
	}
	if err := a.turns.WaitSettled(ctx); err != nil {
		return turn.Launch{}, fmt.Errorf("resume goal: %w", err)
	}
	if err := a.o.Goals.Resume(ctx, goal.ActorUser); err != nil {
		return turn.Launch{}, err
	}
	return a.Prompt(ctx, []llm.ContentPart{llm.TextPart(resumeGoalPrompt)}, nil)
}

// CancelGoal removes the goal and the goals queued after it as the user,
// cancels the running turn and returns the goal as it was, nil when only
// the queue was emptied (/goal cancel).
func (a *Agent) CancelGoal(ctx context.Context) (*goal.Snapshot, error) {
	if a.o.Goals == nil {
		return nil, errNoGoals
	}
	snap, err := a.o.Goals.Cancel(ctx, goal.ActorUser)
	if err != nil || snap == nil {
		return snap, err
	}
	return snap, a.cancelIfRunning(ctx)
}

// QueueGoal queues a goal with objective to start when the current one
// completes (/goal next <objective>; spec 06 §5.11). With no current goal
// the queue's head starts now: as a goal with its objective as the prompt
// when nothing runs (the returned launch), else when the running turn
// ends. A paused or blocked goal keeps the queue waiting.
func (a *Agent) QueueGoal(ctx context.Context, objective string) (goal.Upcoming, turn.Launch, error) {
	if a.o.Goals == nil {
		return goal.Upcoming{}, turn.Launch{}, errNoGoals
	}
	u, err := a.o.Goals.Enqueue(ctx, objective)
	if err != nil || !a.o.Goals.NextPending() || a.HasActiveTurn() {
		return u, turn.Launch{}, err
	}
	if err := a.turns.WaitSettled(ctx); err != nil {
		return u, turn.Launch{}, fmt.Errorf("start queued goal: %w", err)
	}
	next, ok, err := a.o.Goals.TakeNext(ctx)
	if err != nil || !ok { // a turn that just ended took it
		return u, turn.Launch{}, err
	}
	l, err := a.Prompt(ctx, []llm.ContentPart{llm.TextPart(next)}, nil)
	return u, l, err
}

func (a *Agent) cancelIfRunning(ctx context.Context) error {
	if !a.HasActiveTurn() {
		return nil
	}
	return a.Cancel(ctx, nil, nil)
}
