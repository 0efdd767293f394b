package compaction

import (
	"context"

	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
)

// BeforeStep is the turn's step hook (spec 03 §6.5): it starts an
// automatic compaction when the context is over the trigger, and makes the
// step wait for the running one when it is over the block threshold. The
// context counted is history with everything pending, including the new
// prompt and the last step's tool results. An error fails the step.
func (c *FullCompaction) BeforeStep(ctx context.Context, _ int) error {
	used := c.o.History.TokenCountWithPending()
	blocking := c.Strategy().ShouldBlock(used)
	r, err := c.checkAuto(ctx, used, true, blocking)
	if err != nil {
		return err
	}
	if blocking {
		return c.block(ctx, r)
	}
	return nil
}

// AfterStep runs after every sealed step: a step went through, so the
// overflow streak ends; a strategy that triggers below its block
// threshold may start a compaction here, in the background.
func (c *FullCompaction) AfterStep(ctx context.Context) {
	c.mu.Lock()
	c.consecutiveOverflows = 0
	c.mu.Unlock()
	if !c.Strategy().CheckAfterStep() {
		return
	}
	if _, err := c.checkAuto(ctx, c.o.History.TokenCountWithPending(), false, false); err != nil {
		c.log.Warn("start compaction after step failed", "error", err)
	}
}

// checkAuto starts an automatic compaction when used calls for one and
// the history changed since this turn's last compaction: compacting a
// history already in its compacted form would only nest summaries. It
// returns the compaction running afterwards, if any.
func (c *FullCompaction) checkAuto(ctx context.Context, used int, throwOnLimit, blocking bool) (*run, error) {
	c.mu.Lock()
	running := c.compacting
	floor := c.lastCompactedTokens != nil && used <= *c.lastCompactedTokens
	c.mu.Unlock()
	if running != nil || floor || !c.Strategy().ShouldCompact(used) {
		return running, nil
	}
	return c.beginAuto(ctx, throwOnLimit, blocking)
}

// beginAuto starts an automatic compaction unless the per-turn limit is
// reached, which fails with context.overflow when throwOnLimit is set. A
// blocking caller waits for the compaction it gets, so its failure is
// that caller's to report. It returns the compaction running afterwards,
// if any.
func (c *FullCompaction) beginAuto(ctx context.Context, throwOnLimit, blocking bool) (*run, error) {
	max := c.Strategy().MaxCompactionPerTurn() // before the lock: it asks the agent for its model
	c.mu.Lock()
	running := c.compacting
	limited := running == nil && max > 0 && c.countInTurn >= max
	if limited && throwOnLimit {
		c.limitRaised = true
	}
	c.mu.Unlock()
	switch {
	case running != nil:
		return running, nil
	case limited && throwOnLimit:
		return nil, limitError(max)
	case limited:
		return nil, nil
	}
	return c.begin(ctx, SourceAuto, "", blocking)
}

// HandleOverflowError recovers from a step the provider rejected as over
// the context window (spec 03 §6.6): compact, wait for it, and let the
// turn retry with a new run. After MaxOverflowCompactionAttempts
// consecutive overflows without a successful step it gives up with
// context.overflow. The per-turn limit error comes back unchanged: it is
// not an overflow and compacting cannot fix it.
func (c *FullCompaction) HandleOverflowError(ctx context.Context, err error) error {
	if IsLimitExceeded(err) {
		c.mu.Lock()
		c.limitRaised = false
		c.mu.Unlock()
		return err
	}
	c.mu.Lock()
	c.consecutiveOverflows++
	n := c.consecutiveOverflows
	c.mu.Unlock()
	if max := c.Strategy().MaxOverflowCompactionAttempts(); n > max {
		return overflowLoopError(max, err)
	}
	r, berr := c.beginAuto(ctx, true, true)
	if berr != nil {
		return berr
	}
	if r == nil {
		return err
	}
	return c.block(ctx, r)
}

// block makes the caller wait for r, or for the running compaction when r
// is nil (spec 03 §6.5). Cancelling ctx cancels that compaction, unless
// its rewrite is already being committed. A failure of the compaction is
// returned, failing the step; with nothing to wait for it returns at once.
func (c *FullCompaction) block(ctx context.Context, r *run) error {
	c.mu.Lock()
	if r == nil {
		r = c.compacting
	}
	if r != nil {
		r.blockedByTurn = true
	}
	c.mu.Unlock()
	if r == nil {
		return nil
	}
	c.sendBlocked(r)
	select {
	case <-r.done:
		return r.err
	case <-ctx.Done():
		if err := c.cancelRun(ctx, r); err != nil {
			c.log.Warn("record compaction cancel failed", "error", err)
		}
		<-r.done
		return llm.Aborted(ctx)
	}
}

// sendBlocked emits compaction.blocked for r, once.
func (c *FullCompaction) sendBlocked(r *run) {
	c.mu.Lock()
	sent := r.blockedSent
	r.blockedSent = true
	c.mu.Unlock()
	if !sent {
		c.emit(event.CompactionBlocked{Header: event.InTurn(c.o.Turns.CurrentID())})
	}
}
