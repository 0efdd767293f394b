package turn

import (
	"context"
	_ "embed"
	"errors"
	"strings"
	"time"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
)

var (
	//go:embed text/goal_continuation.md
	goalContinuationText string
	//go:embed text/goal_continuation_step_cap.md
	goalStepCapText string
)

// Goal driver reasons (spec 03 §1.4); reasonPromptHook is also the text of
// a UserPromptSubmit block that gave none.
const (
	reasonBudget      = "A configured budget was reached"
	reasonPromptHook  = "Blocked by UserPromptSubmit hook"
	reasonInterrupted = "Paused after interruption"
)

// persistTimeout bounds the writes that must outlive a cancelled turn.
const persistTimeout = 5 * time.Second

// work is the goroutine of one launched turn.
func (f *TurnFlow) work(t *activeTurn, input []llm.ContentPart, origin *history.Origin) {
	defer f.wg.Done()
	if t.prev != nil {
		<-t.prev.done // a cancelled predecessor finishes its bookkeeping first
	}
	res := f.turnWorker(t, input, origin)
	f.release(t)
	t.finish(res)
	if res.Event.Reason != event.EndCancelled {
		f.launchLeftover(f.base)
	}
}

// turnWorker runs a standalone turn, or the goal driver when a goal is
// active or becomes active during the turn (spec 03 §1.4); then, while a
// queued goal is due after a completed turn, it starts that goal and
// drives it too.
func (f *TurnFlow) turnWorker(t *activeTurn, input []llm.ContentPart, origin *history.Origin) Result {
	res := f.oneWork(t, input, origin)
	q, ok := f.o.Goals.(GoalQueue)
	for ok && res.Event.Reason == event.EndCompleted && q.NextPending() {
		objective, started, err := q.TakeNext(t.ctx)
		if err != nil {
			f.log.Warn("starting the next goal failed", "error", err)
		}
		if !started {
			break
		}
		res = f.driveGoal(t, f.allocate(), []llm.ContentPart{llm.TextPart(objective)}, nil)
	}
	return res
}

// oneWork is a standalone turn with the goal driver after it, or the goal
// driver alone.
func (f *TurnFlow) oneWork(t *activeTurn, input []llm.ContentPart, origin *history.Origin) Result {
	g := f.o.Goals
	if g != nil && g.Active() {
		return f.driveGoal(t, t.id, input, origin)
	}
	end := f.runOneTurn(t, t.id, input, origin)
	if g == nil || !g.Active() {
		return end
	}
	switch r := end.Event.Reason; {
	case r == event.EndCancelled || r == event.EndBlocked:
		return end
	case r == event.EndFailed && !isMaxSteps(end):
		return end
	}
	ctx := t.ctx
	if err := g.IncrementTurn(ctx); err != nil {
		f.log.Warn("goal turn accounting failed", "error", err)
	}
	if g.OverBudget() {
		f.release(t)
		f.goalCall(g.MarkBlocked(ctx, reasonBudget))
		return end
	}
	return f.driveGoal(t, f.allocate(), continuationPrompt(isMaxSteps(end)), goalOrigin())
}

