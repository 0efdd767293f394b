package loop_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/loop/looptest"
)

func TestSL18ParallelCallsRecordedInProviderOrder(t *testing.T) {
	// Runs in a bubble so that serialising A and B (a bug) is reported as a
	// deadlock instead of hanging.
	synctest.Test(t, func(t *testing.T) {
		aStarted, bDone := make(chan struct{}), make(chan struct{})
		a := looptest.Func("A", loop.ReadFile("/x"), func(_ context.Context, _ json.RawMessage, ec loop.ExecCtx) (loop.ToolResult, error) {
			close(aStarted)
			<-bDone // A finishes after B
			ec.OnUpdate(loop.ProgressUpdate{Kind: loop.ProgressStatus, Text: "A"})
			return okResult("a"), nil
		})
		b := looptest.Func("B", loop.ReadFile("/y"), func(_ context.Context, _ json.RawMessage, ec loop.ExecCtx) (loop.ToolResult, error) {
			<-aStarted // B observes that A started
			ec.OnUpdate(loop.ProgressUpdate{Kind: loop.ProgressStatus, Text: "B"})
			close(bDone)
			return okResult("b"), nil
		})
		h := newHarness(t, looptest.Calls(looptest.Call("cA", "A", `{}`), looptest.Call("cB", "B", `{}`)),
			looptest.Text("done")).tools(a, b)
		var finalized []string
		h.in.Hooks.FinalizeToolResult = func(_ context.Context, c loop.ResultCtx) (*loop.ToolResult, error) {
			finalized = append(finalized, c.ToolCall.ID)
			return nil, nil
		}
		h.mustRun(t.Context())

		var progress, results []string
		for _, p := range looptest.LiveOfType[loop.ToolProgressEvent](h.rec) {
			progress = append(progress, p.ToolCallID)
		}
		for _, r := range h.results() {
			results = append(results, r.ToolCallID)
		}
		if d := cmp.Diff([]string{"cB", "cA"}, progress); d != "" {
			t.Errorf("tool.progress order (-want +got):\n%s", d)
		}
		if d := cmp.Diff([]string{"cA", "cB"}, results); d != "" {
			t.Errorf("tool.result order (-want +got):\n%s", d)
		}
		if d := cmp.Diff([]string{"cA", "cB"}, finalized); d != "" {
			t.Errorf("finalize order (-want +got):\n%s", d)
		}
	})
}

func TestSL19DefaultAccessesSerialise(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var spans [][2]time.Duration
		start := time.Now()
		work := looptest.Func("work", nil, func(context.Context, json.RawMessage, loop.ExecCtx) (loop.ToolResult, error) {
			from := time.Since(start)
			time.Sleep(time.Second)
			spans = append(spans, [2]time.Duration{from, time.Since(start)}) // serialised, so no race
			return okResult("ok"), nil
		})
		h := newHarness(t, looptest.Calls(looptest.Call("c1", "work", `{}`), looptest.Call("c2", "work", `{}`)),
			looptest.Text("done")).tools(work)
		h.mustRun(t.Context())
		want := [][2]time.Duration{{0, time.Second}, {time.Second, 2 * time.Second}}
		if d := cmp.Diff(want, spans); d != "" {
			t.Errorf("execution spans (-want +got):\n%s", d)
		}
	})
}

func TestSL20FailedTaskReleasesAccesses(t *testing.T) {
	failing := looptest.Func("fail", loop.WriteFile("/a"), func(context.Context, json.RawMessage, loop.ExecCtx) (loop.ToolResult, error) {
		return loop.ToolResult{}, errors.New("no space")
	})
	next := looptest.Func("next", loop.WriteFile("/A/"), func(context.Context, json.RawMessage, loop.ExecCtx) (loop.ToolResult, error) {
		return okResult("wrote"), nil
	})
	h := newHarness(t, looptest.Calls(looptest.Call("c1", "fail", `{}`), looptest.Call("c2", "next", `{}`)),
		looptest.Text("done")).tools(failing, next)
	h.mustRun(t.Context())
	h.wantResults(errResult(`Tool "fail" failed: no space`), okResult("wrote"))
}
