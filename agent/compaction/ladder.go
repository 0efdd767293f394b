package compaction

import (
	"context"
	"errors"
	"time"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/llm"
)

// Bounds of one round (spec 03 §6.10).
const (
	maxOverflowShrinks = 3
	maxEmptyShrinks    = 5
	maxRetryAttempts   = 5
	jitterRatio        = 0.25
)

// retryDelays are the base backoff delays of transient failures.
var retryDelays = [...]time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second}

// ladder counts what a round has tried so far.
type ladder struct {
	mediaStripped   bool
	overflowShrinks int
	emptyShrinks    int
	retries         int // transient attempts since the last reshaping
}

// summary is a model's answer to a summary request.
type summary struct {
	text  string
	usage *llm.TokenUsage
}

// summarize asks the model for the summary until it answers, degrading the
// request on each failure, or the ladder ends with the failure that ended
// it (spec 03 §6.9 step 7).
func (c *FullCompaction) summarize(ctx context.Context, s *summaryRequest) (summary, error) {
	var lad ladder
	for {
		msgs := s.fit(c.EffectiveMaxContextTokens())
		est := s.estimate(msgs)
		sum, err := c.ask(ctx, s, msgs)
		if err == nil {
			return sum, nil
		}
		if ctx.Err() != nil {
			return summary{}, llm.Aborted(ctx)
		}
		delay, err := c.degrade(&lad, s, err, est)
		if err != nil {
			return summary{}, err
		}
		if err := sleep(ctx, delay); err != nil {
			return summary{}, err
		}
	}
}

// ask sends one summary request. A truncated answer and one without
// summary text are failures the ladder handles.
func (c *FullCompaction) ask(ctx context.Context, s *summaryRequest, msgs []llm.Message) (summary, error) {
	res, err := c.o.Generate(ctx, s.provider, s.request(msgs), llm.Callbacks{}, s.fields())
	if err != nil {
		return summary{}, err
	}
	if res.FinishReason == llm.FinishTruncated {
		return summary{}, errTruncated
	}
	text := summaryText(res.Message)
	if history.IsBlank(text) {
		return summary{}, errEmptySummary()
	}
	return summary{text: text, usage: res.Usage}, nil
}

// degrade applies the first rung of the ladder that fits e (spec 03
// §6.10): it reshapes the request and asks for an immediate retry, asks
// for a retry after a delay, or returns the error that ends the round.
func (c *FullCompaction) degrade(lad *ladder, s *summaryRequest, e error, est int) (time.Duration, error) {
	c.log.Warn("compaction request failed", "error", e, "dropped_count", s.dropped, "estimate", est)
	tooLarge := llm.IsRequestTooLarge(e)
	// 1. Media the provider cannot take or that makes the body too large.
	if (tooLarge || llm.IsImageFormatError(e)) && !lad.mediaStripped {
		lad.mediaStripped = true
		if stripped, changed := stripMedia(s.snapshot); changed {
			s.snapshot, lad.retries = stripped, 0
			return 0, nil
		}
	}
	// 2. An overflow teaches the window.
	overflow := c.ShouldRecoverFromContextOverflow(e, est)
	if overflow {
		c.ObserveContextOverflow(est)
	}
	// 3. Too much input: keep a shrinking share of the newest.
	if (overflow || tooLarge) && s.size() > 1 {
		if lad.overflowShrinks++; lad.overflowShrinks > maxOverflowShrinks {
			return 0, e
		}
		s.shrink(lad.overflowShrinks)
		lad.retries = 0
		return 0, nil
	}
	// 4. No usable summary: leave out the oldest input and ask again.
	if (errors.Is(e, errTruncated) || llm.IsEmptyResponse(e)) && s.size() > 1 {
		if lad.emptyShrinks++; lad.emptyShrinks > maxEmptyShrinks {
			return 0, e
		}
		s.dropOldest()
		lad.retries = 0
		return 0, nil
	}
	// 5–7. Transient failures back off; everything else ends the round.
	if !llm.IsRetryable(e) || lad.retries+1 >= maxRetryAttempts {
		return 0, e
	}
	base := retryDelays[min(lad.retries, len(retryDelays)-1)]
	lad.retries++
	return base + time.Duration(float64(base)*jitterRatio*c.rand()), nil
}

// sleep waits d, or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return llm.Aborted(ctx)
	}
}
