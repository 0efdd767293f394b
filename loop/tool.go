package loop

import (
	"context"
	"encoding/json"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/plainjson"
)

// ExecutableTool is a tool the loop can run. It is the one tool contract of
// kimigo: built-in, user and MCP tools implement it directly.
type ExecutableTool interface {
	// Definition is what the model is offered. Its Parameters schema is
	// the contract the loop validates arguments against.
	Definition() llm.Tool
	// ResolveExecution checks args (already schema-valid) and declares
	// what the call will touch; it has no side effects. Exactly one of the
	// first two results is set (an Execution is set when its Execute is
	// non-nil), unless err is non-nil. An error that implements
	// VerbatimError reaches the model as its own message.
	ResolveExecution(args json.RawMessage) (Execution, *ToolResult, error)
}

// VerbatimError is implemented by ResolveExecution errors whose message the
// model should read as is, such as a path outside the allowed roots. Other
// errors are wrapped as `Tool "<name>" failed to resolve execution: …`.
type VerbatimError interface {
	error
	Verbatim() bool
}

// Execution is a resolved, runnable tool call.
type Execution struct {
	// Accesses feed the scheduler (see Conflict). Nil means All(): the call
	// runs alone. A non-nil empty list (None()) conflicts with nothing.
	Accesses []Access
	// Display is an optional structured rendering of the call.
	Display Display
	// Description is a one-line label such as "Reading a.go"; "" is none.
	Description string
	// StopBatchAfterThis skips the remaining calls of the response and
	// ends the turn after this batch.
	StopBatchAfterThis bool
	// ApprovalRule is the literal permission rule this exact call matches.
	ApprovalRule string
	// MatchesRule matches the argument part of a permission rule; nil
	// means a rule with arguments never matches.
	MatchesRule func(ruleArgs string) bool
	// Execute does the work. It runs on its own goroutine and must return
	// soon after ctx is done; the loop waits 2 s and then records a grace
	// timeout. A returned error becomes an error result for the model.
	Execute func(ctx context.Context, ec ExecCtx) (ToolResult, error)
}

// ExecCtx is what a call gets besides its arguments. There is no working
// directory or environment here: a tool receives those when it is built.
type ExecCtx struct {
	TurnID     string
	ToolCallID string
	// TraceID is the trace id of the response that requested the call.
	TraceID string
	// Metadata is the opaque value the host's hooks attached.
	Metadata any
	// OnUpdate publishes progress as a tool.progress event; it is never
	// nil, may be called from any goroutine, and is ignored after the turn
	// was cancelled.
	OnUpdate func(ProgressUpdate)
	// OnForegroundTaskStart reports a foreground process task; never nil.
	OnForegroundTaskStart func(taskID string)
}

// ProgressKind classifies a progress update.
type ProgressKind string

// Progress kinds.
const (
	ProgressStdout   ProgressKind = "stdout"
	ProgressStderr   ProgressKind = "stderr"
	ProgressProgress ProgressKind = "progress"
	ProgressStatus   ProgressKind = "status"
	ProgressCustom   ProgressKind = "custom"
)

// ProgressUpdate is one progress report of a running tool.
type ProgressUpdate struct {
	Kind       ProgressKind `json:"kind"`
	Text       string       `json:"text,omitempty"`
	Percent    *float64     `json:"percent,omitempty"`
	CustomKind string       `json:"customKind,omitempty"`
	CustomData any          `json:"customData,omitempty"`
}

// ToolResult is the outcome of one tool call. Only Output, IsError, Note and
// Truncated are persisted (see MarshalJSON); Message and Brief are for UIs
// and StopTurn is for the loop.
type ToolResult struct {
	// Output is the data for the model: text or content parts.
	Output Output
	// IsError is the host's verdict; the model sees an error prefix.
	IsError bool
	// Note is a model-only side channel appended at projection time.
	Note string
	// Truncated says the tool already cut the output.
	Truncated bool
	// Message is a UI-only summary; never persisted.
	Message string
	// Brief is a UI-only one-liner; never persisted.
	Brief string
	// StopTurn ends the turn after this batch; never persisted.
	StopTurn bool
}

// ErrorResult returns an error result with text output.
func ErrorResult(text string) ToolResult {
	return ToolResult{Output: TextOutput(text), IsError: true}
}

// TextResult returns a successful result with text output.
func TextResult(text string) ToolResult { return ToolResult{Output: TextOutput(text)} }

type toolResultJSON struct {
	Output    Output `json:"output"`
	IsError   bool   `json:"isError,omitempty"`
	Note      string `json:"note,omitempty"`
	Truncated bool   `json:"truncated,omitempty"`
}

// MarshalJSON writes the persisted shape
// {"output":…,"isError":true?,"note":…?,"truncated":true?}.
func (r ToolResult) MarshalJSON() ([]byte, error) {
	return plainjson.Marshal(toolResultJSON{Output: r.Output, IsError: r.IsError, Note: r.Note, Truncated: r.Truncated})
}

// UnmarshalJSON reads the persisted shape.
func (r *ToolResult) UnmarshalJSON(data []byte) error {
	var v toolResultJSON
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*r = ToolResult{Output: v.Output, IsError: v.IsError, Note: v.Note, Truncated: v.Truncated}
	return nil
}
