package loop_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/loop/looptest"
)

// cancelWhenStarted cancels the turn (with cause) once n executions have
// reported their start on g. The goroutine ends when it has cancelled or
// when the test's context is done.
func cancelWhenStarted(t *testing.T, g *looptest.Gate, n int, cancel context.CancelCauseFunc, cause error) {
	t.Helper()
	go func() {
		for range n {
			select {
			case <-g.Started:
			case <-t.Context().Done():
				return
			}
		}
		cancel(cause)
	}()
}

func abortDuringTool(t *testing.T, cause error) (*harness, loop.TurnResult) {
	t.Helper()
	gate := looptest.NewGate()
	h := newHarness(t,
		looptest.Calls(looptest.Call("c1", "echo", `{"text":"x"}`)).WithUsage(usage(100, 50, 0, 0)),
		looptest.Calls(looptest.Call("c2", "slow", `{}`)).WithUsage(usage(7, 11, 0, 0)),
		looptest.Text("never"),
	).tools(looptest.Echo(), looptest.Slow(gate))
	ctx, cancel := context.WithCancelCause(t.Context())
	defer cancel(nil)
	cancelWhenStarted(t, gate, 1, cancel, cause)
	res, err := h.run(ctx)
	if err != nil {
		t.Fatalf("RunTurn returned an error for an abort: %v", err)
	}
	return h, res
}

func TestSL13AbortDuringToolExecution(t *testing.T) {
	h, res := abortDuringTool(t, context.Canceled)
	if res.StopReason != loop.StopAborted || res.Steps != 2 || res.Usage.InputTotal() != 107 || res.Usage.Output != 61 {
		t.Errorf("result = %+v; want aborted, 2 steps, input 107, output 61", res)
	}
	h.wantTypes(begin, call, result, end, begin, call, result)
	if got := h.results()[1].Result; !cmp.Equal(got, errResult(`Tool "slow" was aborted`)) {
		t.Errorf("slow result = %+v", got)
	}
	want := []loop.TurnInterruptedEvent{{Reason: loop.InterruptAborted, AttemptedSteps: 2, ActiveStep: intp(2),
		InterruptReason: loop.InterruptAborted}}
	if d := cmp.Diff(want, h.interrupts()); d != "" {
		t.Errorf("turn.interrupted (-want +got):\n%s", d)
	}
}

func TestSL14UserCancellationWording(t *testing.T) {
	h, _ := abortDuringTool(t, loop.ErrUserCancelled)
	out := h.results()[1].Result.Output.Text()
	if !strings.Contains(out, "not a system error") || !strings.Contains(out, "wait for the user") {
		t.Errorf("slow output = %q", out)
	}
	if ir := h.interrupts(); len(ir) != 1 || ir[0].InterruptReason != loop.InterruptUserCancelled || ir[0].Reason != loop.InterruptAborted {
		t.Errorf("turn.interrupted = %+v", ir)
	}
}

func TestSL15GraceTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		started := make(chan struct{})
		var late atomic.Bool
		stubborn := looptest.Func("stubborn", nil, func(context.Context, json.RawMessage, loop.ExecCtx) (loop.ToolResult, error) {
			close(started)
			time.Sleep(10 * time.Second) // ignores cancellation
			late.Store(true)
			return loop.TextResult("late"), nil
		})
		h := newHarness(t, looptest.Calls(looptest.Call("c1", "stubborn", `{}`)), looptest.Text("never")).tools(stubborn)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		go func() {
			<-started
			cancel()
		}()
		res, err := h.run(ctx)
		if err != nil || res.StopReason != loop.StopAborted {
			t.Fatalf("RunTurn = %+v, %v; want aborted", res, err)
		}
		h.wantResults(errResult(`Tool "stubborn" aborted by grace timeout (2000ms)`))
		if late.Load() {
			t.Error("the tool returned before the grace timeout")
		}
		before := h.rec.Transcript()
		time.Sleep(10 * time.Second) // let the abandoned call return
		synctest.Wait()
		if !late.Load() {
			t.Error("the abandoned call never returned")
		}
		if d := cmp.Diff(before, h.rec.Transcript()); d != "" {
			t.Errorf("the late return changed the transcript:\n%s", d)
		}
	})
}

