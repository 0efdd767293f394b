package turn

import (
	"bytes"
	"encoding/json"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/plainjson"
	"github.com/kimigo/kimigo/loop"
)

// EventType names an event the agent publishes to its UIs (spec 03 §1.11).
// It is written as the event's "type" key.
type EventType string

// Event types. The agent's status event is declared by the agent, which
// owns it; every other event of a turn is declared here.
const (
	TypeTurnStarted     EventType = "turn.started"
	TypeStepStarted     EventType = "turn.step.started"
	TypeAssistantDelta  EventType = "assistant.delta"
	TypeThinkingDelta   EventType = "thinking.delta"
	TypeToolCallDelta   EventType = "tool.call.delta"
	TypeToolCallStarted EventType = "tool.call.started"
	TypeToolProgress    EventType = "tool.progress"
	TypeToolResult      EventType = "tool.result"
	TypeStepCompleted   EventType = "turn.step.completed"
	TypeStepRetrying    EventType = "turn.step.retrying"
	TypeStepInterrupted EventType = "turn.step.interrupted"
	TypeTurnEnded       EventType = "turn.ended"
	TypeError           EventType = "error"
	TypeHookResult      EventType = "hook.result"
	TypeAgentStatus     EventType = "agent.status.updated"
)

// Event is what the agent publishes: one of the *Event structs of this
// package, or the agent's own status event. Every event marshals to one JSON
// object whose first key is "type".
type Event interface {
	EventType() EventType
}

// EventSink receives the agent's events. Publish is called synchronously on
// the goroutine that produced the event (the turn worker, a tool goroutine
// for progress, the caller of Prompt for a busy error), with no lock held;
// it must be safe for concurrent use and must not block for long.
type EventSink interface {
	Publish(ev Event)
}

// EventFunc adapts a function to an EventSink.
type EventFunc func(Event)

// Publish calls f.
func (f EventFunc) Publish(ev Event) { f(ev) }

// TurnEndReason says how a turn ended.
type TurnEndReason string

// Turn end reasons.
const (
	EndCompleted TurnEndReason = "completed"
	EndCancelled TurnEndReason = "cancelled"
	EndFailed    TurnEndReason = "failed"
	EndBlocked   TurnEndReason = "blocked"
)

// TurnStartedEvent opens a turn; every other event of the turn follows it.
type TurnStartedEvent struct {
	TurnID int             `json:"turnId"`
	Origin *history.Origin `json:"origin,omitempty"`
}

// StepStartedEvent opens a step (the loop's step.begin).
type StepStartedEvent struct {
	TurnID int    `json:"turnId"`
	Step   int    `json:"step"`
	StepID string `json:"stepId"`
}

// AssistantDeltaEvent is streamed answer text.
type AssistantDeltaEvent struct {
	TurnID int    `json:"turnId"`
	Delta  string `json:"delta"`
}

// ThinkingDeltaEvent is streamed reasoning.
type ThinkingDeltaEvent struct {
	TurnID int    `json:"turnId"`
	Delta  string `json:"delta"`
}

// ToolCallDeltaEvent is a streamed piece of a tool call.
type ToolCallDeltaEvent struct {
	TurnID        int    `json:"turnId"`
	ToolCallID    string `json:"toolCallId"`
	Name          string `json:"name,omitempty"`
	ArgumentsPart string `json:"argumentsPart,omitempty"`
}

// ToolCallStartedEvent is a recorded tool call (the loop's tool.call).
type ToolCallStartedEvent struct {
	TurnID      int             `json:"turnId"`
	ToolCallID  string          `json:"toolCallId"`
	Name        string          `json:"name"`
	Args        json.RawMessage `json:"args"`
	Description string          `json:"description,omitempty"`
	Display     loop.Display    `json:"display,omitempty"`
}

// ToolProgressEvent is progress of a running tool.
type ToolProgressEvent struct {
	TurnID     int                 `json:"turnId"`
	ToolCallID string              `json:"toolCallId"`
	Update     loop.ProgressUpdate `json:"update"`
}

// ToolResultEvent is a recorded tool result. Output is the raw output; UIs
// style failures from IsError.
type ToolResultEvent struct {
	TurnID     int         `json:"turnId"`
	ToolCallID string      `json:"toolCallId"`
	Output     loop.Output `json:"output"`
	IsError    bool        `json:"isError,omitempty"`
	// Message and Brief are the tool's UI-only summaries.
	Message string `json:"message,omitempty"`
	Brief   string `json:"brief,omitempty"`
}

