package loop

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kimigo/kimigo/llm"
)

func TestRetryDelay(t *testing.T) {
	for _, tt := range []struct {
		attempt int
		jitter  float64
		err     error
		want    time.Duration
	}{
		{1, 0, nil, 500 * time.Millisecond},
		{1, 1, nil, 625 * time.Millisecond},
		{2, 0.5, nil, 1125 * time.Millisecond},
		{6, 0, nil, 16 * time.Second},
		{7, 0, nil, 32 * time.Second},
		{7, 1, nil, 40 * time.Second},
		{40, 0, nil, 32 * time.Second},
		{1, 1, &llm.Error{Kind: llm.KindRateLimit, StatusCode: 429, RetryAfter: 3 * time.Second}, 3 * time.Second},
		{3, 0, &llm.Error{Kind: llm.KindRateLimit, StatusCode: 429}, 2 * time.Second},
	} {
		tr := &turn{opt: Options{Jitter: func() float64 { return tt.jitter }}}
		if got, _ := tr.retryDelay(tt.attempt, tt.err); got != tt.want {
			t.Errorf("retryDelay(%d, jitter %v, %v) = %v, want %v", tt.attempt, tt.jitter, tt.err, got, tt.want)
		}
	}
}

func TestDefaultSleepIsCancellable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(t.Context())
		time.AfterFunc(time.Second, func() { cancel(ErrUserCancelled) })
		start := time.Now()
		err := sleep(ctx, 10*time.Second)
		if !IsAbort(err) || time.Since(start) != time.Second {
			t.Errorf("sleep = %v after %v; want an abort after 1s", err, time.Since(start))
		}
		if err := sleep(t.Context(), time.Second); err != nil {
			t.Errorf("uncancelled sleep = %v", err)
		}
	})
}

func TestNewUUID(t *testing.T) {
	a, b := newUUID(), newUUID()
	if a == b || len(a) != 36 || a[14] != '4' {
		t.Errorf("newUUID() = %q, %q", a, b)
	}
}