// driveGoal runs goal turns until the goal is no longer active. A goal
// that stops after a turn lets go of the turn slot before its change is
// published: a front end that sees the goal paused or blocked may resume
// it at once.
func (f *TurnFlow) driveGoal(t *activeTurn, turnID int, input []llm.ContentPart, origin *history.Origin) Result {
	g, ctx := f.o.Goals, t.ctx
	for {
		if g.Active() && g.OverBudget() {
			f.goalCall(g.MarkBlocked(ctx, reasonBudget))
			return f.endWithoutModel(t, turnID, input, origin)
		}
		if err := g.IncrementTurn(ctx); err != nil {
			f.log.Warn("goal turn accounting failed", "error", err)
		}
		end := f.runOneTurn(t, turnID, input, origin)
		switch r := end.Event.Reason; {
		case r == event.EndCancelled:
			f.goalCall(g.PauseOnInterrupt(ctx, reasonInterrupted))
			return end
		case r == event.EndFailed && !isMaxSteps(end):
			f.release(t)
			f.goalCall(g.PauseActive(context.WithoutCancel(ctx), pauseReason(end.Event.Error)))
			return end
		case r == event.EndBlocked || end.BlockedByUserPromptHook:
			f.release(t)
			f.goalCall(g.MarkBlocked(ctx, reasonPromptHook))
			return end
		}
		if !g.Active() {
			return end
		}
		if g.OverBudget() {
			f.release(t)
			f.goalCall(g.MarkBlocked(ctx, reasonBudget))
			return end
		}
		turnID, input, origin = f.allocate(), continuationPrompt(isMaxSteps(end)), goalOrigin()
	}
}

// endWithoutModel ends a goal turn whose budget was used up before it ran:
// the input enters history, no model is called.
func (f *TurnFlow) endWithoutModel(t *activeTurn, turnID int, input []llm.ContentPart, origin *history.Origin) Result {
	f.o.Usage.BeginTurn()
	started := f.now()
	f.emit(event.TurnStarted{Header: event.InTurn(turnID), Origin: originKind(origin)})
	if err := f.appendUser(t.ctx, DegradePromptVideos(input), origin); err != nil {
		f.log.Warn("append goal input failed", "turn", turnID, "error", err)
	}
	ev := event.TurnEnded{Header: event.InTurn(turnID), Reason: event.EndCompleted, DurationMs: f.now().Sub(started).Milliseconds()}
	f.o.Usage.EndTurn()
	f.release(t)
	f.emit(ev)
	return Result{Event: ev}
}

// goalGoesOn reports that the worker runs another turn after this one: a
// goal is active, or a queued goal is due to start.
func (f *TurnFlow) goalGoesOn() bool {
	g := f.o.Goals
	if g == nil {
		return false
	}
	if g.Active() {
		return true
	}
	q, ok := g.(GoalQueue)
	return ok && q.NextPending()
}

// originKind is the origin a turn.started shows: the kind of the input
// that started the turn, "user" when none was given.
func originKind(o *history.Origin) string {
	if o == nil {
		return string(history.OriginUser)
	}
	return string(o.Kind)
}

func (f *TurnFlow) goalCall(err error) {
	if err != nil {
		f.log.Warn("goal update failed", "error", err)
	}
}

func isMaxSteps(r Result) bool {
	return r.Event.Reason == event.EndFailed && r.Event.Error != nil && r.Event.Error.Code == loop.CodeMaxStepsExceeded
}

func continuationPrompt(stepCap bool) []llm.ContentPart {
	text := strings.TrimSpace(goalContinuationText)
	if stepCap {
		text = strings.TrimSpace(goalStepCapText) + " " + text
	}
	return []llm.ContentPart{llm.TextPart(text)}
}

func goalOrigin() *history.Origin {
	return history.SystemTriggerOrigin(history.TriggerNameGoalContinue)
}

// pauseReason words why a failed goal turn paused the goal (spec 03 §1.4).
func pauseReason(p *event.ErrorPayload) string {
	if p == nil {
		return "Paused after runtime error"
	}
	with := func(prefix string) string {
		if p.Message == "" {
			return prefix
		}
		return prefix + ": " + p.Message
	}
	switch p.Code {
	case event.CodeProviderRateLimit:
		return "Paused after provider rate limit"
	case event.CodeProviderConnection:
		return with("Paused after provider connection error")
	case event.CodeProviderAuth:
		return with("Paused after provider authentication error")
	case event.CodeProviderFiltered:
		return "Paused after provider safety policy block"
	case event.CodeProviderAPI:
		return with("Paused after provider API error")
	case event.CodeModelNotConfigured, "model.config_invalid":
		return with("Paused after model configuration error")
	}
	return with("Paused after runtime error")
}