// StepCompletedEvent seals a step (the loop's step.end).
type StepCompletedEvent struct {
	TurnID                 int              `json:"turnId"`
	Step                   int              `json:"step"`
	StepID                 string           `json:"stepId"`
	Usage                  *llm.TokenUsage  `json:"usage,omitempty"`
	FinishReason           loop.StopReason  `json:"finishReason,omitempty"`
	LLMFirstTokenLatencyMs *int64           `json:"llmFirstTokenLatencyMs,omitempty"`
	LLMStreamDurationMs    *int64           `json:"llmStreamDurationMs,omitempty"`
	LLMRequestBuildMs      *int64           `json:"llmRequestBuildMs,omitempty"`
	LLMServerFirstTokenMs  *int64           `json:"llmServerFirstTokenMs,omitempty"`
	LLMServerDecodeMs      *int64           `json:"llmServerDecodeMs,omitempty"`
	LLMClientConsumeMs     *int64           `json:"llmClientConsumeMs,omitempty"`
	ProviderFinishReason   llm.FinishReason `json:"providerFinishReason,omitempty"`
	RawFinishReason        string           `json:"rawFinishReason,omitempty"`
}

// StepRetryingEvent announces a retry of the step's request; UIs drop the
// text the failed attempt streamed.
type StepRetryingEvent struct {
	TurnID        int    `json:"turnId"`
	Step          int    `json:"step"`
	StepID        string `json:"stepId"`
	FailedAttempt int    `json:"failedAttempt"`
	NextAttempt   int    `json:"nextAttempt"`
	MaxAttempts   int    `json:"maxAttempts"`
	DelayMs       int64  `json:"delayMs"`
	ErrorName     string `json:"errorName"`
	ErrorMessage  string `json:"errorMessage"`
	StatusCode    int    `json:"statusCode,omitempty"`
}

// StepInterruptedEvent reports the step a cancelled or failed run stopped
// in.
type StepInterruptedEvent struct {
	TurnID  int                  `json:"turnId"`
	Step    int                  `json:"step"`
	Reason  loop.InterruptReason `json:"reason"`
	Message string               `json:"message,omitempty"`
}

// TurnEndedEvent closes a turn. Only the turn's error event may follow it.
type TurnEndedEvent struct {
	TurnID     int           `json:"turnId"`
	Reason     TurnEndReason `json:"reason"`
	Error      *ErrorPayload `json:"error,omitempty"`
	DurationMs int64         `json:"durationMs"`
}

// ErrorEvent reports an error to the user.
type ErrorEvent struct {
	ErrorPayload
}

// HookResultEvent reports what a UserPromptSubmit hook added or blocked.
type HookResultEvent struct {
	TurnID    int       `json:"turnId"`
	HookEvent HookEvent `json:"hookEvent"`
	Content   string    `json:"content"`
	Blocked   bool      `json:"blocked,omitempty"`
}

// EventType implementations.
func (TurnStartedEvent) EventType() EventType     { return TypeTurnStarted }
func (StepStartedEvent) EventType() EventType     { return TypeStepStarted }
func (AssistantDeltaEvent) EventType() EventType  { return TypeAssistantDelta }
func (ThinkingDeltaEvent) EventType() EventType   { return TypeThinkingDelta }
func (ToolCallDeltaEvent) EventType() EventType   { return TypeToolCallDelta }
func (ToolCallStartedEvent) EventType() EventType { return TypeToolCallStarted }
func (ToolProgressEvent) EventType() EventType    { return TypeToolProgress }
func (ToolResultEvent) EventType() EventType      { return TypeToolResult }
func (StepCompletedEvent) EventType() EventType   { return TypeStepCompleted }
func (StepRetryingEvent) EventType() EventType    { return TypeStepRetrying }
func (StepInterruptedEvent) EventType() EventType { return TypeStepInterrupted }
func (TurnEndedEvent) EventType() EventType       { return TypeTurnEnded }
func (ErrorEvent) EventType() EventType           { return TypeError }
func (HookResultEvent) EventType() EventType      { return TypeHookResult }

// MarshalEvent encodes ev as one JSON object whose first key is "type",
// followed by the event's own fields, without HTML escaping.
func MarshalEvent(ev Event) ([]byte, error) {
	body, err := plainjson.Marshal(ev)
	if err != nil {
		return nil, err
	}
	typ, err := json.Marshal(string(ev.EventType()))
	if err != nil {
		return nil, err
	}
	out := append([]byte(`{"type":`), typ...)
	if inner := bytes.TrimSpace(body[1 : len(body)-1]); len(inner) > 0 {
		out = append(out, ',')
		out = append(out, inner...)
	}
	return append(out, '}'), nil
}
