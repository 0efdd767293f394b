package loop_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/loop/looptest"
)

func TestSL1SingleStep(t *testing.T) {
	h := newHarness(t, looptest.Text("hi").WithUsage(usage(7, 5, 0, 0)))
	res := h.mustRun(t.Context())

	if d := cmp.Diff(loop.TurnResult{StopReason: loop.StopEndTurn, Steps: 1, Usage: usage(7, 5, 0, 0)}, res); d != "" {
		t.Errorf("result (-want +got):\n%s", d)
	}
	u := usage(7, 5, 0, 0)
	want := []loop.RecordedEvent{
		loop.StepBeginEvent{UUID: "uuid-1", TurnID: "turn-1", Step: 1},
		loop.ContentPartEvent{UUID: "uuid-2", TurnID: "turn-1", Step: 1, StepUUID: "uuid-1", Part: llm.TextPart("hi")},
		loop.StepEndEvent{UUID: "uuid-1", TurnID: "turn-1", Step: 1, Usage: &u, FinishReason: loop.StopEndTurn},
	}
	if d := cmp.Diff(want, h.rec.Transcript()); d != "" {
		t.Errorf("transcript (-want +got):\n%s", d)
	}
	got := mustJSON(t, h.rec.Transcript()[2])
	wantJSON := `{"type":"step.end","uuid":"uuid-1","turnId":"turn-1","step":1,` +
		`"usage":{"inputOther":7,"output":5,"inputCacheRead":0,"inputCacheCreation":0},"finishReason":"end_turn"}`
	if got != wantJSON {
		t.Errorf("step.end JSON:\n got %s\nwant %s", got, wantJSON)
	}
	if n := len(h.interrupts()); n != 0 {
		t.Errorf("%d turn.interrupted events, want none", n)
	}
}

func TestSL2MultiStepUsage(t *testing.T) {
	h := newHarness(t,
		looptest.Calls(looptest.Call("c1", "echo", `{"text":"x"}`)).WithUsage(usage(70, 50, 10, 20)),
		looptest.Text("done").WithUsage(usage(4, 3, 1, 2)),
	).tools(looptest.Echo())
	res := h.mustRun(t.Context())

	if res.Steps != 2 || res.Usage.InputTotal() != 107 || res.Usage.Output != 53 ||
		res.Usage.InputCacheRead != 11 || res.Usage.InputCacheCreation != 22 || res.StopReason != loop.StopEndTurn {
		t.Errorf("result = %+v; want 2 steps, input 107, output 53, cache read 11, creation 22, end_turn", res)
	}
	h.wantTypes(begin, call, result, end, begin, part, end)
}

func TestSL21MaxSteps(t *testing.T) {
	t.Run("limit reached", func(t *testing.T) {
		h := newHarness(t,
			looptest.Calls(looptest.Call("c1", "echo", `{"text":"a"}`)),
			looptest.Calls(looptest.Call("c2", "echo", `{"text":"b"}`)),
			looptest.Text("never"),
		).tools(looptest.Echo())
		h.in.MaxSteps = 2
		_, err := h.run(t.Context())

		var ms *loop.MaxStepsExceededError
		if !errors.As(err, &ms) || !errors.Is(err, loop.ErrMaxStepsExceeded) {
			t.Fatalf("err = %v; want *MaxStepsExceededError", err)
		}
		if ms.Code() != "loop.max_steps_exceeded" || !cmp.Equal(ms.Details(), map[string]any{"maxSteps": 2}) {
			t.Errorf("code %q details %v", ms.Code(), ms.Details())
		}
		if !strings.Contains(err.Error(), "loop_control.max_steps_per_turn") || strings.Contains(err.Error(), "/update-config") {
			t.Errorf("message %q should name loop_control.max_steps_per_turn only", err)
		}
		want := []loop.TurnInterruptedEvent{{Reason: loop.InterruptMaxSteps, AttemptedSteps: 2, Message: err.Error(),
			InterruptReason: loop.InterruptMaxSteps}}
		if d := cmp.Diff(want, h.interrupts()); d != "" {
			t.Errorf("turn.interrupted (-want +got):\n%s", d)
		}
		if n := len(h.llm.Calls()); n != 2 {
			t.Errorf("%d Chat calls, want 2", n)
		}
	})
	t.Run("unlimited", func(t *testing.T) {
		var script []looptest.Response
		for i := range 4 {
			script = append(script, looptest.Calls(looptest.Call("c"+string(rune('1'+i)), "echo", `{"text":"a"}`)))
		}
		h := newHarness(t, append(script, looptest.Text("done"))...).tools(looptest.Echo())
		res := h.mustRun(t.Context())
		if res.Steps != 5 || res.StopReason != loop.StopEndTurn {
			t.Errorf("result = %+v; want 5 steps ending end_turn", res)
		}
	})
}

