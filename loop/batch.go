package loop

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/kimigo/kimigo/llm"
)

// Fixed wordings of calls the batch answers itself.
const (
	skippedText = "Tool skipped because a previous tool call stopped the turn."
	// unexecutedText answers the calls of a response that was cut off.
	unexecutedText = "This tool call was not executed: the model response ended before tool execution " +
		"could start (the provider stream was interrupted). Do not assume the tool ran; issue the call " +
		"again if you still need it."
)

// allAccess is the scheduler default for executions that declare nothing.
var allAccess = All()

// batch runs the tool calls of one response.
type batch struct {
	t     *turn
	s     *stepState
	calls []llm.ToolCall
	sched *scheduler
	// runCtx is the tools' ctx: the turn's ctx, also cancelled when the
	// batch fails, so no execution outlives a failed step for long.
	runCtx context.Context
}

// pending is a call whose tool.call is recorded and whose result is known
// (result) or coming from the scheduler (done).
type pending struct {
	call   llm.ToolCall
	args   json.RawMessage
	result ToolResult
	done   chan ToolResult // buffered; nil when result is already known
}

// runBatch records a tool.call and a tool.result for every call, in
// provider order: all calls first, while runnable ones start as the
// scheduler allows, then the results (spec 01 §4.10). It returns whether a
// call stopped the turn. It returns only after every started execution has
// settled, except one abandoned by the grace timeout. Its only errors are
// transcript failures.
func (t *turn) runBatch(ctx context.Context, s *stepState, calls []llm.ToolCall) (stop bool, err error) {
	runCtx, cancel := context.WithCancelCause(ctx)
	b := &batch{t: t, s: s, calls: calls, sched: newScheduler(t.log), runCtx: runCtx}
	defer func() {
		cancel(err) // on failure the cause is the transcript error; on success everything settled
		b.sched.close()
	}()
	plans := t.preflight(s, calls)
	pendings := make([]*pending, 0, len(plans))
	skipping := false
	for i := range plans {
		var (
			pd        *pending
			stopBatch bool
		)
		if skipping {
			p := &plans[i]
			pd, _, err = b.settle(&prepCall{plan: p, args: p.args, rawArgs: p.rawArgs}, ErrorResult(skippedText))
		} else {
			pd, stopBatch, err = b.prepare(ctx, &plans[i])
		}
		if err != nil {
			return false, err
		}
		pendings = append(pendings, pd)
		if stopBatch {
			skipping, stop = true, true
		}
	}
	for _, pd := range pendings {
		callStop, err := b.finish(ctx, pd)
		if err != nil {
			return false, err
		}
		stop = stop || callStop
	}
	return stop, nil
}

// finish waits for a call's result, finalises it and records it.
func (b *batch) finish(ctx context.Context, pd *pending) (bool, error) {
	res := pd.result
	if pd.done != nil {
		res = <-pd.done
	}
	res, stop := b.finalize(ctx, pd, res)
	return stop, b.t.record(ToolResultEvent{ParentUUID: pd.call.ID, ToolCallID: pd.call.ID,
		Result: normalizeResult(res), TraceID: b.s.trace.TraceID()})
}

// finalize runs FinalizeToolResult. A hook failure discards the raw output:
// the hook may be what redacts or truncates it.
func (b *batch) finalize(ctx context.Context, pd *pending, res ToolResult) (ToolResult, bool) {
	stop := res.StopTurn
	h := b.t.in.Hooks.FinalizeToolResult
	if h == nil {
		return res, stop
	}
	name := pd.call.Name
	r, err := h(ctx, ResultCtx{StepCtx: b.t.stepCtx(b.s.n), TraceID: b.s.trace.TraceID(), ToolCall: pd.call,
		ToolCalls: b.calls, Args: pd.args, Result: res})
	switch {
	case err != nil && (IsAbort(err) || ctx.Err() != nil):
		return ErrorResult(fmt.Sprintf("Tool %q aborted during finalizeToolResult hook.", name)), stop
	case err != nil:
		return ErrorResult(fmt.Sprintf("finalizeToolResult hook failed for %q: %s", name, err)), stop
	case r != nil:
		return *r, stop || r.StopTurn
	}
	return res, stop
}

// schedule hands a runnable call to the scheduler.
func (b *batch) schedule(c *prepCall, exec Execution) *pending {
	call := c.plan.call
	pd := &pending{call: call, args: c.args, done: make(chan ToolResult, 1)}
	accesses := exec.Accesses
	if accesses == nil {
		accesses = allAccess
	}
	runCtx, d, log := b.runCtx, b.t.d, b.t.log
	ec := ExecCtx{
		TurnID:     b.t.in.TurnID,
		ToolCallID: call.ID,
		TraceID:    b.s.trace.TraceID(),
		Metadata:   c.meta,
		OnUpdate: func(u ProgressUpdate) {
			if runCtx.Err() == nil {
				d.Emit(ToolProgressEvent{ToolCallID: call.ID, Update: u})
			}
		},
		OnForegroundTaskStart: func(string) {},
	}
	b.sched.add(accesses, func() { pd.done <- execute(runCtx, log, call.Name, exec.Execute, ec) })
	return pd
}

// recordUnexecuted answers the calls of a response that ended before tools
// could run: no hook runs and nothing executes.
func (t *turn) recordUnexecuted(s *stepState, calls []llm.ToolCall) error {
	for _, c := range calls {
		args, problem := parseArgs(c.Arguments)
		raw := ""
		if problem != "" {
			raw = c.Arguments
		}
		trace := s.trace.TraceID()
		if err := t.record(ToolCallEvent{UUID: c.ID, TurnID: t.in.TurnID, Step: s.n, StepUUID: s.uuid,
			ToolCallID: c.ID, Name: c.Name, Args: args, RawArgs: raw, Extras: c.Extras, TraceID: trace}); err != nil {
			return err
		}
		if err := t.record(ToolResultEvent{ParentUUID: c.ID, ToolCallID: c.ID,
			Result: normalizeResult(ErrorResult(unexecutedText)), TraceID: trace}); err != nil {
			return err
		}
	}
	return nil
}
