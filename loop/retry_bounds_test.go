package loop_test

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/loop/looptest"
)

// idleTimeout is what a provider returns when its service went quiet.
func idleTimeout() *llm.Error {
	return &llm.Error{Kind: llm.KindTimeout, Message: "request timed out: the model service sent nothing for 2m0s (loop_control.stream_idle_timeout_ms)"}
}

// stall is a response that waits d of (fake) time and then fails with err,
// unless its attempt is cancelled first.
func stall(d time.Duration, err error) looptest.Response {
	return looptest.Fail(err).WithOnCall(func(ctx context.Context, p loop.ChatParams) {
		select {
		case <-time.After(d):
		case <-ctx.Done():
		}
	})
}

func retries(h *harness) []loop.StepRetryingEvent {
	return looptest.LiveOfType[loop.StepRetryingEvent](h.rec)
}

// TestRetryAfterCap: a Retry-After up to the cap is waited for; one above
// it ends the step at once, naming the wait the service asked for.
func TestRetryAfterCap(t *testing.T) {
	t.Run("up to the cap is honoured", func(t *testing.T) {
		h := newHarness(t, looptest.Fail(rateLimit(time.Minute)), looptest.Text("ok"))
		h.mustRun(t.Context())
		if d := cmp.Diff([]time.Duration{time.Minute}, h.sleeper.Delays()); d != "" {
			t.Errorf("sleeps (-want +got):\n%s", d)
		}
	})
	t.Run("a day fails the step", func(t *testing.T) {
		h := newHarness(t, looptest.Fail(rateLimit(24*time.Hour)), looptest.Text("never"))
		_, err := h.run(t.Context())
		want := "not retrying: the service asked to wait 24h0m0s (Retry-After), longer than the 1m0s kimigo waits " +
			"(loop_control.max_retry_after_ms): 429 Too many requests"
		if err == nil || err.Error() != want {
			t.Fatalf("err = %v\nwant %s", err, want)
		}
		if !llm.IsProviderRateLimitError(err) {
			t.Errorf("the error lost its kind: %#v", err)
		}
		if len(h.sleeper.Delays()) != 0 || len(h.llm.Calls()) != 1 || len(retries(h)) != 0 {
			t.Errorf("slept %v over %d calls with %d retry events; want one call and no wait", h.sleeper.Delays(),
				len(h.llm.Calls()), len(retries(h)))
		}
		if ints := h.interrupts(); len(ints) != 1 || ints[0].Message != want {
			t.Errorf("turn.interrupted = %+v", ints)
		}
	})
	t.Run("a configured cap", func(t *testing.T) {
		h := newHarness(t, looptest.Fail(rateLimit(90*time.Second)), looptest.Text("ok"))
		h.in.MaxRetryAfter = 2 * time.Minute
		h.mustRun(t.Context())
		h2 := newHarness(t, looptest.Fail(rateLimit(24*time.Hour)), looptest.Text("ok"))
		h2.in.MaxRetryAfter = -1 // any wait
		h2.in.StallTimeout = -1
		h2.mustRun(t.Context())
		if d := cmp.Diff([]time.Duration{24 * time.Hour}, h2.sleeper.Delays()); d != "" {
			t.Errorf("uncapped sleeps (-want +got):\n%s", d)
		}
	})
}

// TestRepeatedMalformedResponse: the same malformed response twice in a
// row ends the step; a different one is retried.
func TestRepeatedMalformedResponse(t *testing.T) {
	bad := func(msg string) *llm.Error { return &llm.Error{Kind: llm.KindMalformedResponse, Message: msg} }
	h := newHarness(t, looptest.Fail(bad("chunk 3 does not decode")), looptest.Fail(bad("chunk 3 does not decode")),
		looptest.Text("never"))
	_, err := h.run(t.Context())
	if !llm.IsMalformedResponse(err) || !strings.HasPrefix(err.Error(),
		"gave up after 2 attempts: the service sent the same malformed response twice in a row: chunk 3") {
		t.Fatalf("err = %v", err)
	}
	if len(h.llm.Calls()) != 2 || len(retries(h)) != 1 {
		t.Errorf("%d calls, %d retries; want 2 and 1", len(h.llm.Calls()), len(retries(h)))
	}
	h = newHarness(t, looptest.Fail(bad("chunk 3 does not decode")), looptest.Fail(bad("chunk 9 does not decode")),
		looptest.Text("ok"))
	h.mustRun(t.Context())
}