// outcome is how a turn's body ended, before the bookkeeping of its end.
type outcome struct {
	reason   event.EndReason
	err      *event.ErrorPayload // the turn.ended error, also emitted after it
	stop     loop.StopReason
	blocked  bool // by the UserPromptSubmit hook
	errCause string
	repeat   *event.RepeatStop // the repeat guard ended the turn
}

// runOneTurn is the lifecycle of one turn (spec 03 §1.5): it never fails;
// every abnormal end is a turn.ended.
func (f *TurnFlow) runOneTurn(t *activeTurn, turnID int, input []llm.ContentPart, origin *history.Origin) Result {
	ctx := t.ctx
	f.o.Compactor.ResetForTurn()
	f.o.Usage.BeginTurn()
	f.emit(event.TurnStarted{Header: event.InTurn(turnID), Origin: originKind(origin)})
	started := f.now()

	out := f.turnBody(ctx, t, turnID, input, origin)
	persist, cancel := context.WithTimeout(context.WithoutCancel(ctx), persistTimeout)
	defer cancel()
	f.closeAbandoned(persist, turnID, out)
	if f.o.AfterTurn != nil {
		f.o.AfterTurn(persist)
	}
	if f.CurrentID() == turnID {
		f.o.Usage.EndTurn()
	}
	var trailing []event.ErrorPayload
	if out.err != nil {
		trailing = append(trailing, *out.err)
	}
	if err := f.flush(persist); err != nil { // a turn is complete once durable
		p := withTurnID(event.ErrorOf(err), turnID)
		switch {
		case out.reason == event.EndCompleted || out.reason == event.EndBlocked:
			out.reason, out.err = event.EndFailed, &p
			trailing = []event.ErrorPayload{p}
		case out.err == nil || out.err.Code != event.CodeRecordsWriteFailed: // said once is enough
			trailing = append(trailing, p)
		}
	}
	if out.reason == event.EndCancelled && errors.Is(context.Cause(ctx), loop.ErrUserCancelled) && f.o.Hooks != nil {
		f.o.Hooks.Fire(HookInterrupt, "", map[string]any{"turnId": turnID, "reason": "cancelled"})
	}
	ev := event.TurnEnded{Header: event.InTurn(turnID), Reason: out.reason, Error: out.err,
		DurationMs: max(0, f.now().Sub(started).Milliseconds()), RepeatStop: out.repeat}
	if f.CurrentID() == turnID && !f.goalGoesOn() {
		// The worker ends after this turn (no goal goes on): let go of the
		// slot before turn.ended, since a listener may prompt again (spec
		// 03 §7.2), a goal's last turn as much as a lone one.
		f.release(t)
	}
	f.emit(ev)
	for _, p := range trailing {
		f.emit(event.Error{Header: event.InTurn(turnID), ErrorPayload: p})
	}
	return Result{Event: ev, StopReason: out.stop, BlockedByUserPromptHook: out.blocked}
}

// turnBody appends the input, runs the UserPromptSubmit hook and the step
// loop, and classifies how that ended.
func (f *TurnFlow) turnBody(ctx context.Context, t *activeTurn, turnID int, input []llm.ContentPart, origin *history.Origin) outcome {
	err := f.appendUser(ctx, DegradePromptVideos(input), origin)
	if err == nil && origin.Is(history.OriginUser) && f.o.Hooks != nil {
		var blocked bool
		if blocked, err = f.userPromptHook(ctx, turnID, input); err == nil && blocked {
			return outcome{reason: event.EndBlocked, blocked: true}
		}
	}
	var stop loop.StopReason
	st := newTurnState(t, turnID)
	if err == nil {
		stop, err = f.runStepLoop(ctx, st)
	}
	switch {
	case err == nil && stop == loop.StopFiltered:
		p := withTurnID(event.FilteredPayload(), turnID)
		return outcome{reason: event.EndFailed, err: &p, stop: stop, errCause: p.Message}
	case err == nil && stop == loop.StopAborted:
		return outcome{reason: event.EndCancelled, stop: stop}
	case err == nil:
		return outcome{reason: event.EndCompleted, stop: stop, repeat: st.dedup.Stopped()}
	case ctx.Err() != nil || llm.IsAbort(err) || errors.Is(err, context.Canceled):
		return outcome{reason: event.EndCancelled, stop: loop.StopAborted}
	}
	p := summarizeTurnError(err, turnID)
	if f.o.Hooks != nil {
		f.o.Hooks.Fire(HookStopFailure, p.Name, map[string]any{"errorType": p.Name, "errorMessage": p.Message})
	}
	return outcome{reason: event.EndFailed, err: &p, errCause: p.Message}
}

