package compaction

import (
	"context"
	"errors"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/llm"
)

// errNoModel fails a round when no model is configured.
var errNoModel = errors.New("no model is configured")

// round is one compaction round (spec 03 §6.9): snapshot history, run the
// PreCompact hook, ask the model for a summary down the degradation
// ladder, record its usage, check for races and commit the rewrite. It
// returns the applied record. Nothing is written to history unless the
// rewrite is committed; errRaced and errCancelled mean history was left
// exactly as it was.
func (c *FullCompaction) round(r *run) (history.ApplyCompactionRecord, error) {
	ctx := r.ctx
	original := c.o.History.History()
	tokensBefore := estimateHistory(original)
	if err := c.preCompact(ctx, r.source, tokensBefore); err != nil {
		return history.ApplyCompactionRecord{}, err
	}
	m, err := c.o.Model()
	if err == nil && m.Provider == nil {
		err = errNoModel
	}
	if err != nil {
		return history.ApplyCompactionRecord{}, err
	}
	req := c.newSummaryRequest(m, r.instruction, original)
	sum, err := c.summarize(ctx, req)
	if err != nil {
		return history.ApplyCompactionRecord{}, err
	}
	// Usage first: the tokens were spent even if a race discards the
	// summary.
	if sum.usage != nil && c.o.Usage != nil {
		if err := c.o.Usage.RecordUsage(ctx, req.model, *sum.usage); err != nil {
			c.log.Warn("record compaction usage failed", "error", err)
		}
	}
	raw := sum.text
	if c.o.Todos != nil {
		raw = withTodos(raw, c.o.Todos())
	}
	in := history.CompactionInput{Summary: raw, ContextSummary: ContextSummary(raw),
		CompactedCount: len(original), TokensBefore: tokensBefore}
	if req.dropped > 0 {
		in.DroppedCount = &req.dropped
	}
	return c.apply(r, original, in)
}

// apply commits the rewrite if the snapshot is still history's prefix and
// the compaction was not cancelled meanwhile; both are decided under the
// agent's state lock, atomically with the commit.
func (c *FullCompaction) apply(r *run, original []history.Message, in history.CompactionInput) (history.ApplyCompactionRecord, error) {
	var rec history.ApplyCompactionRecord
	claimed := false
	err := c.o.Commit.CommitCompaction(context.WithoutCancel(r.ctx), func(m *history.Memory) (history.ApplyCompactionRecord, error) {
		if err := checkRace(original, m.History()); err != nil {
			return history.ApplyCompactionRecord{}, err
		}
		if !r.state.CompareAndSwap(stateBegun, stateApplying) {
			return history.ApplyCompactionRecord{}, errCancelled
		}
		claimed = true
		rec = m.CompactionRecord(in)
		return rec, nil
	})
	if err != nil {
		if claimed {
			r.state.Store(stateBegun) // the commit failed: cancel may act again
		}
		return history.ApplyCompactionRecord{}, err
	}
	r.state.Store(stateApplied)
	tokens := c.o.History.TokenCountWithPending()
	c.mu.Lock()
	c.lastCompactedTokens = &tokens
	c.mu.Unlock()
	c.log.Info("context compacted", "source", r.source, "tokens_before", in.TokensBefore,
		"tokens_after", derefOr(rec.TokensAfter), "dropped_count", derefOr(in.DroppedCount))
	return rec, nil
}

// preCompact runs the PreCompact hook; a cancel before or during it ends
// the round.
func (c *FullCompaction) preCompact(ctx context.Context, source Source, tokens int) error {
	if ctx.Err() != nil {
		return llm.Aborted(ctx)
	}
	if c.o.Hooks != nil {
		c.o.Hooks.PreCompact(ctx, source, tokens)
	}
	if ctx.Err() != nil {
		return llm.Aborted(ctx)
	}
	return nil
}

func derefOr(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}
