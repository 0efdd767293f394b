package batch

import (
	"context"
	"errors"
	"fmt"

	"github.com/kimigo/kimigo/loop"
)

// start launches one attempt of s on its own goroutine. The attempt's ctx
// is the batch's, cancelled on its own at the task's timeout. Launches
// (the Launcher calls that create or claim a child) run one after another
// in the order the attempts started, so new children are numbered in that
// order; the children then run side by side.
func (b *batch) start(s *taskState) {
	ctx, cancel := context.WithCancelCause(b.ctx)
	a := &attempt{state: s, cancel: cancel}
	b.active[a] = struct{}{}
	launched := make(chan struct{})
	job := attemptJob{a: a, task: s.task, retryAgentID: s.retryAgentID, agentID: s.agentID,
		after: b.lastLaunch, launched: launched}
	b.lastLaunch = launched
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		defer cancel(nil)
		if d := job.task.Timeout; d > 0 {
			fired, stop := b.clock.After(d)
			b.wg.Add(1)
			go func() {
				defer b.wg.Done()
				defer stop()
				select {
				case <-fired:
					cancel(errTimedOut)
				case <-ctx.Done():
				}
			}()
		}
		b.send(b.runAttempt(ctx, job))
	}()
}

// attemptJob is what an attempt's goroutine knows: copies, never the
// loop's state.
type attemptJob struct {
	a            *attempt
	task         Task
	retryAgentID string
	agentID      string
	// after is closed when the previous attempt's launch returned;
	// launched is closed when this one's did.
	after, launched chan struct{}
}

// send hands an event to the loop; after the loop returned it is dropped.
func (b *batch) send(ev any) {
	select {
	case b.events <- ev:
	case <-b.done:
	}
}

// runAttempt launches the child (retry > resume > spawn), waits for it and
// says how it ended. It runs on the attempt's goroutine.
func (b *batch) runAttempt(ctx context.Context, j attemptJob) (o outcome) {
	o.a = j.a
	agentID := j.agentID
	defer func() {
		if p := recover(); p != nil {
			b.logger.Error("subagent launch panicked", "panic", fmt.Sprint(p))
			o = b.failed(ctx, j, agentID, fmt.Errorf("subagent launch panicked: %v", p))
		}
	}()
	run := Launch{OnReady: func() { b.send(ready{j.a}) }}
	var (
		h   Handle
		err error
	)
	launching := true
	defer func() {
		if launching {
			close(j.launched)
		}
	}()
	if j.after != nil {
		select {
		case <-j.after:
		case <-ctx.Done():
		}
	}
	switch {
	case ctx.Err() != nil:
		err = context.Cause(ctx)
	case j.retryAgentID != "":
		h, err = b.l.Retry(ctx, j.retryAgentID, j.task, run)
	case j.task.Kind == KindResume:
		h, err = b.l.Resume(ctx, j.task.ResumeAgentID, j.task, run)
	default:
		h, err = b.l.Spawn(ctx, j.task, run)
	}
	launching = false
	close(j.launched)
	if err == nil && h == nil {
		err = errors.New("the launcher returned no child")
	}
	if err != nil {
		return b.failed(ctx, j, agentID, err)
	}
	agentID = h.AgentID()
	b.send(launched{j.a, agentID})
	c, err := h.Wait()
	switch {
	case err == nil:
		o.result = Result{Task: j.task, AgentID: agentID, Status: StatusCompleted, Output: c.Output, Usage: c.Usage}
	case b.o.IsRateLimit(err):
		o.rateLimited = true
		o.result = Result{Task: j.task, AgentID: agentID, Status: StatusFailed, State: StateStarted, Error: message(ctx, err, StatusFailed)}
	default:
		o = b.failed(ctx, j, agentID, err)
	}
	return o
}

// failed is the outcome of an attempt that failed with err: aborted when
// the user cancelled it, failed otherwise.
func (b *batch) failed(ctx context.Context, j attemptJob, agentID string, err error) outcome {
	status := StatusFailed
	if ctx.Err() != nil && errors.Is(context.Cause(ctx), loop.ErrUserCancelled) {
		status = StatusAborted
	}
	state := StateStarted
	if agentID == "" {
		state = StateNotStarted
	}
	return outcome{a: j.a, result: Result{Task: j.task, AgentID: agentID, Status: status, State: state, Error: message(ctx, err, status)}}
}

// message is what a failed attempt reports.
func message(ctx context.Context, err error, status Status) string {
	switch {
	case errors.Is(context.Cause(ctx), errTimedOut):
		return msgTimedOut
	case status == StatusAborted:
		return msgUserInterrupted
	}
	return err.Error()
}
