package loop

import (
	"context"
	"fmt"
	"time"

	"github.com/kimigo/kimigo/llm"
)

// Retry policy constants (spec 01 §4.7).
const (
	defaultMaxAttempts = 10
	retryBaseDelay     = 500 * time.Millisecond
	retryMaxDelay      = 32 * time.Second
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

func (t *turn) retryable(err error) bool {
	rc, ok := t.in.LLM.(RetryClassifier)
	return ok && rc.IsRetryable(err)
}

// retryDelay is the wait after failed attempt k (1-based): exponential from
// 500 ms, capped at 32 s, plus up to a quarter of jitter; a positive
// Retry-After from the server wins.
func (t *turn) retryDelay(k int, err error) time.Duration {
	if e, ok := llm.AsError(err); ok && e.RetryAfter > 0 {
		return e.RetryAfter
	}
	base := retryMaxDelay
	if k <= 7 { // 500 ms · 2^6 = 32 s
		base = min(retryBaseDelay<<(k-1), retryMaxDelay)
	}
	return base + time.Duration(t.opt.Jitter()*0.25*float64(base))
}

// chatWithRetry sends one request under the retry policy.
func (t *turn) chatWithRetry(ctx context.Context, s *stepState, msgs []llm.Message, proj Projection) (ChatResponse, error) {
	maxAttempts := t.maxAttempts()
	p := t.chatParams(s, msgs)
	p.RequestLogFields = RequestLogFields{TurnStep: fmt.Sprintf("%s.%d", t.in.TurnID, s.n),
		Kind: RequestKindLoop, Projection: proj}
	for attempt := 1; ; attempt++ {
		s.trace.reset()
		if attempt > 1 {
			p.RequestLogFields.Attempt = fmt.Sprintf("%d/%d", attempt, maxAttempts)
		}
		resp, err := t.in.LLM.Chat(ctx, p)
		if err == nil {
			s.trace.Capture(resp.TraceID)
			return resp, nil
		}
		if e, ok := llm.AsError(err); ok {
			s.trace.Capture(e.TraceID)
		}
		if IsAbort(err) || ctx.Err() != nil {
			return ChatResponse{}, err
		}
		if attempt >= maxAttempts || !t.retryable(err) {
			t.logFailure(s, attempt, err)
			return ChatResponse{}, err
		}
		delay := t.retryDelay(attempt, err)
		t.d.Emit(t.retryingEvent(s, attempt, maxAttempts, delay, err))
		if err := t.opt.Sleep(ctx, delay); err != nil {
			return ChatResponse{}, err
		}
		if ctx.Err() != nil {
			return ChatResponse{}, abortErr(ctx)
		}
	}
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
