package llm

import (
	"context"
	"encoding/json"
)

// Provider sends one request to a model service and streams the answer.
// Implementations are immutable: the With* methods return copies that share
// the HTTP client (and any learned wire dialect) with the original.
// All methods are safe for concurrent use.
type Provider interface {
	// Name is the wire family: "kimi", "openai", "anthropic", "scripted", …
	Name() string
	// ModelName is the model id sent on the wire.
	ModelName() string
	// ThinkingEffort is "off", "on", a concrete effort, or "" when unset.
	ThinkingEffort() string
	// MaxCompletionTokens is the cap this instance sends, or 0 for none.
	MaxCompletionTokens() int
	// WithThinking returns a copy with a resolved effort ("off", "on" or a
	// model-declared effort string).
	WithThinking(effort string) Provider
	// WithMaxCompletionTokens returns a copy with a completion cap clamped
	// against the context budget.
	WithMaxCompletionTokens(n int, budget ContextBudget) Provider
	// Generate builds and sends one request. It returns as soon as the
	// response headers arrive; the caller owns the Stream and must Close
	// it. A failure is an *Error (or an abort, see IsAbort) and the request
	// was not retried behind the caller's back.
	Generate(ctx context.Context, req *Request) (Stream, error)
}

// ContextBudget tells a provider how much of the window is in use, so it can
// clamp a completion cap. Zero values mean unknown.
type ContextBudget struct {
	UsedContextTokens int
	MaxContextTokens  int
}

// Request is everything one provider call needs.
type Request struct {
	// System is the system prompt; empty means none.
	System string
	// Tools are offered to the model. Deferred tools are removed by
	// Generate before the provider sees them.
	Tools []Tool
	// Messages is the conversation, already projected for the wire.
	Messages []Message
	// Auth overrides the constructor's key and headers for this request.
	Auth *Auth
	// ResponseFormat requests structured output; nil means free text.
	ResponseFormat *ResponseFormat
	// OnRequestSent is called right before the network call, if set.
	OnRequestSent func()
}

// Auth is per-request credentials, resolved by the host right before a
// request. Headers override the constructor's headers.
type Auth struct {
	APIKey  string
	Headers map[string]string
}

// ResponseFormat asks for JSON output.
type ResponseFormat struct {
	// Type is "json_object" or "json_schema".
	Type        string
	Name        string
	Schema      json.RawMessage
	Strict      *bool
	Description string
}

// PartKind tags a StreamPart.
type PartKind uint8

// Stream part kinds.
const (
	// KindContent carries a ContentPart (text, think or media).
	KindContent PartKind = iota
	// KindToolCall starts a tool call.
	KindToolCall
	// KindToolCallPart carries an argument delta for a tool call.
	KindToolCallPart
)

// StreamPart is one piece of a streamed response. Providers translate their
// native "block done" signals into this shape; there is no "done" part.
type StreamPart struct {
	Kind PartKind
	// Content is set for KindContent.
	Content ContentPart
	// ToolCall is set for KindToolCall.
	ToolCall ToolCall
	// ArgumentsPart is the delta of a KindToolCallPart; empty appends
	// nothing.
	ArgumentsPart string
	// Index routes parallel streamed deltas to their call (Chat Completions
	// index, Anthropic block index). It is meaningful only when Indexed.
	Index   int
	Indexed bool
}

// ContentStreamPart wraps a content part.
func ContentStreamPart(p ContentPart) StreamPart { return StreamPart{Kind: KindContent, Content: p} }

// Stream is a pull iterator over a response. Next returns io.EOF at the clean
// end; any other error is an *Error or an abort. The accessors are complete
// after Next has returned io.EOF; TraceID is available at once.
// A Stream is used from one goroutine; Close may be called at any time and
// more than once.
type Stream interface {
	Next() (StreamPart, error)
	Close() error
	// ID is the provider's response id, or "".
	ID() string
	// Usage is the reported usage and whether any was reported.
	Usage() (TokenUsage, bool)
	// FinishReason is the normalised reason, FinishNone when none arrived.
	FinishReason() FinishReason
	// RawFinishReason is the provider's own spelling, or "".
	RawFinishReason() string
	// TraceID is the provider trace id (Kimi x-trace-id), or "".
	TraceID() string
}