func TestSL15GraceTimeoutElapsed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		stubborn := looptest.Func("stubborn", nil, func(context.Context, json.RawMessage, loop.ExecCtx) (loop.ToolResult, error) {
			time.Sleep(10 * time.Second)
			return loop.TextResult("late"), nil
		})
		h := newHarness(t, looptest.Calls(looptest.Call("c1", "stubborn", `{}`))).tools(stubborn)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		start := time.Now()
		h.in.Hooks.AuthorizeToolExecution = func(context.Context, loop.ToolCtx) (loop.Authorization, error) {
			time.AfterFunc(time.Second, cancel) // one second into the call
			return loop.Authorization{}, nil
		}
		h.mustRun(ctx)
		if got := time.Since(start); got != 3*time.Second {
			t.Errorf("turn took %v, want 1 s of work plus the 2 s grace", got)
		}
		time.Sleep(10 * time.Second) // the abandoned call returns inside the bubble
	})
}

func TestSL16AbortWhileConflictingCallQueued(t *testing.T) {
	gate := looptest.NewGate()
	echo := looptest.Echo()
	h := newHarness(t, looptest.Calls(
		looptest.Call("tc-gated", "gated", `{}`),
		looptest.Call("tc-echo", "echo", `{"text":"x"}`),
	), looptest.Text("never")).tools(looptest.Gated("gated", gate, nil), echo)
	ctx, cancel := context.WithCancelCause(t.Context())
	defer cancel(nil)
	go func() {
		select {
		case <-gate.Started:
		case <-t.Context().Done():
		}
		cancel(context.Canceled)
		gate.Release()
	}()
	res, err := h.run(ctx)
	if err != nil || res.StopReason != loop.StopAborted {
		t.Fatalf("RunTurn = %+v, %v", res, err)
	}
	if n := len(echo.Executions()); n != 0 {
		t.Errorf("echo ran %d times", n)
	}
	var callIDs, resultIDs []string
	for _, c := range h.toolCalls() {
		callIDs = append(callIDs, c.ToolCallID)
	}
	for _, r := range h.results() {
		resultIDs = append(resultIDs, r.ToolCallID)
	}
	if d := cmp.Diff([]string{"tc-gated", "tc-echo"}, callIDs); d != "" {
		t.Errorf("tool.call ids (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"tc-gated", "tc-echo"}, resultIDs); d != "" {
		t.Errorf("tool.result ids (-want +got):\n%s", d)
	}
	if got := mustJSON(t, h.results()[1].Result); got != `{"output":"Tool \"echo\" was aborted","isError":true}` {
		t.Errorf("echo result = %s", got)
	}
}

func TestSL17AbortMidBatchKeepsPairing(t *testing.T) {
	gate := looptest.NewGate()
	slow := looptest.Slow(gate)
	slow.Accesses = loop.ReadFile("/same")
	h := newHarness(t, looptest.Calls(
		looptest.Call("s1", "slow", `{}`),
		looptest.Call("s2", "slow", `{}`),
		looptest.Call("s3", "slow", `{}`),
	)).tools(slow)
	ctx, cancel := context.WithCancelCause(t.Context())
	defer cancel(nil)
	cancelWhenStarted(t, gate, 3, cancel, context.Canceled)
	if res, err := h.run(ctx); err != nil || res.StopReason != loop.StopAborted {
		t.Fatalf("RunTurn = %+v, %v", res, err)
	}
	var callIDs, resultIDs []string
	for _, c := range h.toolCalls() {
		callIDs = append(callIDs, c.ToolCallID)
	}
	for _, r := range h.results() {
		resultIDs = append(resultIDs, r.ToolCallID)
		if !r.Result.IsError {
			t.Errorf("result %s is not an error", r.ToolCallID)
		}
	}
	slices.Sort(callIDs)
	slices.Sort(resultIDs)
	if d := cmp.Diff([]string{"s1", "s2", "s3"}, callIDs); d != "" {
		t.Errorf("tool.call ids (-want +got):\n%s", d)
	}
	if d := cmp.Diff(callIDs, resultIDs); d != "" {
		t.Errorf("tool.result ids differ from tool.call ids:\n%s", d)
	}
}

func TestAbortDuringStreaming(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	h := newHarness(t, looptest.Response{WaitForCancel: true,
		OnCall: func(context.Context, loop.ChatParams) { cancel() }}.WithUsage(usage(5, 5, 0, 0)))
	res, err := h.run(ctx)
	if err != nil || res.StopReason != loop.StopAborted || res.Steps != 1 || !res.Usage.IsZero() {
		t.Fatalf("RunTurn = %+v, %v; want aborted after 1 step, usage not counted", res, err)
	}
	h.wantTypes(begin)
}