func TestSL22PreCancelledTurn(t *testing.T) {
	h := newHarness(t, looptest.Text("never"))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	res, err := h.run(ctx)
	if err != nil {
		t.Fatalf("RunTurn: %v", err)
	}
	if d := cmp.Diff(loop.TurnResult{StopReason: loop.StopAborted}, res); d != "" {
		t.Errorf("result (-want +got):\n%s", d)
	}
	if n := len(h.llm.Calls()); n != 0 {
		t.Errorf("%d Chat calls, want 0", n)
	}
	h.wantTypes()
	want := []loop.TurnInterruptedEvent{{Reason: loop.InterruptAborted, InterruptReason: loop.InterruptAborted}}
	if d := cmp.Diff(want, h.interrupts()); d != "" {
		t.Errorf("turn.interrupted (-want +got):\n%s", d)
	}
}

func TestSL32StopReasonDerivation(t *testing.T) {
	echoCall := looptest.Call("c1", "echo", `{"text":"x"}`)
	for _, tt := range []struct {
		name     string
		resp     looptest.Response
		wantStop loop.StopReason // of step 1
		wantEnd  loop.StepEndEvent
	}{
		{"tool_calls without calls is unknown",
			looptest.Response{FinishReason: llm.FinishToolCalls, RawFinishReason: "tool_calls"},
			loop.StopUnknown, loop.StepEndEvent{ProviderFinishReason: llm.FinishToolCalls, RawFinishReason: "tool_calls"}},
		{"completed with calls is tool_use",
			looptest.Calls(echoCall).WithFinish(llm.FinishCompleted, "stop"),
			loop.StopToolUse, loop.StepEndEvent{ProviderFinishReason: llm.FinishCompleted, RawFinishReason: "stop"}},
		{"no finish with calls is tool_use",
			looptest.Calls(echoCall).WithFinish(llm.FinishNone, ""),
			loop.StopToolUse, loop.StepEndEvent{}},
		{"truncated without calls is max_tokens",
			looptest.Response{FinishReason: llm.FinishTruncated, RawFinishReason: "length"},
			loop.StopMaxTokens, loop.StepEndEvent{ProviderFinishReason: llm.FinishTruncated, RawFinishReason: "length"}},
		{"tool_calls with calls is unsurprising",
			looptest.Calls(echoCall), loop.StopToolUse, loop.StepEndEvent{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, tt.resp, looptest.Text("done")).tools(looptest.Echo())
			h.mustRun(t.Context())
			ends := looptest.RecordedOfType[loop.StepEndEvent](h.rec)
			got := ends[0]
			if got.FinishReason != tt.wantStop || got.ProviderFinishReason != tt.wantEnd.ProviderFinishReason ||
				got.RawFinishReason != tt.wantEnd.RawFinishReason {
				t.Errorf("step.end = %s, %q, %q; want %s, %q, %q", got.FinishReason, got.ProviderFinishReason,
					got.RawFinishReason, tt.wantStop, tt.wantEnd.ProviderFinishReason, tt.wantEnd.RawFinishReason)
			}
			if ran := len(h.results()) > 0; ran != (tt.wantStop == loop.StopToolUse) {
				t.Errorf("tools ran = %v for stop %s", ran, tt.wantStop)
			}
		})
	}
}

func TestSL34LiveSinkFailuresAreContained(t *testing.T) {
	script := func() []looptest.Response {
		return []looptest.Response{
			looptest.Calls(looptest.Call("c1", "echo", `{"text":"x"}`)),
			{Deltas: []looptest.Delta{{Text: "d"}}, Parts: []llm.ContentPart{llm.TextPart("done")},
				FinishReason: llm.FinishCompleted},
		}
	}
	healthy := newHarness(t, script()...).tools(looptest.Echo())
	healthy.mustRun(t.Context())

	for _, sink := range []struct {
		name string
		emit func(loop.Event) error
	}{
		{"panics", func(loop.Event) error { panic("sink broke") }},
		{"errors", func(loop.Event) error { return errBoom }},
	} {
		t.Run(sink.name, func(t *testing.T) {
			h := newHarness(t, script()...).tools(looptest.Echo())
			h.in.Dispatch = loop.NewDispatcher(h.rec.Append, sink.emit)
			res := h.mustRun(t.Context())
			if res.StopReason != loop.StopEndTurn {
				t.Errorf("stop = %s, want end_turn", res.StopReason)
			}
			if d := cmp.Diff(healthy.rec.Transcript(), h.rec.Transcript()); d != "" {
				t.Errorf("transcript differs from a healthy sink's (-healthy +got):\n%s", d)
			}
		})
	}
	t.Run("host fan-out keeps a healthy sink fed", func(t *testing.T) {
		second := &looptest.Recorder{}
		fanout := func(ev loop.Event) error {
			for _, s := range []func(loop.Event) error{func(loop.Event) error { panic("first sink broke") }, second.Emit} {
				func() {
					defer func() { _ = recover() }() // the host guards each sink
					_ = s(ev)
				}()
			}
			return nil
		}
		h := newHarness(t, script()...).tools(looptest.Echo())
		h.in.Dispatch = loop.NewDispatcher(h.rec.Append, fanout)
		h.mustRun(t.Context())
		var types []loop.EventType
		for _, ev := range second.Live() {
			if ev.EventType() == begin || ev.EventType() == end {
				types = append(types, ev.EventType())
			}
		}
		if d := cmp.Diff([]loop.EventType{begin, end, begin, end}, types); d != "" {
			t.Errorf("second sink (-want +got):\n%s", d)
		}
	})
}