// TestStallTimeout bounds the time a request goes without an answer in
// progress, retries included, under a fake clock and the loop's own sleep.
func TestStallTimeout(t *testing.T) {
	t.Run("a service that stalls every time", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			h := newHarness(t, stall(2*time.Minute, idleTimeout()), stall(2*time.Minute, idleTimeout()),
				looptest.Text("never"))
			h.in.Options.Sleep = nil
			start := time.Now()
			_, err := h.run(t.Context())
			if took := time.Since(start); took != loop.DefaultStallTimeout {
				t.Errorf("the step ended after %v, want %v", took, loop.DefaultStallTimeout)
			}
			want := "gave up after 2 attempts: no answer from the model service in 3m0s " +
				"(loop_control.step_stall_timeout_ms); the failure before the last attempt was: request timed out: " +
				"the model service sent nothing for 2m0s (loop_control.stream_idle_timeout_ms)"
			if err == nil || err.Error() != want || !llm.IsRetryable(err) {
				t.Errorf("err = %v\nwant %s", err, want)
			}
			if r := retries(h); len(r) != 1 || r[0].DelayMs != 500 || !strings.Contains(r[0].ErrorMessage, "sent nothing for 2m0s") {
				t.Errorf("step.retrying = %+v", r)
			}
			if ints := h.interrupts(); len(ints) != 1 || ints[0].Message != want {
				t.Errorf("turn.interrupted = %+v", ints)
			}
		})
	})
	t.Run("a first attempt that never answers", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			h := newHarness(t, stall(time.Hour, idleTimeout())) // keep-alives only: no idle timeout fires
			h.in.Options.Sleep = nil
			start := time.Now()
			_, err := h.run(t.Context())
			want := "no answer from the model service in 3m0s (loop_control.step_stall_timeout_ms): " +
				"it accepted the request and sent nothing of an answer"
			if time.Since(start) != 3*time.Minute || err == nil || err.Error() != want {
				t.Errorf("err = %v after %v\nwant %s", err, time.Since(start), want)
			}
			if e, ok := llm.AsError(err); !ok || e.Kind != llm.KindTimeout {
				t.Errorf("err = %#v, want a Timeout", err)
			}
		})
	})
	t.Run("an attempt that answers before the time runs out may finish after it", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			late := looptest.Text("partial").WithOnCall(func(ctx context.Context, p loop.ChatParams) {
				time.Sleep(50 * time.Second) // attempt 2 starts at 2m0.5s: first delta at 2m50.5s
				p.OnTextDelta("par")
				select { // and streams on past the limit
				case <-time.After(time.Minute):
				case <-ctx.Done():
				}
			})
			h := newHarness(t, stall(2*time.Minute, idleTimeout()), late)
			h.in.Options.Sleep = nil
			start := time.Now()
			if res := h.mustRun(t.Context()); res.StopReason != loop.StopEndTurn {
				t.Errorf("stop = %s", res.StopReason)
			}
			if took := time.Since(start); took != 3*time.Minute+50*time.Second+500*time.Millisecond {
				t.Errorf("took %v", took)
			}
		})
	})
	t.Run("a long answer cut by a fault is retried", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			long := looptest.Fail(&llm.Error{Kind: llm.KindConnection, Message: "connection reset"}).WithOnCall(
				func(ctx context.Context, p loop.ChatParams) {
					for range 600 { // ten minutes of answer, then the reset
						time.Sleep(time.Second)
						p.OnTextDelta("x")
					}
				})
			h := newHarness(t, long, looptest.Text("whole answer"))
			h.in.Options.Sleep = nil
			if res := h.mustRun(t.Context()); res.StopReason != loop.StopEndTurn || len(h.llm.Calls()) != 2 {
				t.Errorf("stop = %s after %d calls", res.StopReason, len(h.llm.Calls()))
			}
		})
	})
	t.Run("answers that stall every time add up", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			partial := func() looptest.Response {
				return looptest.Fail(idleTimeout()).WithOnCall(func(ctx context.Context, p loop.ChatParams) {
					time.Sleep(time.Second)
					p.OnTextDelta("a")
					select { // then silence until the idle timeout
					case <-time.After(2 * time.Minute):
					case <-ctx.Done():
					}
				})
			}
			h := newHarness(t, partial(), partial(), partial(), looptest.Text("never"))
			h.in.Options.Sleep = nil
			start := time.Now()
			_, err := h.run(t.Context())
			// 1s + 120s of silence, 0.5s wait, 1s + 120s: 242.5s stalled, so
			// the 1s wait for a third attempt would pass 3m0s long before.
			if took := time.Since(start); took != 242500*time.Millisecond || len(h.llm.Calls()) != 2 {
				t.Errorf("took %v over %d calls", took, len(h.llm.Calls()))
			}
			if err == nil || !strings.HasPrefix(err.Error(), "gave up after 2 attempts: waiting 1s more for a retry would "+
				"pass the 3m0s a step may go without an answer (loop_control.step_stall_timeout_ms): request timed out") {
				t.Errorf("err = %v", err)
			}
		})
	})
	t.Run("quick refusals stop at the limit", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			var script []looptest.Response
			for range 10 {
				script = append(script, looptest.Fail(rateLimit(time.Minute)))
			}
			h := newHarness(t, script...)
			h.in.Options.Sleep = nil
			start := time.Now()
			_, err := h.run(t.Context())
			if took := time.Since(start); took != 2*time.Minute {
				t.Errorf("took %v, want 2m0s (attempts at 0, 1m and 2m)", took)
			}
			if !llm.IsProviderRateLimitError(err) || !strings.HasPrefix(err.Error(), "gave up after 3 attempts: waiting "+
				"1m0s more for a retry would pass the 3m0s a step may go without an answer "+
				"(loop_control.step_stall_timeout_ms): 429") {
				t.Errorf("err = %v", err)
			}
			if len(h.llm.Calls()) != 3 || len(retries(h)) != 2 {
				t.Errorf("%d calls, %d retries", len(h.llm.Calls()), len(retries(h)))
			}
		})
	})
	t.Run("a configured limit and none", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			h := newHarness(t, stall(time.Minute, idleTimeout()), stall(time.Minute, idleTimeout()), looptest.Text("never"))
			h.in.Options.Sleep = nil
			h.in.StallTimeout = 90 * time.Second
			start := time.Now()
			if _, err := h.run(t.Context()); err == nil || time.Since(start) != 90*time.Second {
				t.Errorf("err = %v after %v", err, time.Since(start))
			}
			h = newHarness(t, stall(time.Hour, idleTimeout()), stall(time.Hour, idleTimeout()), looptest.Text("ok"))
			h.in.Options.Sleep = nil
			h.in.StallTimeout = -1
			h.mustRun(t.Context())
		})
	})
	t.Run("a cancel during a watched attempt is an abort", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			h := newHarness(t, stall(time.Second, idleTimeout()), stall(time.Hour, idleTimeout()))
			h.in.Options.Sleep = nil
			time.AfterFunc(10*time.Second, cancel)
			res, err := h.run(ctx)
			if err != nil || res.StopReason != loop.StopAborted {
				t.Errorf("RunTurn = %+v, %v; want an abort", res, err)
			}
		})
	})
}
