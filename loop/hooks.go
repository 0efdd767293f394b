package loop

import (
	"context"
	"encoding/json"

	"github.com/kimigo/kimigo/llm"
)

// Hooks let the host steer a turn at fixed points (spec 01 §4.12); a nil
// field is absent. They run on the turn goroutine, one call at a time; the
// tool hooks run in provider order. Every hook receives the turn's ctx.
type Hooks struct {
	// BeforeStep runs first in each step, before step.begin. Block fails the
	// turn with Reason; an error fails the turn (an abort aborts it).
	BeforeStep func(ctx context.Context, h StepCtx) (BeforeStepResult, error)
	// PrepareToolExecution runs for each schema-valid call before its
	// tool.call. It may replace the arguments, block the call or answer it
	// with a synthetic result. An error becomes the call's error result.
	PrepareToolExecution func(ctx context.Context, h ToolCtx) (Preparation, error)
	// AuthorizeToolExecution runs after ResolveExecution (h.Execution is
	// set) and before tool.call. An error blocks the call.
	AuthorizeToolExecution func(ctx context.Context, h ToolCtx) (Authorization, error)
	// FinalizeToolResult runs for every call, in provider order, before its
	// tool.result. A non-nil result replaces the call's result (StopTurn is
	// or-ed). An error replaces the result with an error that hides the raw
	// output.
	FinalizeToolResult func(ctx context.Context, h ResultCtx) (*ToolResult, error)
	// AfterStep runs after step.end. StopTurn turns a tool_use step into
	// end_turn. Its errors are logged and ignored: the step is sealed.
	AfterStep func(ctx context.Context, h StepEndCtx) (AfterStepResult, error)
	// ShouldContinueAfterStop runs after every step that did not end with
	// tool_use. Continue starts another step; an error fails the turn.
	ShouldContinueAfterStop func(ctx context.Context, h StepEndCtx) (ContinueDecision, error)
}

// StepCtx describes the step a hook runs in.
type StepCtx struct {
	TurnID     string
	StepNumber int
	LLM        LLM
}

// StepEndCtx describes a finished step.
type StepEndCtx struct {
	StepCtx
	// Usage is the step's usage.
	Usage llm.TokenUsage
	// StopReason is the step's effective stop reason.
	StopReason StopReason
}

// ToolCtx describes one tool call being prepared or authorised.
type ToolCtx struct {
	StepCtx
	// TraceID is the trace id of the response that requested the call.
	TraceID string
	// ToolCall is the call as the model sent it.
	ToolCall llm.ToolCall
	// ToolCalls is the whole batch, in provider order.
	ToolCalls []llm.ToolCall
	// Tool is the tool the call resolved to.
	Tool ExecutableTool
	// Args are the call's effective arguments (compact JSON).
	Args json.RawMessage
	// Execution is set for AuthorizeToolExecution only.
	Execution *Execution
}

// ResultCtx describes a settled tool call.
type ResultCtx struct {
	StepCtx
	TraceID   string
	ToolCall  llm.ToolCall
	ToolCalls []llm.ToolCall
	Args      json.RawMessage
	// Result is the call's result before normalisation.
	Result ToolResult
}

// BeforeStepResult is BeforeStep's verdict.
type BeforeStepResult struct {
	// Block fails the turn with Reason (or "Step <n> was blocked").
	Block  bool
	Reason string
}

// Preparation is PrepareToolExecution's verdict; the zero value lets the
// call proceed unchanged.
type Preparation struct {
	// UpdatedArgs, when non-nil, replace the arguments; they are validated
	// again against the tool's schema.
	UpdatedArgs json.RawMessage
	// Block answers the call with an error result Reason (or
	// `Tool call "<name>" was blocked`).
	Block  bool
	Reason string
	// SyntheticResult answers the call without executing it.
	SyntheticResult *ToolResult
	// ExecutionMetadata reaches ExecCtx.Metadata unless authorisation
	// supplies its own.
	ExecutionMetadata any
}

// Authorization is AuthorizeToolExecution's verdict; the zero value allows
// the call.
type Authorization struct {
	Block             bool
	Reason            string
	SyntheticResult   *ToolResult
	ExecutionMetadata any
}

// AfterStepResult is AfterStep's verdict.
type AfterStepResult struct {
	StopTurn bool
}

// ContinueDecision is ShouldContinueAfterStop's verdict.
type ContinueDecision struct {
	Continue bool
}