func TestSL35TranscriptFailure(t *testing.T) {
	appendErr := errors.New("disk full")
	started, release := make(chan struct{}), make(chan struct{})
	var settled atomic.Bool
	late := looptest.Func("late", loop.ReadFile("/late"),
		func(context.Context, json.RawMessage, loop.ExecCtx) (loop.ToolResult, error) {
			close(started)
			<-release
			settled.Store(true)
			return okResult("late"), nil
		})
	echo := looptest.Echo()
	echo.Accesses = loop.None() // runs alongside late
	h := newHarness(t, looptest.Calls(
		looptest.Call("c1", "echo", `{"text":"x"}`),
		looptest.Call("c2", "late", `{}`),
	)).tools(echo, late)
	h.rec.FailRecord = func(ev loop.RecordedEvent) error {
		if _, ok := ev.(loop.ToolResultEvent); ok {
			<-started      // late is running when the append fails
			close(release) // and settles only after the failure
			return appendErr
		}
		return nil
	}
	_, err := h.run(t.Context())
	if !errors.Is(err, appendErr) {
		t.Fatalf("err = %v, want %v", err, appendErr)
	}
	if !settled.Load() {
		t.Error("RunTurn returned before the started task settled")
	}
	h.wantTypes(begin, call, call)
	want := []loop.TurnInterruptedEvent{{Reason: loop.InterruptError, AttemptedSteps: 1, ActiveStep: intp(1),
		Message: "disk full", InterruptReason: loop.InterruptError}}
	if d := cmp.Diff(want, h.interrupts()); d != "" {
		t.Errorf("turn.interrupted (-want +got):\n%s", d)
	}
}

func TestSL36StreamingCallbacks(t *testing.T) {
	h := newHarness(t, looptest.Response{
		Deltas: []looptest.Delta{
			{Text: "a"},
			{Think: "t"},
			{ToolCall: &loop.ToolCallDelta{ToolCallID: "tc-1", Name: "echo", ArgumentsPart: `{"text":`}},
			{ToolCall: &loop.ToolCallDelta{ToolCallID: "tc-1", Name: "echo", ArgumentsPart: `"hi"}`}},
		},
		Parts: []llm.ContentPart{
			llm.ThinkPart("reasoning", "sig-abc"),
			llm.TextPart("first"),
			llm.TextPart("second"),
		},
		FinishReason: llm.FinishCompleted,
	})
	h.mustRun(t.Context())

	var live []loop.Event
	for _, ev := range h.rec.Live() {
		if _, ok := ev.(loop.LiveEvent); ok {
			live = append(live, ev)
		}
	}
	wantLive := []loop.Event{
		loop.TextDeltaEvent{Delta: "a"},
		loop.ThinkingDeltaEvent{Delta: "t"},
		loop.ToolCallDeltaEvent{ToolCallID: "tc-1", Name: "echo", ArgumentsPart: `{"text":`},
		loop.ToolCallDeltaEvent{ToolCallID: "tc-1", Name: "echo", ArgumentsPart: `"hi"}`},
	}
	if d := cmp.Diff(wantLive, live); d != "" {
		t.Errorf("live events (-want +got):\n%s", d)
	}
	u := llm.TokenUsage{}
	want := []loop.RecordedEvent{
		loop.StepBeginEvent{UUID: "uuid-1", TurnID: "turn-1", Step: 1},
		loop.ContentPartEvent{UUID: "uuid-2", TurnID: "turn-1", Step: 1, StepUUID: "uuid-1", Part: llm.ThinkPart("reasoning", "sig-abc")},
		loop.ContentPartEvent{UUID: "uuid-3", TurnID: "turn-1", Step: 1, StepUUID: "uuid-1", Part: llm.TextPart("first")},
		loop.ContentPartEvent{UUID: "uuid-4", TurnID: "turn-1", Step: 1, StepUUID: "uuid-1", Part: llm.TextPart("second")},
		loop.StepEndEvent{UUID: "uuid-1", TurnID: "turn-1", Step: 1, Usage: &u, FinishReason: loop.StopEndTurn},
	}
	if d := cmp.Diff(want, h.rec.Transcript()); d != "" {
		t.Errorf("transcript (-want +got):\n%s", d)
	}
	if got := mustJSON(t, h.rec.Transcript()[1]); !strings.Contains(got, `"encrypted":"sig-abc"`) {
		t.Errorf("think part JSON %s lost its signature", got)
	}
}

