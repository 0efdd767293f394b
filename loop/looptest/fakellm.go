package looptest

import (
	"context"
	"fmt"
	"sync"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
)

// Delta is one live delta a scripted response streams before its parts.
// Exactly one field is set.
type Delta struct {
	Text     string
	Think    string
	ToolCall *loop.ToolCallDelta
}

// Response is one scripted answer of FakeLLM, used for one Chat call.
type Response struct {
	// OnCall runs first, with the call's ctx and params; tests use it to
	// cancel the turn at a given call.
	OnCall func(ctx context.Context, p loop.ChatParams)
	// Deltas are streamed through the live callbacks, even when Err is set.
	Deltas []Delta
	// Err is returned instead of a response, after the deltas.
	Err error
	// WaitForCancel blocks the call until ctx is done, then returns an
	// abort error: a stream cut by cancellation.
	WaitForCancel bool
	// Parts are delivered through OnTextPart / OnThinkPart in order; media
	// parts are skipped, as the real adapter does.
	Parts []llm.ContentPart
	// The rest is the ChatResponse.
	ToolCalls       []llm.ToolCall
	FinishReason    llm.FinishReason
	RawFinishReason string
	Usage           llm.TokenUsage
	MessageID       string
	TraceID         string
	Timing          *loop.StreamTiming
}

// Text returns a completed response with one text part.
func Text(s string) Response {
	return Response{Parts: []llm.ContentPart{llm.TextPart(s)}, FinishReason: llm.FinishCompleted, RawFinishReason: "stop"}
}

// Calls returns a tool_calls response with the given calls.
func Calls(calls ...llm.ToolCall) Response {
	return Response{ToolCalls: calls, FinishReason: llm.FinishToolCalls, RawFinishReason: "tool_calls"}
}

// Call returns a tool call.
func Call(id, name, args string) llm.ToolCall {
	return llm.ToolCall{ID: id, Name: name, Arguments: args}
}

// Fail returns a response that fails with err.
func Fail(err error) Response { return Response{Err: err} }

// WithUsage returns r with usage u.
func (r Response) WithUsage(u llm.TokenUsage) Response { r.Usage = u; return r }

// WithTrace returns r with trace id id.
func (r Response) WithTrace(id string) Response { r.TraceID = id; return r }

// WithFinish returns r with the given finish reasons.
func (r Response) WithFinish(f llm.FinishReason, raw string) Response {
	r.FinishReason, r.RawFinishReason = f, raw
	return r
}

// WithOnCall returns r with an OnCall hook.
func (r Response) WithOnCall(f func(ctx context.Context, p loop.ChatParams)) Response {
	r.OnCall = f
	return r
}

// FakeLLM is a loop.LLM that answers Chat calls from its script, one
// Response per call, and records every ChatParams it got. A call past the
// end of the script fails with a non-retryable error. It implements
// loop.RetryClassifier with llm.IsRetryable and loop.CapabilityReporter.
type FakeLLM struct {
	// Model and System are returned by ModelName and SystemPrompt.
	Model, System string
	// Cap is returned by Capability.
	Cap *llm.Capability

	mu     sync.Mutex
	script []Response        // guarded by mu
	calls  []loop.ChatParams // guarded by mu
}

// New returns a FakeLLM with the given script.
func New(script ...Response) *FakeLLM {
	return &FakeLLM{Model: "fake-model", script: script}
}

// Append adds responses to the script.
func (f *FakeLLM) Append(rs ...Response) {
	f.mu.Lock()
	f.script = append(f.script, rs...)
	f.mu.Unlock()
}

// Calls returns the params of every Chat call so far, in order.
func (f *FakeLLM) Calls() []loop.ChatParams {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]loop.ChatParams(nil), f.calls...)
}

// SystemPrompt implements loop.LLM.
func (f *FakeLLM) SystemPrompt() string { return f.System }

// ModelName implements loop.LLM.
func (f *FakeLLM) ModelName() string { return f.Model }

// Capability implements loop.CapabilityReporter.
func (f *FakeLLM) Capability() *llm.Capability { return f.Cap }

// IsRetryable implements loop.RetryClassifier.
func (f *FakeLLM) IsRetryable(err error) bool { return llm.IsRetryable(err) }

// Chat implements loop.LLM by playing the next scripted response.
func (f *FakeLLM) Chat(ctx context.Context, p loop.ChatParams) (loop.ChatResponse, error) {
	f.mu.Lock()
	n := len(f.calls)
	f.calls = append(f.calls, p)
	var r Response
	scripted := n < len(f.script)
	if scripted {
		r = f.script[n]
	}
	f.mu.Unlock()
	if !scripted {
		return loop.ChatResponse{}, fmt.Errorf("looptest: no scripted response for call %d", n+1)
	}
	if r.OnCall != nil {
		r.OnCall(ctx, p)
	}
	if ctx.Err() != nil {
		return loop.ChatResponse{}, llm.Aborted(ctx)
	}
	p.Trace.Capture(r.TraceID)
	streamDeltas(p, r.Deltas)
	if r.Err != nil {
		return loop.ChatResponse{}, r.Err
	}
	if r.WaitForCancel {
		<-ctx.Done()
		return loop.ChatResponse{}, llm.Aborted(ctx)
	}
	if err := deliverParts(p, r.Parts); err != nil {
		return loop.ChatResponse{}, err
	}
	return loop.ChatResponse{ToolCalls: r.ToolCalls, FinishReason: r.FinishReason, RawFinishReason: r.RawFinishReason,
		MessageID: r.MessageID, Usage: r.Usage, Timing: r.Timing, TraceID: r.TraceID}, nil
}

func streamDeltas(p loop.ChatParams, deltas []Delta) {
	for _, d := range deltas {
		switch {
		case d.ToolCall != nil && p.OnToolCallDelta != nil:
			p.OnToolCallDelta(*d.ToolCall)
		case d.Think != "" && p.OnThinkDelta != nil:
			p.OnThinkDelta(d.Think)
		case d.Text != "" && p.OnTextDelta != nil:
			p.OnTextDelta(d.Text)
		}
	}
}

func deliverParts(p loop.ChatParams, parts []llm.ContentPart) error {
	for _, part := range parts {
		var deliver func(llm.ContentPart) error
		switch part.Type {
		case llm.PartText:
			deliver = p.OnTextPart
		case llm.PartThink:
			deliver = p.OnThinkPart
		}
		if deliver == nil {
			continue
		}
		if err := deliver(part); err != nil {
			return err
		}
	}
	return nil
}

// WithoutRetry hides f's IsRetryable (and Capability): the loop then makes
// exactly one attempt per request.
func WithoutRetry(f *FakeLLM) loop.LLM { return plainLLM{f} }

type plainLLM struct{ f *FakeLLM }

func (p plainLLM) SystemPrompt() string { return p.f.SystemPrompt() }
func (p plainLLM) ModelName() string    { return p.f.ModelName() }
func (p plainLLM) Chat(ctx context.Context, cp loop.ChatParams) (loop.ChatResponse, error) {
	return p.f.Chat(ctx, cp)
}
