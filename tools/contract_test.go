package tools_test

import (
	"context"
	"encoding/json"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/loop/looptest"
)

// The loop owns these two contract scenarios; they are restated here with
// the loop the tools run in, so the tool side of the contract is pinned too.

func TestS4GraceTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gate := looptest.NewGate()
		stubborn := looptest.Gated("stubborn", gate, nil)
		ctx, cancel := context.WithCancelCause(t.Context())
		go func() {
			<-gate.Started
			cancel(context.DeadlineExceeded) // not a user cancellation
		}()
		start := time.Now()
		got := runTurnCtx(t, ctx, []loop.ExecutableTool{stubborn}, looptest.Call("c1", "stubborn", `{}`))
		waited := time.Since(start)
		gate.Release()
		if len(got) != 1 {
			t.Fatalf("%d results", len(got))
		}
		wantError(t, got[0], `Tool "stubborn" aborted by grace timeout (2000ms)`)
		if waited != 2*time.Second {
			t.Errorf("settled after %v; want the 2 s grace", waited)
		}
	})
}

func TestS6EmptyOutput(t *testing.T) {
	silent := looptest.Func("silent", loop.None(), func(context.Context, json.RawMessage, loop.ExecCtx) (loop.ToolResult, error) {
		return loop.TextResult(""), nil
	})
	got := runTurn(t, []loop.ExecutableTool{silent}, llm.ToolCall{ID: "c1", Name: "silent", Arguments: `{}`})
	wantOK(t, got[0], "Tool output is empty.")
	// The <system>Tool output is empty.</system> projection belongs to
	// agent/history's tool-result rendering.
}
