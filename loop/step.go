package loop

import (
	"context"
	"errors"
	"fmt"

	"github.com/kimigo/kimigo/llm"
)

// stepState is what one step's parts share.
type stepState struct {
	n     int
	uuid  string
	trace *RequestTrace
	tools []ExecutableTool
	defs  []llm.Tool
}

// lookup finds a tool and its definition by exact name; the first match
// wins.
func (s *stepState) lookup(name string) (ExecutableTool, llm.Tool, bool) {
	for i, d := range s.defs {
		if d.Name == name {
			return s.tools[i], d, true
		}
	}
	return nil, llm.Tool{}, false
}

type stepResult struct {
	usage                      llm.TokenUsage
	stop                       StopReason
	degradedUsed, strippedUsed bool
}

// step runs one step in the order of spec 01 §4.6.
func (t *turn) step(ctx context.Context, n int, proj Projection) (stepResult, error) {
	s, msgs, err := t.openStep(ctx, n, proj) // 1–7
	if err != nil {
		return stepResult{}, err
	}
	resp, used, err := t.chat(ctx, s, msgs, proj) // 8–9
	if err != nil {
		return stepResult{}, err
	}
	t.usage = t.usage.Add(resp.Usage) // 10: counted before any tool runs
	usageStop := false
	if f := t.in.RecordStepUsage; f != nil {
		if usageStop, err = f(ctx, resp.Usage); err != nil {
			return stepResult{}, err
		}
	}
	stop := deriveStopReason(resp.FinishReason, len(resp.ToolCalls) > 0) // 11
	effective := stop
	switch {
	case stop == StopToolUse && usageStop:
		effective = StopEndTurn
	case stop == StopToolUse: // 12
		batchStop, err := t.runBatch(ctx, s, resp.ToolCalls)
		if err != nil {
			return stepResult{}, err
		}
		if batchStop {
			effective = StopEndTurn
		}
	case leavesCallsUnexecuted(stop) && len(resp.ToolCalls) > 0: // 12′
		if err := t.recordUnexecuted(s, resp.ToolCalls); err != nil {
			return stepResult{}, err
		}
	}
	if ctx.Err() != nil { // 13: the step stays open
		return stepResult{}, abortErr(ctx)
	}
	if err := t.record(t.stepEnd(s, resp, stop, effective)); err != nil { // 14
		return stepResult{}, err
	}
	t.logTiming(s, resp) // 15
	afterStop := t.afterStep(ctx, s, resp.Usage, effective)
	final := effective
	if (usageStop || afterStop) && effective == StopToolUse {
		final = StopEndTurn
	}
	return stepResult{usage: resp.Usage, stop: final, degradedUsed: used.degraded, strippedUsed: used.stripped}, nil
}

// openStep runs BeforeStep, builds the tool table and the messages, and
// opens the step envelope.
func (t *turn) openStep(ctx context.Context, n int, proj Projection) (*stepState, []llm.Message, error) {
	if h := t.in.Hooks.BeforeStep; h != nil {
		r, err := h(ctx, t.stepCtx(n))
		if err != nil {
			return nil, nil, err
		}
		if r.Block {
			if r.Reason != "" {
				return nil, nil, errors.New(r.Reason)
			}
			//lint:ignore ST1005 the wording is pinned by spec 01 §4.6
			return nil, nil, fmt.Errorf("Step %d was blocked", n)
		}
	}
	if ctx.Err() != nil {
		return nil, nil, abortErr(ctx)
	}
	s := &stepState{n: n, trace: &RequestTrace{}}
	if err := t.loadTools(ctx, s); err != nil {
		return nil, nil, err
	}
	msgs, err := t.builder(proj)(ctx)
	if err != nil {
		return nil, nil, err
	}
	if ctx.Err() != nil {
		return nil, nil, abortErr(ctx)
	}
	s.uuid = t.opt.NewUUID()
	t.trace = s.trace
	if err := t.record(StepBeginEvent{UUID: s.uuid, TurnID: t.in.TurnID, Step: n}); err != nil {
		return nil, nil, err
	}
	if f := t.in.OnRequestTrace; f != nil {
		f(s.trace)
	}
	return s, msgs, nil
}

func (t *turn) loadTools(ctx context.Context, s *stepState) error {
	s.tools = t.in.Tools
	if t.in.BuildTools != nil {
		tools, err := t.in.BuildTools(ctx)
		if err != nil {
			return err
		}
		s.tools = tools
	}
	s.defs = make([]llm.Tool, len(s.tools))
	for i, tool := range s.tools {
		s.defs[i] = tool.Definition()
	}
	return nil
}

func (t *turn) stepEnd(s *stepState, resp ChatResponse, stop, effective StopReason) StepEndEvent {
	usage := resp.Usage
	ev := StepEndEvent{UUID: s.uuid, TurnID: t.in.TurnID, Step: s.n, Usage: &usage,
		FinishReason: effective, MessageID: resp.MessageID, TraceID: s.trace.TraceID()}
	if !unsurprising(resp.FinishReason, stop) {
		ev.ProviderFinishReason = resp.FinishReason
		ev.RawFinishReason = resp.RawFinishReason
	}
	if tm := resp.Timing; tm != nil {
		first, dur := tm.FirstTokenLatencyMs, tm.StreamDurationMs
		ev.LLMFirstTokenLatencyMs, ev.LLMStreamDurationMs = &first, &dur
		ev.LLMRequestBuildMs, ev.LLMServerFirstTokenMs = tm.RequestBuildMs, tm.ServerFirstTokenMs
		ev.LLMServerDecodeMs, ev.LLMClientConsumeMs = tm.ServerDecodeMs, tm.ClientConsumeMs
	}
	return ev
}

func (t *turn) logTiming(s *stepState, resp ChatResponse) {
	if resp.Timing == nil {
		return
	}
	t.log.Debug("step timing", "turn", t.in.TurnID, "step", s.n,
		"first_token_ms", resp.Timing.FirstTokenLatencyMs, "stream_ms", resp.Timing.StreamDurationMs)
}

// afterStep runs the AfterStep hook; the step is sealed, so its errors are
// only logged.
func (t *turn) afterStep(ctx context.Context, s *stepState, usage llm.TokenUsage, stop StopReason) bool {
	h := t.in.Hooks.AfterStep
	if h == nil {
		return false
	}
	r, err := h(ctx, StepEndCtx{StepCtx: t.stepCtx(s.n), Usage: usage, StopReason: stop})
	if err != nil {
		t.log.Warn("after-step hook failed", "turn", t.in.TurnID, "step", s.n, "error", err)
		return false
	}
	return r.StopTurn
}

// chatParams wires the streaming callbacks of a step to its events.
func (t *turn) chatParams(s *stepState, msgs []llm.Message) ChatParams {
	onPart := func(p llm.ContentPart) error {
		return t.record(ContentPartEvent{UUID: t.opt.NewUUID(), TurnID: t.in.TurnID, Step: s.n,
			StepUUID: s.uuid, Part: p})
	}
	return ChatParams{
		Messages:        msgs,
		Tools:           s.defs,
		OnTextDelta:     func(d string) { t.d.Emit(TextDeltaEvent{Delta: d}) },
		OnThinkDelta:    func(d string) { t.d.Emit(ThinkingDeltaEvent{Delta: d}) },
		OnToolCallDelta: func(d ToolCallDelta) { t.d.Emit(ToolCallDeltaEvent(d)) },
		OnTextPart:      onPart,
		OnThinkPart:     onPart,
		Trace:           s.trace,
	}
}
