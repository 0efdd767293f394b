package compaction

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/kimigo/kimigo/event"
)

// persistTimeout bounds the writes that must outlive a cancel.
const persistTimeout = 5 * time.Second

// The states of a run. Cancel acts only before the rewrite is claimed, so
// a cancelled compaction never leaves a rewritten history behind, and a
// rewritten one never records a cancel.
const (
	stateReserved  int32 = iota // claimed the compacting slot; begin not recorded yet
	stateBegun                  // full_compaction.begin written; the worker runs
	stateApplying               // the rewrite is being committed
	stateApplied                // history was rewritten
	stateCancelled              // cancelled, raced or failed before the rewrite
)

// run is one compaction in flight (spec 03 §7.5).
type run struct {
	source      Source
	instruction string
	ctx         context.Context
	cancel      context.CancelCauseFunc
	state       atomic.Int32
	// done is closed when the worker finished, after err was set.
	done chan struct{}
	// cancelled is closed by whoever cancelled the begun run, once the
	// cancel is recorded and the slot freed; the worker ends after it, so
	// no other compaction can begin before the cancel is in the log.
	cancelled chan struct{}
	err       error
	// blockedByTurn is set when a turn waits for the run; blockedSent once
	// compaction.blocked went out for it. Both guarded by the
	// FullCompaction's mu.
	blockedByTurn, blockedSent bool
}

// Compact starts a manual compaction with an optional focus instruction
// (spec 03 §6.15) and returns once it runs; compaction.completed or
// compaction.cancelled tells how it ended, and Wait waits for it. It fails
// with compaction.unable while a turn runs or when history is empty. Input
// that arrives meanwhile waits and is delivered afterwards. A compaction
// already running is left alone.
func (c *FullCompaction) Compact(ctx context.Context, instruction string) error {
	_, err := c.begin(ctx, SourceManual, instruction, false)
	return err
}

