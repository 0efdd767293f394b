package loop

import (
	"context"
	"sync"

	"github.com/kimigo/kimigo/llm"
)

// LLM is the model as the loop sees it: one Chat call per request attempt.
// The host builds it (agent/turn adapts llm.Generate to it). Chat is called
// from the turn goroutine only, one call at a time.
//
// Two members of spec 01 §4.1 are optional and found by type assertion:
// CapabilityReporter and RetryClassifier. An LLM that does not implement
// RetryClassifier is never retried.
type LLM interface {
	// SystemPrompt is the system prompt the host sends with each request.
	SystemPrompt() string
	// ModelName is the model id, used in logs.
	ModelName() string
	// Chat sends one request and returns the assembled response. Before it
	// returns successfully it must have delivered every completed text and
	// think block, in content order, through p.OnTextPart / p.OnThinkPart,
	// and it must return the first error those callbacks return. On failure
	// or cancellation no part callback may fire. A cancelled ctx yields an
	// abort error (IsAbort).
	Chat(ctx context.Context, p ChatParams) (ChatResponse, error)
}

// CapabilityReporter is implemented by an LLM that knows what its model
// accepts. The loop only passes it through to hooks.
type CapabilityReporter interface {
	Capability() *llm.Capability
}

// RetryClassifier is implemented by an LLM whose failures may be retried.
// The agent's adapter answers with llm.IsRetryable.
type RetryClassifier interface {
	IsRetryable(err error) bool
}

// Projection names the history view a request was built from. The empty
// value is the normal view.
type Projection string

// Projections, in the order the fallback resends move through the media
// views (spec 01 §4.8). Strict is used once, for a structural 400.
const (
	ProjectionNormal        Projection = ""
	ProjectionStrict        Projection = "strict"
	ProjectionMediaDegraded Projection = "media-degraded"
	ProjectionMediaStripped Projection = "media-stripped"
)

// RequestKindLoop is the RequestLogFields.Kind of every request the loop
// sends; compaction requests use "compaction".
const RequestKindLoop = "loop"

// RequestLogFields is a telemetry side channel for one request attempt. It
// never reaches the wire.
type RequestLogFields struct {
	// TurnStep is "<turnId>.<step>".
	TurnStep string
	// Attempt is "<n>/<max>", set from the second attempt on.
	Attempt string
	// Kind is "loop" or "compaction".
	Kind string
	// Projection is the view the messages were built from; empty for the
	// normal view.
	Projection Projection
	// DroppedCount is for hosts whose builders drop messages; the loop
	// leaves it 0.
	DroppedCount int
}

// ToolCallDelta is a streamed piece of a tool call's arguments.
type ToolCallDelta struct {
	ToolCallID string
	Name       string
	// ArgumentsPart is the argument text of this delta; empty when the
	// provider streamed none.
	ArgumentsPart string
}

// ChatParams is one request. The callbacks are set by the loop and are
// called on the goroutine that runs Chat.
type ChatParams struct {
	// Messages were built by the host for this request.
	Messages []llm.Message
	// Tools is the step's tool table as definitions; empty, never nil.
	Tools []llm.Tool
	// RequestLogFields describes the attempt for logs and request records.
	RequestLogFields RequestLogFields

	// OnTextDelta, OnThinkDelta and OnToolCallDelta report streamed deltas
	// for live display only.
	OnTextDelta     func(delta string)
	OnThinkDelta    func(delta string)
	OnToolCallDelta func(d ToolCallDelta)
	// OnTextPart and OnThinkPart receive completed text and think blocks
	// in content order, before Chat returns; these are what the transcript
	// records. An error (a failed transcript write) must abort Chat with
	// that error.
	OnTextPart  func(p llm.ContentPart) error
	OnThinkPart func(p llm.ContentPart) error

	// Trace collects the attempt's trace id; the adapter calls Capture as
	// soon as response headers carry one.
	Trace *RequestTrace
}

// StreamTiming is latency telemetry of one successful response. Optional
// values are nil when the adapter could not measure them.
type StreamTiming struct {
	FirstTokenLatencyMs int64
	StreamDurationMs    int64
	RequestBuildMs      *int64
	ServerFirstTokenMs  *int64
	ServerDecodeMs      *int64
	ClientConsumeMs     *int64
}

// ChatResponse is an assembled response. Its content reached the loop
// through the part callbacks; media the model produced is not delivered.
type ChatResponse struct {
	// ToolCalls are fully assembled, in provider order.
	ToolCalls []llm.ToolCall
	// FinishReason is the normalised reason; FinishNone when the stream
	// ended without one.
	FinishReason    llm.FinishReason
	RawFinishReason string
	// MessageID is the provider's response id, or "".
	MessageID string
	// Usage is zero when the provider reported none.
	Usage llm.TokenUsage
	// Timing is nil when no part arrived.
	Timing *StreamTiming
	// TraceID is the provider trace id, or "".
	TraceID string
}

// RequestTrace holds the trace id of a step's current request attempt. The
// loop resets it before each attempt; the LLM captures the id. Its methods
// are safe for concurrent use.
type RequestTrace struct {
	mu      sync.Mutex
	traceID string // guarded by mu
}

// Capture records id as the current attempt's trace id; an empty id is
// ignored.
func (t *RequestTrace) Capture(id string) {
	if t == nil || id == "" {
		return
	}
	t.mu.Lock()
	t.traceID = id
	t.mu.Unlock()
}

// TraceID returns the captured trace id, or "".
func (t *RequestTrace) TraceID() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.traceID
}

func (t *RequestTrace) reset() {
	t.mu.Lock()
	t.traceID = ""
	t.mu.Unlock()
}
