package loop_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/loop/looptest"
)

func TestSL23BeforeStep(t *testing.T) {
	t.Run("block", func(t *testing.T) {
		h := newHarness(t, looptest.Text("never"))
		h.in.Hooks.BeforeStep = func(context.Context, loop.StepCtx) (loop.BeforeStepResult, error) {
			return loop.BeforeStepResult{Block: true, Reason: "budget"}, nil
		}
		_, err := h.run(t.Context())
		if err == nil || err.Error() != "budget" {
			t.Fatalf("err = %v, want budget", err)
		}
		if n := len(h.llm.Calls()); n != 0 {
			t.Errorf("%d Chat calls", n)
		}
		h.wantTypes()
		if ir := h.interrupts(); len(ir) != 1 || ir[0].Reason != loop.InterruptError || ir[0].Message != "budget" {
			t.Errorf("turn.interrupted = %+v", ir)
		}
	})
	t.Run("block without reason", func(t *testing.T) {
		h := newHarness(t, looptest.Text("never"))
		h.in.Hooks.BeforeStep = func(context.Context, loop.StepCtx) (loop.BeforeStepResult, error) {
			return loop.BeforeStepResult{Block: true}, nil
		}
		if _, err := h.run(t.Context()); err == nil || err.Error() != "Step 1 was blocked" {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("nothing", func(t *testing.T) {
		h := newHarness(t, looptest.Text("ok"))
		var steps []int
		h.in.Hooks.BeforeStep = func(_ context.Context, s loop.StepCtx) (loop.BeforeStepResult, error) {
			steps = append(steps, s.StepNumber)
			return loop.BeforeStepResult{}, nil
		}
		h.mustRun(t.Context())
		if d := cmp.Diff([]int{1}, steps); d != "" {
			t.Errorf("steps (-want +got):\n%s", d)
		}
	})
	t.Run("abort", func(t *testing.T) {
		h := newHarness(t, looptest.Text("never"))
		ctx, cancel := context.WithCancel(t.Context())
		h.in.Hooks.BeforeStep = func(ctx context.Context, _ loop.StepCtx) (loop.BeforeStepResult, error) {
			cancel()
			return loop.BeforeStepResult{}, llm.Aborted(ctx)
		}
		res, err := h.run(ctx)
		if err != nil || res.StopReason != loop.StopAborted {
			t.Fatalf("RunTurn = %+v, %v; want aborted", res, err)
		}
		h.wantTypes()
	})
	t.Run("error", func(t *testing.T) {
		h := newHarness(t, looptest.Text("never"))
		h.in.Hooks.BeforeStep = func(context.Context, loop.StepCtx) (loop.BeforeStepResult, error) {
			return loop.BeforeStepResult{}, errBoom
		}
		if _, err := h.run(t.Context()); err != errBoom { // the exact error
			t.Fatalf("err = %v", err)
		}
	})
}

func TestSL24AfterStep(t *testing.T) {
	t.Run("sees usage and stop reason; errors ignored", func(t *testing.T) {
		h := newHarness(t,
			looptest.Calls(looptest.Call("c1", "echo", `{"text":"x"}`)).WithUsage(usage(1, 2, 0, 0)),
			looptest.Text("done").WithUsage(usage(3, 4, 0, 0)),
		).tools(looptest.Echo())
		var seen []loop.StepEndCtx
		h.in.Hooks.AfterStep = func(_ context.Context, c loop.StepEndCtx) (loop.AfterStepResult, error) {
			c.LLM = nil
			seen = append(seen, c)
			return loop.AfterStepResult{}, errors.New("bookkeeping failed")
		}
		res := h.mustRun(t.Context())
		want := []loop.StepEndCtx{
			{StepCtx: loop.StepCtx{TurnID: "turn-1", StepNumber: 1}, Usage: usage(1, 2, 0, 0), StopReason: loop.StopToolUse},
			{StepCtx: loop.StepCtx{TurnID: "turn-1", StepNumber: 2}, Usage: usage(3, 4, 0, 0), StopReason: loop.StopEndTurn},
		}
		if d := cmp.Diff(want, seen); d != "" {
			t.Errorf("AfterStep contexts (-want +got):\n%s", d)
		}
		if res.StopReason != loop.StopEndTurn || res.Steps != 2 {
			t.Errorf("result = %+v", res)
		}
	})
	t.Run("StopTurn ends a tool_use step", func(t *testing.T) {
		echo := looptest.Echo()
		h := newHarness(t, looptest.Calls(looptest.Call("c1", "echo", `{"text":"x"}`)), looptest.Text("never")).tools(echo)
		h.in.Hooks.AfterStep = func(context.Context, loop.StepEndCtx) (loop.AfterStepResult, error) {
			return loop.AfterStepResult{StopTurn: true}, nil
		}
		var continueAsked []loop.StopReason
		h.in.Hooks.ShouldContinueAfterStop = func(_ context.Context, c loop.StepEndCtx) (loop.ContinueDecision, error) {
			continueAsked = append(continueAsked, c.StopReason)
			return loop.ContinueDecision{}, nil
		}
		res := h.mustRun(t.Context())
		if res.StopReason != loop.StopEndTurn || res.Steps != 1 || len(echo.Executions()) != 1 {
			t.Errorf("result = %+v, echo ran %d times", res, len(echo.Executions()))
		}
		if d := cmp.Diff([]loop.StopReason{loop.StopEndTurn}, continueAsked); d != "" {
			t.Errorf("ShouldContinueAfterStop saw (-want +got):\n%s", d)
		}
	})
}

func TestSL25ShouldContinueAfterStop(t *testing.T) {
	t.Run("continue", func(t *testing.T) {
		h := newHarness(t, looptest.Text("one"), looptest.Text("two"))
		asked := 0
		h.in.Hooks.ShouldContinueAfterStop = func(context.Context, loop.StepEndCtx) (loop.ContinueDecision, error) {
			asked++
			return loop.ContinueDecision{Continue: asked == 1}, nil
		}
		if res := h.mustRun(t.Context()); res.Steps != 2 {
			t.Errorf("steps = %d, want 2", res.Steps)
		}
	})
	t.Run("never after tool_use", func(t *testing.T) {
		h := newHarness(t, looptest.Calls(looptest.Call("c1", "echo", `{"text":"x"}`)), looptest.Text("done")).
			tools(looptest.Echo())
		var asked []int
		h.in.Hooks.ShouldContinueAfterStop = func(_ context.Context, c loop.StepEndCtx) (loop.ContinueDecision, error) {
			asked = append(asked, c.StepNumber)
			return loop.ContinueDecision{}, nil
		}
		if res := h.mustRun(t.Context()); res.Steps != 2 {
			t.Errorf("steps = %d", res.Steps)
		}
		if d := cmp.Diff([]int{2}, asked); d != "" {
			t.Errorf("asked after steps (-want +got):\n%s", d)
		}
	})
	t.Run("error fails the turn", func(t *testing.T) {
		h := newHarness(t, looptest.Text("one"))
		h.in.Hooks.ShouldContinueAfterStop = func(context.Context, loop.StepEndCtx) (loop.ContinueDecision, error) {
			return loop.ContinueDecision{}, errBoom
		}
		if _, err := h.run(t.Context()); err != errBoom {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestSL29UsageStopSkipsTools(t *testing.T) {
	echo := looptest.Echo()
	h := newHarness(t, looptest.Calls(looptest.Call("c1", "echo", `{"text":"x"}`)).WithUsage(usage(9, 9, 0, 0)),
		looptest.Text("never")).tools(echo)
	var recorded []llm.TokenUsage
	h.in.RecordStepUsage = func(_ context.Context, u llm.TokenUsage) (bool, error) {
		recorded = append(recorded, u)
		return true, nil
	}
	res := h.mustRun(t.Context())
	if res.StopReason != loop.StopEndTurn || len(h.llm.Calls()) != 1 || len(echo.Executions()) != 0 {
		t.Errorf("result = %+v, %d calls, echo ran %d times", res, len(h.llm.Calls()), len(echo.Executions()))
	}
	h.wantTypes(begin, end)
	if d := cmp.Diff([]llm.TokenUsage{usage(9, 9, 0, 0)}, recorded); d != "" {
		t.Errorf("recorded usage (-want +got):\n%s", d)
	}
	t.Run("error fails the turn", func(t *testing.T) {
		h := newHarness(t, looptest.Text("x"))
		h.in.RecordStepUsage = func(context.Context, llm.TokenUsage) (bool, error) { return false, errBoom }
		if _, err := h.run(t.Context()); err != errBoom {
			t.Fatalf("err = %v", err)
		}
	})
}
