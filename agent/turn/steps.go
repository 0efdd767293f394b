package turn

import (
	"context"
	"errors"
	"strconv"
	"sync"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
)

// turnState is what the hooks of one turn share. The loop calls the hooks
// on the turn goroutine one at a time, so only the media snapshot (built
// from a message builder) needs a lock.
type turnState struct {
	t      *activeTurn
	turnID int
	dedup  *Deduplicator
	// maxSteps is the step cap of the current run.
	maxSteps int

	stopHookUsed       bool
	goalOutcomeUsed    bool
	goalOutcomePending bool
	stopForGoalBudget  bool // per run

	snapMu sync.Mutex
	snap   *history.MediaSnapshot // guarded by snapMu; taken at the first stripped resend
}

// newTurnState is the state of one turn's step loop.
func newTurnState(t *activeTurn, turnID int) *turnState {
	return &turnState{t: t, turnID: turnID, dedup: NewDeduplicator()}
}

// runStepLoop runs the loop until the turn stops, starting a new run after
// every context overflow the compactor recovered from (spec 03 §1.6).
func (f *TurnFlow) runStepLoop(ctx context.Context, st *turnState) (loop.StopReason, error) {
	turnID := st.turnID
	if inj := f.o.Injector; inj != nil {
		if err := inj.InjectForTurn(ctx); err != nil {
			return "", err
		}
	}
	comp := f.o.Compactor
	for {
		if ctx.Err() != nil {
			return "", llm.Aborted(ctx)
		}
		model, err := f.o.LLM()
		if err != nil {
			return "", err
		}
		lc := f.o.LoopControl()
		st.maxSteps, st.stopForGoalBudget = lc.MaxStepsPerTurn, false
		res, err := loop.RunTurn(ctx, f.runInput(st, model, lc))
		if err == nil {
			return res.StopReason, nil
		}
		overflow := llm.IsContextOverflow(err) || event.ErrorOf(err).Code == event.CodeContextOverflow
		est := 0
		if overflow {
			est = comp.EstimateCurrentRequestTokens()
		}
		if overflow || comp.ShouldRecoverFromContextOverflow(err, est) {
			if !overflow {
				est = comp.EstimateCurrentRequestTokens()
			}
			comp.ObserveContextOverflow(est)
			if herr := comp.HandleOverflowError(ctx, err); herr != nil {
				return "", herr
			}
			continue
		}
		var maxSteps *loop.MaxStepsExceededError
		if errors.As(err, &maxSteps) {
			f.log.Warn("turn hit max steps", "turn", turnID, "limit", maxSteps.MaxSteps)
		} else if !llm.IsAbort(err) {
			f.log.Error("turn failed", "turn", turnID, "error", err)
		}
		return "", err
	}
}

// runInput is one run's loop input.
func (f *TurnFlow) runInput(st *turnState, model loop.LLM, lc LoopControl) loop.RunTurnInput {
	h := f.o.History
	view := func(p loop.Projection) loop.MessageBuilder {
		return func(context.Context) ([]llm.Message, error) { return h.View(p), nil }
	}
	return loop.RunTurnInput{
		TurnID:                     strconv.Itoa(st.turnID),
		LLM:                        model,
		BuildMessages:              view(loop.ProjectionNormal),
		BuildMessagesStrict:        view(loop.ProjectionStrict),
		BuildMessagesMediaDegraded: view(loop.ProjectionMediaDegraded),
		BuildMessagesMediaStripped: st.stripped(h),
		Dispatch:                   f.dispatcher(st),
		BuildTools:                 f.o.Tools,
		DescribeMissingTool:        f.o.DescribeMissingTool,
		Hooks:                      f.hooks(st),
		Log:                        f.log,
		MaxSteps:                   lc.MaxStepsPerTurn,
		MaxRetryAttempts:           lc.MaxRetriesPerStep,
		StallTimeout:               lc.StallTimeout,
		MaxRetryAfter:              lc.MaxRetryAfter,
		RecordStepUsage:            f.recordStepUsage(st),
		OnRequestTrace:             func(*loop.RequestTrace) { st.dedup.BeginStep() },
		Options:                    f.o.Loop,
	}
}

// stripped builds the media-stripped view from the turn's snapshot, taken
// lazily at its first use: media produced later stays visible (spec 02
// §3.9).
func (st *turnState) stripped(h History) loop.MessageBuilder {
	return func(context.Context) ([]llm.Message, error) {
		msgs := h.View(loop.ProjectionNormal)
		st.snapMu.Lock()
		if st.snap == nil {
			s := history.NewMediaSnapshot(msgs)
			st.snap = &s
		}
		snap := *st.snap
		st.snapMu.Unlock()
		return snap.Strip(msgs), nil
	}
}

// recordStepUsage feeds the goal's token budget; an over-budget goal stops
// the turn after the step (AfterStep).
func (f *TurnFlow) recordStepUsage(st *turnState) func(context.Context, llm.TokenUsage) (bool, error) {
	return func(ctx context.Context, u llm.TokenUsage) (bool, error) {
		g := f.o.Goals
		if g == nil || !g.Active() {
			return false, nil
		}
		over, err := g.RecordTokenUsage(ctx, u.Output)
		if err != nil {
			f.log.Warn("goal token accounting failed", "turn", st.turnID, "error", err)
			return false, nil
		}
		st.stopForGoalBudget = over
		return false, nil
	}
}