func TestSL38DynamicToolTable(t *testing.T) {
	echo := looptest.Echo()
	loaded := true
	h := newHarness(t,
		looptest.Calls(looptest.Call("c1", "echo", `{"text":"a"}`)),
		looptest.Calls(looptest.Call("c2", "echo", `{"text":"b"}`)),
		looptest.Text("done"),
	)
	h.in.BuildTools = func(context.Context) ([]loop.ExecutableTool, error) {
		if loaded {
			return []loop.ExecutableTool{echo}, nil
		}
		return nil, nil
	}
	h.in.Hooks.BeforeStep = func(_ context.Context, s loop.StepCtx) (loop.BeforeStepResult, error) {
		loaded = s.StepNumber == 1 // step 2 unloads echo
		return loop.BeforeStepResult{}, nil
	}
	h.mustRun(t.Context())

	h.wantResults(okResult("a"), errResult(`Tool "echo" not found`))
	calls := h.llm.Calls()
	if len(calls[0].Tools) != 1 || calls[1].Tools == nil || len(calls[1].Tools) != 0 {
		t.Errorf("tool tables = %v, %v; want [echo] then an empty list", calls[0].Tools, calls[1].Tools)
	}
}

func TestSL39ContextOverflowIsTheHostsProblem(t *testing.T) {
	overflow := statusErr(400, "Invalid request: Your request exceeded model token limit: 262144 (requested: 274613)")
	h := newHarness(t, looptest.Fail(overflow)).withFallbacks()
	_, err := h.run(t.Context())
	if err != overflow { // returned unchanged, not wrapped
		t.Fatalf("err = %v, want the overflow error unchanged", err)
	}
	if !llm.IsContextOverflow(err) {
		t.Errorf("err is not a context overflow")
	}
	if n := len(h.llm.Calls()); n != 1 {
		t.Errorf("%d Chat calls, want 1", n)
	}
	if d := cmp.Diff(map[string]int{"normal": 1}, h.built); d != "" {
		t.Errorf("builders called (-want +got):\n%s", d)
	}
	if ir := h.interrupts(); len(ir) != 1 || ir[0].Reason != loop.InterruptError {
		t.Errorf("turn.interrupted = %+v, want one error", ir)
	}
}

func TestSL40TraceIDs(t *testing.T) {
	t.Run("failed attempt", func(t *testing.T) {
		fail := statusErr(403, "forbidden")
		fail.TraceID = "tr-fail"
		h := newHarness(t, looptest.Fail(fail))
		if _, err := h.run(t.Context()); err == nil {
			t.Fatal("RunTurn succeeded")
		}
		if ir := h.interrupts(); len(ir) != 1 || ir[0].TraceID != "tr-fail" {
			t.Errorf("turn.interrupted = %+v, want traceId tr-fail", ir)
		}
	})
	t.Run("successful response", func(t *testing.T) {
		h := newHarness(t,
			looptest.Calls(looptest.Call("c1", "echo", `{"text":"x"}`)).WithTrace("tr-ok"),
			looptest.Text("done"),
		).tools(looptest.Echo())
		var traces []*loop.RequestTrace
		h.in.OnRequestTrace = func(tr *loop.RequestTrace) { traces = append(traces, tr) }
		h.mustRun(t.Context())
		end := looptest.RecordedOfType[loop.StepEndEvent](h.rec)[0]
		c, r := h.toolCalls()[0], h.results()[0]
		if end.TraceID != "tr-ok" || c.TraceID != "tr-ok" || r.TraceID != "tr-ok" {
			t.Errorf("trace ids: step.end %q, tool.call %q, tool.result %q; want tr-ok", end.TraceID, c.TraceID, r.TraceID)
		}
		if len(traces) != 2 || traces[0].TraceID() != "tr-ok" {
			t.Errorf("OnRequestTrace got %d traces; the first holds %q, want tr-ok", len(traces), traces[0].TraceID())
		}
	})
}
