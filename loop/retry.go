package loop

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/kimigo/kimigo/llm"
)

// Retry policy constants (spec 01 §4.7, and the bounds of the wire issue).
const (
	defaultMaxAttempts = 10
	retryBaseDelay     = 500 * time.Millisecond
	retryMaxDelay      = 32 * time.Second
	// DefaultStallTimeout is how long a request may go without an answer
	// in progress, retries included, when RunTurnInput.StallTimeout is
	// zero. With the providers' default two-minute idle timeout, a service
	// that stalls, only keeps the connection alive, or refuses every time
	// ends the step in three minutes.
	DefaultStallTimeout = 3 * time.Minute
	// DefaultMaxRetryAfter is the longest Retry-After honoured when
	// RunTurnInput.MaxRetryAfter is zero.
	DefaultMaxRetryAfter = time.Minute
)

// maxAttempts is the number of attempts a request gets; 1 when the LLM
// cannot tell retryable failures apart.
func (t *turn) maxAttempts() int {
	if _, ok := t.in.LLM.(RetryClassifier); !ok {
		return 1
	}
	switch n := t.in.MaxRetryAttempts; {
	case n == 0:
		return defaultMaxAttempts
	case n < 1:
		return 1
	default:
		return n
	}
}

// stallTimeout is the bound on a request's time without an answer in
// progress; 0 means none.
func (t *turn) stallTimeout() time.Duration {
	switch d := t.in.StallTimeout; {
	case d == 0:
		return DefaultStallTimeout
	case d < 0:
		return 0
	default:
		return d
	}
}

// maxRetryAfter is the longest Retry-After honoured; 0 means any.
func (t *turn) maxRetryAfter() time.Duration {
	switch d := t.in.MaxRetryAfter; {
	case d == 0:
		return DefaultMaxRetryAfter
	case d < 0:
		return 0
	default:
		return d
	}
}

func (t *turn) retryable(err error) bool {
	rc, ok := t.in.LLM.(RetryClassifier)
	return ok && rc.IsRetryable(err)
}

// retryDelay is the wait after failed attempt k (1-based): exponential from
// 500 ms, capped at 32 s, plus up to a quarter of jitter; a positive
// Retry-After from the server wins. tooLong reports a Retry-After above
// the cap, which is not honoured at all: the step fails instead.
func (t *turn) retryDelay(k int, err error) (delay time.Duration, tooLong bool) {
	if e, ok := llm.AsError(err); ok && e.RetryAfter > 0 {
		limit := t.maxRetryAfter()
		return e.RetryAfter, limit > 0 && e.RetryAfter > limit
	}
	base := retryMaxDelay
	if k <= 7 { // 500 ms · 2^6 = 32 s
		base = min(retryBaseDelay<<(k-1), retryMaxDelay)
	}
	return base + time.Duration(t.opt.Jitter()*0.25*float64(base)), false
}

// chatWithRetry sends one request under the retry policy: at most
// maxAttempts attempts, and at most the stall timeout without an answer in
// progress. Stalled time is what an attempt spends before its first
// streamed part (all of it, when nothing streamed), the silence between its
// last part and its failure, and the waits between attempts. An attempt
// that streams nothing is cancelled when the stall time runs out; one that
// is streaming is left alone (the providers' idle and response timeouts
// bound it), so a long answer cut by a transient fault is still retried.
func (t *turn) chatWithRetry(ctx context.Context, s *stepState, msgs []llm.Message, proj Projection) (ChatResponse, error) {
	maxAttempts := t.maxAttempts()
	limit := t.stallTimeout()
	var stalled time.Duration // so far, over all attempts and waits
	p := t.chatParams(s, msgs)
	p.RequestLogFields = RequestLogFields{TurnStep: fmt.Sprintf("%s.%d", t.in.TurnID, s.n),
		Kind: RequestKindLoop, Projection: proj}
	var prev error // the failure that led to this attempt
	for attempt := 1; ; attempt++ {
		s.trace.reset()
		if attempt > 1 {
			p.RequestLogFields.Attempt = fmt.Sprintf("%d/%d", attempt, maxAttempts)
		}
		actx, ap, finish := ctx, p, func() (bool, time.Duration) { return false, 0 }
		if limit > 0 {
			actx, ap, finish = watchAttempt(ctx, limit-stalled, p)
		}
		resp, err := t.in.LLM.Chat(actx, ap)
		cut, quiet := finish()
		if err == nil {
			s.trace.Capture(resp.TraceID)
			return resp, nil
		}
		stalled += quiet
		if e, ok := llm.AsError(err); ok {
			s.trace.Capture(e.TraceID)
		}
		if ctx.Err() != nil {
			return ChatResponse{}, err
		}
		if cut && IsAbort(err) {
			err = t.stalledOut(attempt, limit, prev)
			t.logFailure(s, attempt, err)
			return ChatResponse{}, err
		}
		if IsAbort(err) {
			return ChatResponse{}, err
		}
		if attempt >= maxAttempts || !t.retryable(err) {
			t.logFailure(s, attempt, err)
			return ChatResponse{}, err
		}
		if sameMalformed(prev, err) {
			err = giveUp(err, fmt.Sprintf("gave up after %d attempts: the service sent the same malformed response "+
				"twice in a row", attempt))
			t.logFailure(s, attempt, err)
			return ChatResponse{}, err
		}
		delay, tooLong := t.retryDelay(attempt, err)
		if tooLong {
			err = giveUp(err, fmt.Sprintf("not retrying: the service asked to wait %s (Retry-After), longer than the "+
				"%s kimigo waits (loop_control.max_retry_after_ms)", roundDuration(delay), t.maxRetryAfter()))
			t.logFailure(s, attempt, err)
			return ChatResponse{}, err
		}
		if limit > 0 && stalled+delay >= limit {
			err = giveUp(err, fmt.Sprintf("gave up after %d attempts: waiting %s more for a retry would pass the %s "+
				"a step may go without an answer (loop_control.step_stall_timeout_ms)", attempt, roundDuration(delay), limit))
			t.logFailure(s, attempt, err)
			return ChatResponse{}, err
		}
		t.d.Emit(t.retryingEvent(s, attempt, maxAttempts, delay, err))
		if err := t.opt.Sleep(ctx, delay); err != nil {
			return ChatResponse{}, err
		}
		if ctx.Err() != nil {
			return ChatResponse{}, abortErr(ctx)
		}
		stalled += delay
		prev = err
	}
}

