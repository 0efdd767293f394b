package loop

import (
	"encoding/json"

	"github.com/kimigo/kimigo/llm"
)

// EventType is an event's wire discriminator, written as the "type" key.
type EventType string

// Event types. The first five are recorded in the transcript; the rest are
// live-only.
const (
	TypeStepBegin   EventType = "step.begin"
	TypeContentPart EventType = "content.part"
	TypeToolCall    EventType = "tool.call"
	TypeToolResult  EventType = "tool.result"
	TypeStepEnd     EventType = "step.end"

	TypeTextDelta       EventType = "text.delta"
	TypeThinkingDelta   EventType = "thinking.delta"
	TypeToolCallDelta   EventType = "tool.call.delta"
	TypeToolProgress    EventType = "tool.progress"
	TypeStepRetrying    EventType = "step.retrying"
	TypeTurnInterrupted EventType = "turn.interrupted"
)

// Event is anything the loop publishes. It is sealed: every implementation
// is one of the *Event structs of this package, and each one is either a
// RecordedEvent or a LiveEvent.
//
// Every event marshals to one flat JSON object whose first key is "type",
// e.g. {"type":"step.begin","uuid":"…","turnId":"1","step":1}; the agent
// stores recorded events verbatim as the "event" of a
// context.append_loop_event record (spec 02 §6.4), and DecodeRecordedEvent
// reads them back.
type Event interface {
	EventType() EventType
	isEvent()
}

// RecordedEvent is written to the transcript before it is published.
type RecordedEvent interface {
	Event
	recorded()
}

// LiveEvent is published and never recorded.
type LiveEvent interface {
	Event
	live()
}

// StepBeginEvent opens a step, before its request is sent.
type StepBeginEvent struct {
	UUID   string `json:"uuid"`
	TurnID string `json:"turnId"`
	Step   int    `json:"step"`
}

// ContentPartEvent is one completed text or think block of a response.
type ContentPartEvent struct {
	UUID     string          `json:"uuid"`
	TurnID   string          `json:"turnId"`
	Step     int             `json:"step"`
	StepUUID string          `json:"stepUuid"`
	Part     llm.ContentPart `json:"part"`
}

// ToolCallEvent records a tool call before it runs. Its UUID is the
// provider's tool-call id.
type ToolCallEvent struct {
	UUID       string `json:"uuid"`
	TurnID     string `json:"turnId"`
	Step       int    `json:"step"`
	StepUUID   string `json:"stepUuid"`
	ToolCallID string `json:"toolCallId"`
	Name       string `json:"name"`
	// Args is the compact JSON of the arguments with the model's key
	// order; {} when they were empty or did not parse.
	Args json.RawMessage `json:"args"`
	// RawArgs is the model's argument text exactly as given, set only when
	// it did not parse as JSON.
	RawArgs     string          `json:"rawArgs,omitempty"`
	Description string          `json:"description,omitempty"`
	Display     Display         `json:"display,omitempty"`
	Extras      json.RawMessage `json:"extras,omitempty"`
	TraceID     string          `json:"traceId,omitempty"`
}

// ToolResultEvent records the normalised result of a call. Message and
// Brief of Result reach live sinks but are not persisted.
type ToolResultEvent struct {
	ParentUUID string     `json:"parentUuid"`
	ToolCallID string     `json:"toolCallId"`
	Result     ToolResult `json:"result"`
	TraceID    string     `json:"traceId,omitempty"`
}

// StepEndEvent seals a step. FinishReason is the loop's stop reason; the
// provider's own finish reasons appear only when they are surprising.
type StepEndEvent struct {
	UUID                   string           `json:"uuid"`
	TurnID                 string           `json:"turnId"`
	Step                   int              `json:"step"`
	Usage                  *llm.TokenUsage  `json:"usage,omitempty"`
	FinishReason           StopReason       `json:"finishReason,omitempty"`
	LLMFirstTokenLatencyMs *int64           `json:"llmFirstTokenLatencyMs,omitempty"`
	LLMStreamDurationMs    *int64           `json:"llmStreamDurationMs,omitempty"`
	LLMRequestBuildMs      *int64           `json:"llmRequestBuildMs,omitempty"`
	LLMServerFirstTokenMs  *int64           `json:"llmServerFirstTokenMs,omitempty"`
	LLMServerDecodeMs      *int64           `json:"llmServerDecodeMs,omitempty"`
	LLMClientConsumeMs     *int64           `json:"llmClientConsumeMs,omitempty"`
	ProviderFinishReason   llm.FinishReason `json:"providerFinishReason,omitempty"`
	RawFinishReason        string           `json:"rawFinishReason,omitempty"`
	MessageID              string           `json:"messageId,omitempty"`
	TraceID                string           `json:"traceId,omitempty"`
}

