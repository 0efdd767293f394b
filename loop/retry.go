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
	// DefaultRetryWindow is how long a failing request keeps being retried
	// when RunTurnInput.RetryWindow is zero. With the providers' default
	// two-minute idle timeout, a service that stalls every time ends the
	// step in about three minutes, and one that streams a little and then
	// stalls every time in at most five.
	DefaultRetryWindow = 3 * time.Minute
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

// retryWindow is the bound on a request's retries; 0 means none.
func (t *turn) retryWindow() time.Duration {
	switch w := t.in.RetryWindow; {
	case w == 0:
		return DefaultRetryWindow
	case w < 0:
		return 0
	default:
		return w
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
// maxAttempts attempts, none started (and no wait begun) past the retry
// window, and an attempt after the first cancelled when the window closes
// before anything of its response arrived. An attempt that is streaming
// is left alone: the providers' idle and response timeouts bound it.
func (t *turn) chatWithRetry(ctx context.Context, s *stepState, msgs []llm.Message, proj Projection) (ChatResponse, error) {
	maxAttempts := t.maxAttempts()
	window := t.retryWindow()
	start := time.Now()
	p := t.chatParams(s, msgs)
	p.RequestLogFields = RequestLogFields{TurnStep: fmt.Sprintf("%s.%d", t.in.TurnID, s.n),
		Kind: RequestKindLoop, Projection: proj}
	var prev error // the failure that led to this attempt
	for attempt := 1; ; attempt++ {
		s.trace.reset()
		if attempt > 1 {
			p.RequestLogFields.Attempt = fmt.Sprintf("%d/%d", attempt, maxAttempts)
		}
		actx, ap, finish := ctx, p, func() bool { return false }
		if attempt > 1 && window > 0 {
			actx, ap, finish = boundAttempt(ctx, start.Add(window), p)
		}
		resp, err := t.in.LLM.Chat(actx, ap)
		closed := finish()
		if err == nil {
			s.trace.Capture(resp.TraceID)
			return resp, nil
		}
		if e, ok := llm.AsError(err); ok {
			s.trace.Capture(e.TraceID)
		}
		if ctx.Err() != nil {
			return ChatResponse{}, err
		}
		if closed && IsAbort(err) {
			err = giveUp(prev, fmt.Sprintf("gave up after %d attempts in %s: attempt %d had no answer when the retry "+
				"window closed (loop_control.step_retry_timeout_ms is %s); the failure before it was", attempt,
				roundDuration(time.Since(start)), attempt, window))
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
		if elapsed := time.Since(start); window > 0 && elapsed+delay >= window {
			err = giveUp(err, fmt.Sprintf("gave up after %d attempts in %s: another would start after the retry "+
				"window closed (loop_control.step_retry_timeout_ms is %s)", attempt, roundDuration(elapsed), window))
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
		prev = err
	}
}

// errRetryWindowClosed cancels an attempt that had no answer when the
// retry window closed.
var errRetryWindowClosed = errors.New("loop: retry window closed")

// boundAttempt derives the context and params of an attempt that must have
// an answer by deadline: a timer cancels the context then, unless one of
// the live delta callbacks fired first. finish stops the timer, releases
// the context and reports whether the timer cancelled the attempt.
func boundAttempt(ctx context.Context, deadline time.Time, p ChatParams) (context.Context, ChatParams, func() bool) {
	actx, cancel := context.WithCancelCause(ctx)
	var (
		mu       sync.Mutex
		answered bool // guarded by mu
		closed   bool // guarded by mu
	)
	timer := time.AfterFunc(time.Until(deadline), func() {
		mu.Lock()
		defer mu.Unlock()
		if !answered {
			closed = true
			cancel(errRetryWindowClosed)
		}
	})
	var once sync.Once
	mark := func() {
		once.Do(func() {
			mu.Lock()
			answered = true
			mu.Unlock()
			timer.Stop()
		})
	}
	text, think, call := p.OnTextDelta, p.OnThinkDelta, p.OnToolCallDelta
	p.OnTextDelta = func(d string) { mark(); call0(text, d) }
	p.OnThinkDelta = func(d string) { mark(); call0(think, d) }
	p.OnToolCallDelta = func(d ToolCallDelta) {
		mark()
		if call != nil {
			call(d)
		}
	}
	finish := func() bool {
		timer.Stop()
		mu.Lock()
		c := closed
		mu.Unlock()
		cancel(nil)
		return c
	}
	return actx, p, finish
}

func call0(f func(string), s string) {
	if f != nil {
		f(s)
	}
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
