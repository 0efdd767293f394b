package loop

import (
	"context"
	"errors"
	"log/slog"

	"github.com/kimigo/kimigo/llm"
)

// RunTurn runs one turn: steps until a step ends without tool use and no
// hook asks to continue (spec 01 §4.5). It blocks until the turn is over and
// every tool call it started has settled (a call past its grace timeout is
// left behind, see Execution.Execute).
//
// Cancelling ctx aborts the turn; that is a TurnResult with StopAborted and
// a nil error. LLM failures that survive retries and resends, hook failures,
// transcript failures and *MaxStepsExceededError are returned unchanged,
// after a turn.interrupted event.
func RunTurn(ctx context.Context, in RunTurnInput) (TurnResult, error) {
	if in.LLM == nil || in.BuildMessages == nil {
		return TurnResult{}, errors.New("loop: RunTurnInput needs LLM and BuildMessages")
	}
	t := newTurn(ctx, in)
	stop, err := t.run(ctx)
	res := TurnResult{StopReason: stop, Steps: t.steps, Usage: t.usage}
	if err == nil {
		return res, nil
	}
	if IsAbort(err) || ctx.Err() != nil {
		why := InterruptAborted
		if userCancelled(ctx, err) {
			why = InterruptUserCancelled
		}
		t.interrupt(InterruptAborted, why, "")
		res.StopReason = StopAborted
		return res, nil
	}
	reason := InterruptError
	if errors.Is(err, ErrMaxStepsExceeded) {
		reason = InterruptMaxSteps
	}
	t.interrupt(reason, reason, err.Error())
	return res, err
}

// turn is the state of one RunTurn call. It is used by the turn goroutine
// only; tool goroutines see just the values handed to them.
type turn struct {
	in     RunTurnInput
	opt    Options
	log    *slog.Logger
	d      Dispatcher
	recCtx context.Context // for Record: a cancelled turn still records its results

	usage      llm.TokenUsage
	steps      int
	activeStep int           // 0 when no step is executing
	trace      *RequestTrace // the current step's trace; nil before the first step.begin

	degraded, stripped bool // sticky media projections of this turn
}

func newTurn(ctx context.Context, in RunTurnInput) *turn {
	t := &turn{in: in, opt: in.Options.withDefaults(), log: in.Log, d: in.Dispatch,
		recCtx: context.WithoutCancel(ctx)}
	if t.log == nil {
		t.log = slog.New(slog.DiscardHandler)
	}
	if t.d == nil {
		t.d = NewDispatcher(nil, nil)
	}
	return t
}

func (t *turn) run(ctx context.Context) (StopReason, error) {
	for {
		if ctx.Err() != nil {
			return "", abortErr(ctx)
		}
		if t.in.MaxSteps > 0 && t.steps >= t.in.MaxSteps {
			return "", &MaxStepsExceededError{MaxSteps: t.in.MaxSteps}
		}
		t.steps++
		t.activeStep, t.trace = t.steps, nil
		r, err := t.step(ctx, t.steps, t.initialProjection())
		if err != nil {
			return "", err
		}
		t.activeStep = 0
		t.degraded = t.degraded || r.degradedUsed
		t.stripped = t.stripped || r.strippedUsed
		if r.stop == StopToolUse {
			continue
		}
		if h := t.in.Hooks.ShouldContinueAfterStop; h != nil {
			c, err := h(ctx, StepEndCtx{StepCtx: t.stepCtx(t.steps), Usage: r.usage, StopReason: r.stop})
			if err != nil {
				return "", err
			}
			if c.Continue {
				continue
			}
		}
		return r.stop, nil
	}
}

// initialProjection is the view a step starts from: once a media resend
// worked, later steps of the turn start from that view.
func (t *turn) initialProjection() Projection {
	switch {
	case t.stripped && t.in.BuildMessagesMediaStripped != nil:
		return ProjectionMediaStripped
	case t.degraded && t.in.BuildMessagesMediaDegraded != nil:
		return ProjectionMediaDegraded
	}
	return ProjectionNormal
}

func (t *turn) builder(p Projection) MessageBuilder {
	switch p {
	case ProjectionStrict:
		return t.in.BuildMessagesStrict
	case ProjectionMediaDegraded:
		return t.in.BuildMessagesMediaDegraded
	case ProjectionMediaStripped:
		return t.in.BuildMessagesMediaStripped
	}
	return t.in.BuildMessages
}

func (t *turn) stepCtx(n int) StepCtx {
	return StepCtx{TurnID: t.in.TurnID, StepNumber: n, LLM: t.in.LLM}
}

func (t *turn) record(ev RecordedEvent) error { return t.d.Record(t.recCtx, ev) }

func (t *turn) interrupt(reason, why InterruptReason, msg string) {
	ev := TurnInterruptedEvent{Reason: reason, AttemptedSteps: t.steps, Message: msg,
		InterruptReason: why, TraceID: t.trace.TraceID()}
	if t.activeStep > 0 {
		step := t.activeStep
		ev.ActiveStep = &step
	}
	t.d.Emit(ev)
}
