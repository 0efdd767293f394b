package turn

import (
	"context"
	"encoding/json"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/internal/runes"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
)

// postToolOutputLimit caps the tool output a PostToolUse hook receives.
const postToolOutputLimit = 2000

// hooks wires the agent's collaborators into the loop, in the order of
// spec 03 §1.7.
func (f *TurnFlow) hooks(st *turnState) loop.Hooks {
	return loop.Hooks{
		BeforeStep: func(ctx context.Context, _ loop.StepCtx) (loop.BeforeStepResult, error) {
			// 1. compaction may block the step; 2. steers land in the
			// post-compaction context; 3. injections come last.
			if err := f.o.Compactor.BeforeStep(ctx, st.turnID); err != nil {
				return loop.BeforeStepResult{}, err
			}
			if _, err := f.flushSteers(ctx); err != nil {
				return loop.BeforeStepResult{}, err
			}
			if inj := f.o.Injector; inj != nil {
				if err := inj.InjectForStep(ctx); err != nil {
					return loop.BeforeStepResult{}, err
				}
			}
			return loop.BeforeStepResult{}, nil
		},
		AfterStep: func(ctx context.Context, h loop.StepEndCtx) (loop.AfterStepResult, error) {
			// The loop swallows errors here: a failed item skips the rest.
			if err := f.o.Usage.RecordStep(ctx, h.LLM.ModelName(), h.Usage); err != nil {
				return loop.AfterStepResult{}, err
			}
			f.o.Compactor.AfterStep(ctx)
			st.dedup.EndStep()
			return loop.AfterStepResult{StopTurn: st.stopForGoalBudget}, nil
		},
		PrepareToolExecution: func(_ context.Context, h loop.ToolCtx) (loop.Preparation, error) {
			c := h.ToolCall
			if cached := st.dedup.CheckSameStep(c.ID, c.Name, h.Args, c.Arguments); cached != nil {
				return loop.Preparation{SyntheticResult: cached}, nil
			}
			return loop.Preparation{}, nil
		},
		AuthorizeToolExecution: f.o.Gate.Authorize,
		FinalizeToolResult: func(_ context.Context, h loop.ResultCtx) (*loop.ToolResult, error) {
			c := h.ToolCall
			st.dedup.RegisterSkipped(c.ID, c.Name, h.Args, c.Arguments)
			final := st.dedup.FinalizeResult(c.ID, h.Result)
			f.firePostToolUse(c, h.Args, final)
			model := f.o.Budget.Apply(c.Name, c.ID, final)
			if isTerminalGoalUpdate(c, h.Args, final) {
				st.goalOutcomePending = true
			}
			return &model, nil
		},
		ShouldContinueAfterStop: func(ctx context.Context, h loop.StepEndCtx) (loop.ContinueDecision, error) {
			return f.shouldContinue(ctx, st, h)
		},
	}
}

// shouldContinue decides whether a step that did not end in tool use
// continues the turn (spec 03 §1.9).
func (f *TurnFlow) shouldContinue(ctx context.Context, st *turnState, h loop.StepEndCtx) (loop.ContinueDecision, error) {
	flushed, err := f.flushSteers(ctx)
	if err != nil {
		return loop.ContinueDecision{}, err
	}
	goalActive := f.o.Goals != nil && f.o.Goals.Active()
	switch {
	case st.stopForGoalBudget && goalActive:
		return loop.ContinueDecision{}, nil
	case flushed:
		return loop.ContinueDecision{Continue: true}, nil
	case ctx.Err() != nil:
		return loop.ContinueDecision{}, llm.Aborted(ctx)
	}
	// TODO(print): the print-mode drain of background agent tasks joins
	// with the background task manager.
	if !st.goalOutcomeUsed && st.goalOutcomePending {
		st.goalOutcomeUsed, st.goalOutcomePending = true, false
		if st.maxSteps > 0 && h.StepNumber >= st.maxSteps {
			return loop.ContinueDecision{}, nil
		}
		return loop.ContinueDecision{Continue: true}, nil // one step to write the outcome
	}
	if st.stopHookUsed || f.o.Hooks == nil {
		return loop.ContinueDecision{}, nil
	}
	results, err := f.o.Hooks.Block(ctx, HookStop, "", map[string]any{"stopHookActive": false})
	if ctx.Err() != nil {
		return loop.ContinueDecision{}, llm.Aborted(ctx)
	}
	if err != nil {
		f.log.Warn("Stop hook failed", "turn", st.turnID, "error", err)
		return loop.ContinueDecision{}, nil
	}
	b := firstBlock(results)
	if b == nil || b.Reason == "" {
		return loop.ContinueDecision{}, nil
	}
	st.stopHookUsed = true
	m := history.Message{Message: llm.UserMessage(b.Reason), Origin: history.SystemTriggerOrigin("stop_hook")}
	if err := f.appendMessage(ctx, m); err != nil {
		return loop.ContinueDecision{}, err
	}
	return loop.ContinueDecision{Continue: true}, nil
}

// flushSteers delivers the buffered input, in order, as user messages
// (spec 03 §1.8). It reports whether anything was buffered.
func (f *TurnFlow) flushSteers(ctx context.Context) (bool, error) {
	f.mu.Lock()
	items := f.steers
	f.steers = nil
	f.mu.Unlock()
	for i, it := range items {
		if err := f.appendUser(ctx, DegradePromptVideos(it.input), it.origin); err != nil {
			f.mu.Lock()
			f.steers = append(append([]bufferedIn(nil), items[i:]...), f.steers...) // not lost
			f.mu.Unlock()
			return false, err
		}
	}
	return len(items) > 0, nil
}

// firePostToolUse starts PostToolUse, or PostToolUseFailure for an error
// result, without waiting.
func (f *TurnFlow) firePostToolUse(c llm.ToolCall, args json.RawMessage, res loop.ToolResult) {
	if f.o.Hooks == nil {
		return
	}
	var input any = map[string]any{}
	if len(args) > 0 && args[0] == '{' {
		input = args
	}
	text := res.Output.Text()
	fields := map[string]any{"toolName": c.Name, "toolInput": input, "toolCallId": c.ID}
	hook := HookPostToolUse
	if res.IsError {
		hook = HookPostToolUseFailure
		fields["error"] = event.ErrorPayload{Code: event.CodeInternal, Message: text}
	} else {
		fields["toolOutput"] = runes.Prefix(text, postToolOutputLimit)
	}
	f.o.Hooks.Fire(hook, c.Name, fields)
}

// isTerminalGoalUpdate reports a successful UpdateGoal that completed or
// blocked the goal and stopped the turn: the model gets one more step to
// write its outcome.
func isTerminalGoalUpdate(c llm.ToolCall, args json.RawMessage, res loop.ToolResult) bool {
	if c.Name != "UpdateGoal" || res.IsError || !res.StopTurn {
		return false
	}
	var a struct {
		Status string `json:"status"`
	}
	if json.Unmarshal(args, &a) != nil {
		return false
	}
	return a.Status == "complete" || a.Status == "blocked"
}
