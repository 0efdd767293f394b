package compaction

import (
	"context"
	"errors"

	"github.com/kimigo/kimigo/event"
)

// work is the worker of one compaction (spec 03 §6.8): the round, then the
// aftermath of a rewrite, then — in every terminal path — the input that
// waited goes back to TurnFlow. Only then is done closed, so a turn that
// waited resumes after that input was delivered.
func (c *FullCompaction) work(r *run) {
	err := c.complete(r)
	switch {
	case err == nil:
	case errors.Is(err, errRaced):
		c.log.Info("compaction yielded to a history change")
		if cerr := c.cancelRun(r.ctx, r); cerr != nil {
			c.log.Warn("record compaction cancel failed", "error", cerr)
		}
	case isCancellation(r, err):
		// Cancel already recorded and reported it; Close ends it silently.
	default:
		err = failedError(err)
		c.mu.Lock()
		blocked := r.blockedByTurn
		c.mu.Unlock()
		if cerr := c.cancelRun(r.ctx, r); cerr != nil {
			c.log.Warn("record compaction cancel failed", "error", cerr)
		}
		c.log.Error("compaction failed", "source", r.source, "error", err)
		if blocked {
			r.err = err // the waiting turn fails with it
		} else {
			c.failed(err)
			if r.source == SourceManual {
				r.err = err // for Wait
			}
		}
	}
	c.end(r)
}

// complete runs the round and, after a rewrite, refreshes the system
// prompt, reinjects the reminders the rewrite removed and marks the
// compaction completed (spec 03 §6.8 steps 1–7). The compaction stays
// "compacting" until the reminders are back, so input arriving meanwhile
// waits and the first request after it already carries them.
func (c *FullCompaction) complete(r *run) error {
	rec, err := c.round(r)
	if err != nil {
		return err
	}
	// History is rewritten: what follows must finish even if the turn or
	// the user cancels now, and a failure in it is logged, not turned into
	// a cancel of a compaction that already happened.
	ctx, done := context.WithTimeout(context.WithoutCancel(r.ctx), persistTimeout)
	defer done()
	if c.o.RefreshSystemPrompt != nil {
		if err := c.o.RefreshSystemPrompt(ctx); err != nil {
			c.log.Warn("refresh system prompt after compaction failed", "error", err)
		}
	}
	if c.o.Reinject != nil {
		if err := c.o.Reinject(ctx); err != nil {
			c.log.Warn("reinject reminders after compaction failed", "error", err)
		}
	}
	tokens := c.o.History.TokenCountWithPending()
	if err := c.o.Commit.Commit(ctx, TypeComplete, CompleteRecord{}); err != nil {
		c.log.Warn("record compaction complete failed", "error", err)
	}
	c.mu.Lock()
	c.lastCompactedTokens = &tokens
	c.mu.Unlock()
	c.release(r)
	c.emit(event.CompactionCompleted{Header: c.header(), Result: resultOf(rec)})
	if c.o.Hooks != nil {
		c.o.Hooks.PostCompact(r.source, derefOr(rec.TokensAfter))
	}
	return nil
}
