package turn

import (
	"context"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/loop"
)

// dispatcher is a run's loop dispatcher: every recorded event is committed
// as context.append_loop_event, so the records and history move in
// lockstep, and then published as the agent's event (spec 03 §1.11).
func (f *TurnFlow) dispatcher(st *turnState) loop.Dispatcher {
	return loop.NewDispatcher(
		func(ctx context.Context, ev loop.RecordedEvent) error {
			err := f.o.Commit.Commit(ctx, records.Type(history.TypeAppendLoopEvent), history.AppendLoopEventRecord{Event: ev})
			if err != nil {
				return err
			}
			if _, ok := ev.(loop.ToolCallEvent); ok {
				return f.flush(ctx) // durable before the tool runs
			}
			return nil
		},
		func(ev loop.Event) error {
			f.forward(st, ev)
			return nil
		})
}

// forward maps a loop event to the agent's event and resolves the turn's
// first-request signal.
func (f *TurnFlow) forward(st *turnState, ev loop.Event) {
	id := st.turnID
	var out event.Event
	first := true
	switch e := ev.(type) {
	case loop.StepBeginEvent:
		out, first = event.StepStarted{Header: event.InTurn(id), Step: e.Step, StepID: e.UUID}, false
	case loop.ContentPartEvent:
	case loop.ToolCallEvent:
		out = event.ToolCallStarted{Header: event.InTurn(id), ToolCallID: e.ToolCallID, Name: e.Name, Args: e.Args,
			Description: e.Description, Display: e.Display}
	case loop.ToolResultEvent:
		out, first = event.ToolResult{Header: event.InTurn(id), ToolCallID: e.ToolCallID, Output: e.Result.Output,
			IsError: e.Result.IsError, Message: e.Result.Message, Brief: e.Result.Brief}, false
	case loop.StepEndEvent:
		out = event.StepCompleted{Header: event.InTurn(id), Step: e.Step, StepID: e.UUID, Usage: e.Usage, FinishReason: e.FinishReason,
			LLMFirstTokenLatencyMs: e.LLMFirstTokenLatencyMs, LLMStreamDurationMs: e.LLMStreamDurationMs,
			LLMRequestBuildMs: e.LLMRequestBuildMs, LLMServerFirstTokenMs: e.LLMServerFirstTokenMs,
			LLMServerDecodeMs: e.LLMServerDecodeMs, LLMClientConsumeMs: e.LLMClientConsumeMs,
			ProviderFinishReason: e.ProviderFinishReason, RawFinishReason: e.RawFinishReason}
	case loop.StepRetryingEvent:
		out, first = event.StepRetrying{Header: event.InTurn(id), Step: e.Step, StepID: e.StepUUID, FailedAttempt: e.FailedAttempt,
			NextAttempt: e.NextAttempt, MaxAttempts: e.MaxAttempts, DelayMs: e.DelayMs, ErrorName: e.ErrorName,
			ErrorMessage: e.ErrorMessage, StatusCode: e.StatusCode}, false
	case loop.TurnInterruptedEvent:
		first = false
		if e.ActiveStep != nil {
			out = event.StepInterrupted{Header: event.InTurn(id), Step: *e.ActiveStep, Reason: e.Reason, Message: e.Message}
		}
	case loop.TextDeltaEvent:
		out = event.AssistantDelta{Header: event.InTurn(id), Delta: e.Delta}
	case loop.ThinkingDeltaEvent:
		out = event.ThinkingDelta{Header: event.InTurn(id), Delta: e.Delta}
	case loop.ToolCallDeltaEvent:
		out = event.ToolCallDelta{Header: event.InTurn(id), ToolCallID: e.ToolCallID, Name: e.Name, ArgumentsPart: e.ArgumentsPart}
	case loop.ToolProgressEvent:
		out, first = event.ToolProgress{Header: event.InTurn(id), ToolCallID: e.ToolCallID, Update: e.Update}, false
	default:
		first = false
	}
	if out != nil {
		f.emit(out)
	}
	if first {
		st.t.first.resolve()
	}
}