// stalledOut is the error of a step whose stall time ran out during an
// attempt that had streamed nothing: the failure before it, when there was
// one, with the reason in front; else a Timeout of its own.
func (t *turn) stalledOut(attempt int, limit time.Duration, prev error) error {
	why := fmt.Sprintf("no answer from the model service in %s (loop_control.step_stall_timeout_ms)", limit)
	if prev == nil {
		return &llm.Error{Kind: llm.KindTimeout, Message: why + ": it accepted the request and sent nothing of an answer"}
	}
	return giveUp(prev, fmt.Sprintf("gave up after %d attempts: %s; the failure before the last attempt was", attempt, why))
}

// errStalled cancels an attempt that had streamed nothing when the stall
// time ran out.
var errStalled = errors.New("loop: stall timeout")

// watchAttempt derives the context and params of an attempt that has left
// of the stall time: a timer cancels the context when it runs out, unless
// one of the live delta callbacks fired first. finish stops the timer,
// releases the context and reports whether the timer cut the attempt and
// how long the attempt stalled (before its first part and after its last).
func watchAttempt(ctx context.Context, left time.Duration, p ChatParams) (context.Context, ChatParams, func() (bool, time.Duration)) {
	actx, cancel := context.WithCancelCause(ctx)
	start := time.Now()
	var (
		mu          sync.Mutex
		first, last time.Time // of the streamed parts; guarded by mu
		cut         bool      // guarded by mu
	)
	timer := time.AfterFunc(left, func() {
		mu.Lock()
		defer mu.Unlock()
		if first.IsZero() {
			cut = true
			cancel(errStalled)
		}
	})
	mark := func() {
		now := time.Now()
		mu.Lock()
		if first.IsZero() {
			first = now
			timer.Stop()
		}
		last = now
		mu.Unlock()
	}
	text, think, call := p.OnTextDelta, p.OnThinkDelta, p.OnToolCallDelta
	p.OnTextDelta = func(d string) {
		mark()
		if text != nil {
			text(d)
		}
	}
	p.OnThinkDelta = func(d string) {
		mark()
		if think != nil {
			think(d)
		}
	}
	p.OnToolCallDelta = func(d ToolCallDelta) {
		mark()
		if call != nil {
			call(d)
		}
	}
	finish := func() (bool, time.Duration) {
		timer.Stop()
		cancel(nil)
		end := time.Now()
		mu.Lock()
		defer mu.Unlock()
		if first.IsZero() {
			return cut, end.Sub(start)
		}
		return cut, first.Sub(start) + end.Sub(last)
	}
	return actx, p, finish
}

// sameMalformed reports a malformed response that repeats the previous
// attempt's word for word: the service is broken, not unlucky.
func sameMalformed(prev, err error) bool {
	if !llm.IsMalformedResponse(prev) || !llm.IsMalformedResponse(err) {
		return false
	}
	p, _ := llm.AsError(prev)
	e, _ := llm.AsError(err)
	return p.Message == e.Message
}

// giveUp is err with why in front of its message; a provider error keeps
// its kind, status and ids, so UIs classify it as before.
func giveUp(err error, why string) error {
	if e, ok := llm.AsError(err); ok {
		c := *e
		c.Message = why + ": " + e.Message
		c.Cause = err
		return &c
	}
	return fmt.Errorf("%s: %w", why, err)
}

// roundDuration shortens a measured duration for messages.
func roundDuration(d time.Duration) time.Duration {
	if d > time.Second {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Millisecond)
}

func (t *turn) retryingEvent(s *stepState, attempt, maxAttempts int, delay time.Duration, err error) StepRetryingEvent {
	name, status := errorNameStatus(err)
	return StepRetryingEvent{TurnID: t.in.TurnID, Step: s.n, StepUUID: s.uuid, FailedAttempt: attempt,
		NextAttempt: attempt + 1, MaxAttempts: maxAttempts, DelayMs: delay.Milliseconds(),
		ErrorName: name, ErrorMessage: err.Error(), StatusCode: status}
}

func errorNameStatus(err error) (string, int) {
	if e, ok := llm.AsError(err); ok {
		return e.ErrorName(), e.StatusCode
	}
	return "Error", 0
}

// logFailure reports a request that will not be tried again; request
// payloads never reach the log.
func (t *turn) logFailure(s *stepState, attempt int, err error) {
	name, status := errorNameStatus(err)
	t.log.Warn("model request failed", "turn_step", fmt.Sprintf("%s.%d", t.in.TurnID, s.n),
		"attempt", attempt, "model", t.in.LLM.ModelName(), "error_name", name, "error", err.Error(),
		"status_code", status)
}