// TextDeltaEvent is streamed text.
type TextDeltaEvent struct {
	Delta string `json:"delta"`
}

// ThinkingDeltaEvent is streamed reasoning.
type ThinkingDeltaEvent struct {
	Delta string `json:"delta"`
}

// ToolCallDeltaEvent is a streamed piece of a tool call.
type ToolCallDeltaEvent struct {
	ToolCallID    string `json:"toolCallId"`
	Name          string `json:"name,omitempty"`
	ArgumentsPart string `json:"argumentsPart,omitempty"`
}

// ToolProgressEvent is progress of a running tool. It is published from the
// tool's goroutine.
type ToolProgressEvent struct {
	ToolCallID string         `json:"toolCallId"`
	Update     ProgressUpdate `json:"update"`
}

// StepRetryingEvent announces that a failed request will be tried again
// after DelayMs. UIs should drop the text streamed by the failed attempt.
type StepRetryingEvent struct {
	TurnID        string `json:"turnId"`
	Step          int    `json:"step"`
	StepUUID      string `json:"stepUuid"`
	FailedAttempt int    `json:"failedAttempt"`
	NextAttempt   int    `json:"nextAttempt"`
	MaxAttempts   int    `json:"maxAttempts"`
	DelayMs       int64  `json:"delayMs"`
	ErrorName     string `json:"errorName"`
	ErrorMessage  string `json:"errorMessage"`
	StatusCode    int    `json:"statusCode,omitempty"`
}

// InterruptReason says why a turn ended early.
type InterruptReason string

// Interrupt reasons. TurnInterruptedEvent.Reason is one of the first three;
// InterruptReason additionally separates a user's cancel.
const (
	InterruptAborted       InterruptReason = "aborted"
	InterruptMaxSteps      InterruptReason = "max_steps"
	InterruptError         InterruptReason = "error"
	InterruptUserCancelled InterruptReason = "user_cancelled"
)

// TurnInterruptedEvent is published once when a turn fails or is aborted.
type TurnInterruptedEvent struct {
	Reason         InterruptReason `json:"reason"`
	AttemptedSteps int             `json:"attemptedSteps"`
	// ActiveStep is the step that was running, if any.
	ActiveStep *int `json:"activeStep,omitempty"`
	// Message is the error text; absent for aborts.
	Message         string          `json:"message,omitempty"`
	InterruptReason InterruptReason `json:"interruptReason"`
	TraceID         string          `json:"traceId,omitempty"`
}

func (StepBeginEvent) isEvent()       {}
func (ContentPartEvent) isEvent()     {}
func (ToolCallEvent) isEvent()        {}
func (ToolResultEvent) isEvent()      {}
func (StepEndEvent) isEvent()         {}
func (TextDeltaEvent) isEvent()       {}
func (ThinkingDeltaEvent) isEvent()   {}
func (ToolCallDeltaEvent) isEvent()   {}
func (ToolProgressEvent) isEvent()    {}
func (StepRetryingEvent) isEvent()    {}
func (TurnInterruptedEvent) isEvent() {}

func (StepBeginEvent) recorded()   {}
func (ContentPartEvent) recorded() {}
func (ToolCallEvent) recorded()    {}
func (ToolResultEvent) recorded()  {}
func (StepEndEvent) recorded()     {}

func (TextDeltaEvent) live()       {}
func (ThinkingDeltaEvent) live()   {}
func (ToolCallDeltaEvent) live()   {}
func (ToolProgressEvent) live()    {}
func (StepRetryingEvent) live()    {}
func (TurnInterruptedEvent) live() {}

// EventType implementations.
func (StepBeginEvent) EventType() EventType       { return TypeStepBegin }
func (ContentPartEvent) EventType() EventType     { return TypeContentPart }
func (ToolCallEvent) EventType() EventType        { return TypeToolCall }
func (ToolResultEvent) EventType() EventType      { return TypeToolResult }
func (StepEndEvent) EventType() EventType         { return TypeStepEnd }
func (TextDeltaEvent) EventType() EventType       { return TypeTextDelta }
func (ThinkingDeltaEvent) EventType() EventType   { return TypeThinkingDelta }
func (ToolCallDeltaEvent) EventType() EventType   { return TypeToolCallDelta }
func (ToolProgressEvent) EventType() EventType    { return TypeToolProgress }
func (StepRetryingEvent) EventType() EventType    { return TypeStepRetrying }
func (TurnInterruptedEvent) EventType() EventType { return TypeTurnInterrupted }