// appendUser commits the user messages input and origin make.
func (f *TurnFlow) appendUser(ctx context.Context, input []llm.ContentPart, origin *history.Origin) error {
	for _, m := range history.UserMessages(input, origin) {
		if err := f.appendMessage(ctx, m); err != nil {
			return err
		}
	}
	return nil
}

func (f *TurnFlow) appendMessage(ctx context.Context, m history.Message) error {
	return f.o.Commit.Commit(ctx, records.Type(history.TypeAppendMessage), history.AppendMessageRecord{Message: m})
}

// userPromptHook runs UserPromptSubmit (spec 03 §1.10). It reports whether
// a hook blocked the prompt.
func (f *TurnFlow) userPromptHook(ctx context.Context, turnID int, input []llm.ContentPart) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, llm.Aborted(ctx)
	}
	results, err := f.o.Hooks.Block(ctx, HookUserPromptSubmit, partsText(input), map[string]any{"prompt": input})
	if ctx.Err() != nil {
		return false, llm.Aborted(ctx) // a cancel during the hook appends nothing
	}
	if err != nil {
		f.log.Warn("UserPromptSubmit hook failed", "turn", turnID, "error", err)
		return false, nil // hooks fail open
	}
	if b := firstBlock(results); b != nil {
		text := firstNonEmpty(b.Message, b.Reason, reasonPromptHook)
		m := history.Message{Message: llm.AssistantMessage(hookResultBlock(HookUserPromptSubmit, text)),
			Origin: &history.Origin{Kind: history.OriginHookResult, Event: string(HookUserPromptSubmit), Blocked: true}}
		if err := f.appendMessage(ctx, m); err != nil {
			return false, err
		}
		f.emit(event.HookResult{Header: event.InTurn(turnID), HookEvent: string(HookUserPromptSubmit), Content: text, Blocked: true})
		return true, nil
	}
	var texts []string
	for _, r := range results {
		if r.TimedOut || r.ExitCode != 0 {
			continue
		}
		if s := firstNonEmpty(r.Message, r.Stdout); !history.IsBlank(s) {
			texts = append(texts, s)
		}
	}
	if len(texts) == 0 {
		return false, nil
	}
	text := strings.Join(texts, "\n\n")
	m := history.Message{Message: llm.UserMessage(hookResultBlocks(HookUserPromptSubmit, texts)),
		Origin: &history.Origin{Kind: history.OriginHookResult, Event: string(HookUserPromptSubmit)}}
	if err := f.appendMessage(ctx, m); err != nil {
		return false, err
	}
	f.emit(event.HookResult{Header: event.InTurn(turnID), HookEvent: string(HookUserPromptSubmit), Content: text})
	return false, nil
}

func firstBlock(results []HookResult) *HookResult {
	for i := range results {
		if results[i].Block {
			return &results[i]
		}
	}
	return nil
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// partsText is the concatenated text of parts.
func partsText(parts []llm.ContentPart) string {
	var b strings.Builder
	for _, p := range parts {
		if p.Type == llm.PartText {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}