// Wait waits for the most recent compaction to end and returns how a
// manual one failed: nil when it completed, was cancelled or yielded to a
// race, or when there was none.
func (c *FullCompaction) Wait(ctx context.Context) error {
	c.mu.Lock()
	r := c.last
	c.mu.Unlock()
	if r == nil {
		return nil
	}
	select {
	case <-r.done:
		return r.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Cancel stops the running compaction (spec 03 §6.7): it records
// full_compaction.cancel, emits compaction.cancelled and leaves history as
// it was. A compaction whose rewrite is already being committed is past
// cancelling and completes.
func (c *FullCompaction) Cancel(ctx context.Context) error {
	c.mu.Lock()
	r := c.compacting
	c.mu.Unlock()
	if r == nil {
		return nil
	}
	return c.cancelRun(ctx, r)
}

// begin is Begin of spec 03 §6.7. It returns the started run, or nil when
// nothing started (one is running already, the per-turn count is used up,
// or it was cancelled at once). blocked says the caller will wait for it.
func (c *FullCompaction) begin(ctx context.Context, source Source, instruction string, blocked bool) (*run, error) {
	r := c.reserve(source, instruction, blocked)
	if r == nil {
		return nil, nil
	}
	// Reserved first: from here on Prompt and Steer wait, so a turn can
	// no longer start unseen between the check and the start.
	err := c.mayBegin(source)
	if err == nil {
		if err = c.o.Commit.Commit(ctx, TypeBegin, BeginRecord{Source: source, Instruction: instruction}); err != nil {
			err = fmt.Errorf("record %s: %w", TypeBegin, err)
		}
	}
	if err != nil {
		c.withdraw(r)
		return nil, err
	}
	c.log.Info("compaction started", "source", source)
	c.emit(event.CompactionStarted{Header: c.header(), Trigger: string(source), Instruction: instruction})
	if !r.state.CompareAndSwap(stateReserved, stateBegun) {
		// Cancelled before its begin was written: the cancel follows it.
		if err := c.recordCancel(ctx); err != nil {
			c.log.Warn("record compaction cancel failed", "error", err)
		}
		close(r.cancelled)
		c.end(r)
		return nil, nil
	}
	if blocked {
		// The turn will wait for it: say so before the worker can finish,
		// so compaction.blocked always precedes completed or cancelled.
		c.sendBlocked(r)
	}
	go c.work(r)
	return r, nil
}

// reserve claims the compacting slot and counts the compaction.
func (c *FullCompaction) reserve(source Source, instruction string, blocked bool) *run {
	perTurn := c.Strategy().MaxCompactionPerTurn() // read before the lock: it asks the agent for its model
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.compacting != nil || c.closed {
		return nil
	}
	if source == SourceManual {
		c.countInTurn = 0
	} else {
		c.countInTurn++
	}
	if perTurn > 0 && c.countInTurn > perTurn {
		return nil
	}
	r := &run{source: source, instruction: instruction, blockedByTurn: blocked,
		done: make(chan struct{}), cancelled: make(chan struct{})}
	r.ctx, r.cancel = context.WithCancelCause(c.base)
	c.compacting, c.last = r, r
	c.wg.Add(1)
	return r
}

// mayBegin refuses what cannot be compacted: an empty history, and a
// manual compaction while a turn runs (an automatic one runs inside the
// turn, at a step boundary).
func (c *FullCompaction) mayBegin(source Source) error {
	if len(c.o.History.History()) == 0 {
		return unableError(msgNoMessages)
	}
	if source == SourceManual && c.o.Turns.HasActiveTurn() {
		return unableError(msgTurnActive)
	}
	return nil
}

// withdraw releases a reservation that never began, delivering input that
// waited for it when no turn will.
func (c *FullCompaction) withdraw(r *run) {
	r.state.Store(stateCancelled)
	r.cancel(errCancelled)
	c.release(r)
	if !c.o.Turns.HasActiveTurn() {
		c.finished(r)
	}
	close(r.done)
	c.wg.Done()
}

// end closes a run that began: it frees the slot, hands the input that
// waited back to TurnFlow and wakes the waiters.
func (c *FullCompaction) end(r *run) {
	if r.state.Load() == stateCancelled {
		<-r.cancelled
	}
	c.release(r)
	c.finished(r)
	close(r.done)
	c.wg.Done()
}

// release frees the compacting slot if r still holds it.
func (c *FullCompaction) release(r *run) {
	c.mu.Lock()
	if c.compacting == r {
		c.compacting = nil
	}
	c.mu.Unlock()
}

// cancelRun cancels r unless its rewrite was claimed. A begun run records
// the cancel before it frees the slot, so the next compaction's begin
// always follows it in the log; a reserved one leaves both to begin,
// after its begin record.
func (c *FullCompaction) cancelRun(ctx context.Context, r *run) error {
	prev := r.state.Load()
	for prev == stateReserved || prev == stateBegun {
		if r.state.CompareAndSwap(prev, stateCancelled) {
			break
		}
		prev = r.state.Load()
	}
	if prev != stateReserved && prev != stateBegun {
		return nil
	}
	r.cancel(errCancelled)
	if prev == stateReserved {
		return nil
	}
	err := c.recordCancel(ctx)
	c.release(r)
	close(r.cancelled)
	return err
}

// recordCancel writes full_compaction.cancel and emits
// compaction.cancelled.
func (c *FullCompaction) recordCancel(ctx context.Context) error {
	ctx, done := context.WithTimeout(context.WithoutCancel(ctx), persistTimeout)
	defer done()
	err := c.o.Commit.Commit(ctx, TypeCancel, CancelRecord{})
	c.log.Info("compaction cancelled")
	c.emit(event.CompactionCancelled{Header: c.header()})
	if err != nil {
		return fmt.Errorf("record %s: %w", TypeCancel, err)
	}
	return nil
}

// finished hands the input that waited back to TurnFlow, unless another
// compaction holds the slot by now: that one hands it back when it ends.
func (c *FullCompaction) finished(r *run) {
	c.mu.Lock()
	other := c.compacting != nil && c.compacting != r
	c.mu.Unlock()
	if other {
		return
	}
	ctx, done := context.WithTimeout(context.WithoutCancel(r.ctx), persistTimeout)
	defer done()
	c.o.Turns.OnCompactionFinished(ctx)
}

// isCancellation reports whether err ended r because r was cancelled.
func isCancellation(r *run, err error) bool {
	return r.ctx.Err() != nil || errors.Is(err, errCancelled)
}
