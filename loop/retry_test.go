package loop_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/loop/looptest"
)

func rateLimit(retryAfter time.Duration) *llm.Error {
	return &llm.Error{Kind: llm.KindRateLimit, StatusCode: 429, Message: "429 Too many requests", RetryAfter: retryAfter}
}

// TestRetryingEventLoopSide pins the loop's half of S-L5: the step.retrying
// event, the Retry-After override, the computed backoff and the attempt
// field of the second request. The wire half is tested in agent/turn.
func TestRetryingEventLoopSide(t *testing.T) {
	t.Run("retry-after", func(t *testing.T) {
		h := newHarness(t, looptest.Fail(rateLimit(time.Second)), looptest.Text("ok"))
		h.mustRun(t.Context())
		want := []loop.StepRetryingEvent{{TurnID: "turn-1", Step: 1, StepUUID: "uuid-1", FailedAttempt: 1, NextAttempt: 2,
			MaxAttempts: 10, DelayMs: 1000, ErrorName: "APIProviderRateLimitError", ErrorMessage: "429 Too many requests",
			StatusCode: 429}}
		if d := cmp.Diff(want, looptest.LiveOfType[loop.StepRetryingEvent](h.rec)); d != "" {
			t.Errorf("step.retrying (-want +got):\n%s", d)
		}
		if d := cmp.Diff([]time.Duration{time.Second}, h.sleeper.Delays()); d != "" {
			t.Errorf("sleeps (-want +got):\n%s", d)
		}
		calls := h.llm.Calls()
		if calls[0].RequestLogFields.Attempt != "" || calls[1].RequestLogFields.Attempt != "2/10" {
			t.Errorf("attempts = %q, %q; want \"\", \"2/10\"", calls[0].RequestLogFields.Attempt, calls[1].RequestLogFields.Attempt)
		}
		if got := calls[1].RequestLogFields; got.TurnStep != "turn-1.1" || got.Kind != "loop" || got.Projection != "" {
			t.Errorf("log fields = %+v", got)
		}
		h.wantTypes(begin, part, end)
	})
	for _, tt := range []struct {
		name   string
		jitter float64
		want   time.Duration
	}{
		{"no jitter", 0, 500 * time.Millisecond},
		{"full jitter", 0.999999, 625 * time.Millisecond},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, looptest.Fail(rateLimit(0)), looptest.Text("ok"))
			h.in.Options.Jitter = func() float64 { return tt.jitter }
			h.mustRun(t.Context())
			ev := looptest.LiveOfType[loop.StepRetryingEvent](h.rec)
			if len(ev) != 1 || ev[0].DelayMs < 500 || ev[0].DelayMs > 625 {
				t.Fatalf("step.retrying = %+v; want one with delay in [500, 625] ms", ev)
			}
			if got := h.sleeper.Delays()[0]; got.Round(time.Millisecond) != tt.want {
				t.Errorf("delay = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRetryBackoffSchedule(t *testing.T) {
	var script []looptest.Response
	for range 9 {
		script = append(script, looptest.Fail(&llm.Error{Kind: llm.KindConnection, Message: "connection reset"}))
	}
	h := newHarness(t, append(script, looptest.Text("ok"))...)
	h.mustRun(t.Context())
	want := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second,
		16 * time.Second, 32 * time.Second, 32 * time.Second, 32 * time.Second}
	if d := cmp.Diff(want, h.sleeper.Delays()); d != "" {
		t.Errorf("delays (-want +got):\n%s", d)
	}
}

// TestMidStreamFailureLoopSide is the loop's half of S-L6: deltas of a
// failed attempt were shown live, but only the successful attempt's parts
// are recorded.
func TestMidStreamFailureLoopSide(t *testing.T) {
	h := newHarness(t,
		looptest.Response{Deltas: []looptest.Delta{{Text: "par"}},
			Err: llm.ClassifyMessage("Error: upstream overloaded", nil)},
		looptest.Response{Deltas: []looptest.Delta{{Text: "partial "}, {Text: "answer"}},
			Parts: []llm.ContentPart{llm.TextPart("partial answer")}, FinishReason: llm.FinishCompleted},
	)
	res := h.mustRun(t.Context())
	if res.StopReason != loop.StopEndTurn {
		t.Errorf("stop = %s", res.StopReason)
	}
	var deltas []string
	for _, d := range looptest.LiveOfType[loop.TextDeltaEvent](h.rec) {
		deltas = append(deltas, d.Delta)
	}
	if d := cmp.Diff([]string{"par", "partial ", "answer"}, deltas); d != "" {
		t.Errorf("text deltas (-want +got):\n%s", d)
	}
	h.wantTypes(begin, part, end)
	if r := looptest.LiveOfType[loop.StepRetryingEvent](h.rec); len(r) != 1 || r[0].ErrorName != "ChatProviderError" {
		t.Errorf("step.retrying = %+v; want one ChatProviderError", r)
	}
}

// TestStreamCutLoopSide is the loop's half of S-L7 (b) and (c): a response
// without a finish reason ends the turn quietly, or runs its (truncated)
// tool call through validation.
func TestStreamCutLoopSide(t *testing.T) {
	t.Run("text without finish", func(t *testing.T) {
		h := newHarness(t, looptest.Text("cut").WithFinish(llm.FinishNone, ""))
		if res := h.mustRun(t.Context()); res.StopReason != loop.StopEndTurn {
			t.Errorf("stop = %s", res.StopReason)
		}
		end := looptest.RecordedOfType[loop.StepEndEvent](h.rec)[0]
		if end.ProviderFinishReason != "" || end.RawFinishReason != "" {
			t.Errorf("step.end has diagnostics %q %q", end.ProviderFinishReason, end.RawFinishReason)
		}
	})
	t.Run("truncated call without finish", func(t *testing.T) {
		h := newHarness(t,
			looptest.Calls(looptest.Call("c1", "echo", `{"te`)).WithFinish(llm.FinishNone, ""),
			looptest.Text("done"),
		).tools(looptest.Echo())
		h.mustRun(t.Context())
		if ends := looptest.RecordedOfType[loop.StepEndEvent](h.rec); ends[0].FinishReason != loop.StopToolUse {
			t.Errorf("step 1 stop = %s, want tool_use", ends[0].FinishReason)
		}
		h.wantResults(errResult(`Invalid args for tool "echo": the arguments are not valid JSON: they end early, ` +
			`after 4 bytes (ending "{\"te"); the text may have been cut off. Send the call again with the arguments ` +
			`as one JSON object.`))
	})
}

func TestSL8RetryBudgetExhausted(t *testing.T) {
	fail := rateLimit(time.Millisecond)
	script := make([]looptest.Response, 12)
	for i := range script {
		script[i] = looptest.Fail(fail)
	}
	t.Run("ten attempts", func(t *testing.T) {
		h := newHarness(t, script...)
		_, err := h.run(t.Context())
		if !errors.Is(err, fail) {
			t.Fatalf("err = %v, want the rate limit", err)
		}
		if n := len(h.llm.Calls()); n != 10 {
			t.Errorf("%d Chat calls, want 10", n)
		}
		if n := len(looptest.LiveOfType[loop.StepRetryingEvent](h.rec)); n != 9 {
			t.Errorf("%d step.retrying, want 9", n)
		}
		want := []loop.TurnInterruptedEvent{{Reason: loop.InterruptError, AttemptedSteps: 1, ActiveStep: intp(1),
			Message: fail.Error(), InterruptReason: loop.InterruptError}}
		if d := cmp.Diff(want, h.interrupts()); d != "" {
			t.Errorf("turn.interrupted (-want +got):\n%s", d)
		}
		h.wantTypes(begin)
	})
	t.Run("one attempt allowed", func(t *testing.T) {
		h := newHarness(t, script...)
		h.in.MaxRetryAttempts = 1
		if _, err := h.run(t.Context()); err == nil {
			t.Fatal("RunTurn succeeded")
		}
		if n := len(h.llm.Calls()); n != 1 {
			t.Errorf("%d Chat calls, want 1", n)
		}
	})
	t.Run("LLM without IsRetryable", func(t *testing.T) {
		h := newHarness(t, script...)
		h.in.LLM = looptest.WithoutRetry(h.llm)
		if _, err := h.run(t.Context()); err == nil {
			t.Fatal("RunTurn succeeded")
		}
		if n := len(h.llm.Calls()); n != 1 {
			t.Errorf("%d Chat calls, want 1", n)
		}
	})
	t.Run("quota exhausted is not retried", func(t *testing.T) {
		quota := &llm.Error{Kind: llm.KindQuotaExhausted, StatusCode: 429, Message: "quota", RetryAfter: time.Second}
		h := newHarness(t, looptest.Fail(quota), looptest.Text("never"))
		if _, err := h.run(t.Context()); !errors.Is(err, quota) {
			t.Fatalf("err = %v", err)
		}
		if n := len(h.llm.Calls()); n != 1 {
			t.Errorf("%d Chat calls, want 1", n)
		}
	})
}

func TestRetrySleepCancelled(t *testing.T) {
	h := newHarness(t, looptest.Fail(rateLimit(time.Second)), looptest.Text("never"))
	ctx, cancel := context.WithCancelCause(t.Context())
	h.in.Options.Sleep = func(ctx2 context.Context, d time.Duration) error {
		cancel(loop.ErrUserCancelled)
		return h.sleeper.Sleep(ctx2, d)
	}
	res, err := h.run(ctx)
	if err != nil || res.StopReason != loop.StopAborted {
		t.Fatalf("RunTurn = %+v, %v; want aborted", res, err)
	}
	if ir := h.interrupts(); len(ir) != 1 || ir[0].InterruptReason != loop.InterruptUserCancelled {
		t.Errorf("turn.interrupted = %+v", ir)
	}
	h.wantTypes(begin)
}
