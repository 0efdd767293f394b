package loop

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"
)

// graceTimeout is how long a cancelled call may keep running before the
// loop records it as abandoned (spec 01 §4.10.5).
const graceTimeout = 2 * time.Second

// outcome is what an Execute call produced.
type outcome struct {
	res       ToolResult
	err       error
	panicked  bool
	panicText string
	stack     []byte // the panicking goroutine's stack
}

// execute runs one call on the scheduler's goroutine and returns its result.
// Execute itself runs on a goroutine of its own so that a call ignoring
// cancellation cannot hold the turn: once ctx is done the call gets
// graceTimeout to return, and after that its goroutine is abandoned. The
// abandoned goroutine finishes on its own; its late result goes into a
// buffered channel nobody reads.
func execute(ctx context.Context, log *slog.Logger, name string,
	fn func(context.Context, ExecCtx) (ToolResult, error), ec ExecCtx) ToolResult {
	if ctx.Err() != nil { // queued behind a call and released after an abort
		return abortedResult(ctx, name)
	}
	done := make(chan outcome, 1)
	go runExecute(ctx, fn, ec, done)
	var o outcome
	select {
	case o = <-done:
	case <-ctx.Done():
		grace := time.NewTimer(graceTimeout)
		defer grace.Stop()
		select {
		case o = <-done:
		case <-grace.C:
			return ErrorResult(fmt.Sprintf("Tool %q aborted by grace timeout (%dms)", name, graceTimeout.Milliseconds()))
		}
	}
	switch {
	case o.panicked:
		log.Error("tool panicked in Execute", "tool", name, "call_id", ec.ToolCallID, "panic", o.panicText,
			"stack", string(o.stack))
		return ErrorResult(fmt.Sprintf("Tool %q failed: panic: %s", name, o.panicText))
	case o.err != nil && (IsAbort(o.err) || ctx.Err() != nil):
		return abortedResult(ctx, name)
	case o.err != nil:
		log.Warn("tool failed", "tool", name, "call_id", ec.ToolCallID, "error", o.err)
		return ErrorResult(fmt.Sprintf("Tool %q failed: %s", name, o.err))
	}
	return o.res
}

// runExecute is the boundary where a tool's panic stops: the model gets an
// error result and execute logs the defect with its stack.
func runExecute(ctx context.Context, fn func(context.Context, ExecCtx) (ToolResult, error),
	ec ExecCtx, done chan<- outcome) {
	defer func() {
		if r := recover(); r != nil {
			done <- outcome{panicked: true, panicText: fmt.Sprint(r), stack: debug.Stack()}
		}
	}()
	res, err := fn(ctx, ec)
	done <- outcome{res: res, err: err}
}
