package wire

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kimigo/kimigo/llm"
)

// slowBody yields its chunks one by one, waiting gap before each, and then
// blocks until ctx is done.
type slowBody struct {
	ctx    context.Context
	chunks []string
	gap    time.Duration
}

func (b *slowBody) Read(p []byte) (int, error) {
	if len(b.chunks) == 0 {
		<-b.ctx.Done()
		return 0, context.Cause(b.ctx)
	}
	select {
	case <-time.After(b.gap):
	case <-b.ctx.Done():
		return 0, context.Cause(b.ctx)
	}
	n := copy(p, b.chunks[0])
	b.chunks = b.chunks[1:]
	return n, nil
}

func (b *slowBody) Close() error { return nil }

func TestWatchIdle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(t.Context())
		w := Start(Limits{Idle: 10 * time.Second, Response: time.Hour}, cancel)
		start := time.Now()
		time.Sleep(9 * time.Second) // waiting for headers counts
		w.Alive()                   // headers arrived
		body := w.Body(&slowBody{ctx: ctx, chunks: []string{"a", "b", "c"}, gap: 9 * time.Second})
		defer body.Close()
		got, err := io.ReadAll(body)
		if string(got) != "abc" || !errors.Is(err, llm.ErrProviderTimeout) {
			t.Fatalf("read %q, %v", got, err)
		}
		// 9 s to headers, three bytes 9 s apart, then 10 s of silence.
		if d := time.Since(start); d != 46*time.Second {
			t.Errorf("idle clock fired after %v, want 46s", d)
		}
		e := Timeout(ctx)
		if e == nil || e.Kind != llm.KindTimeout || !llm.IsRetryable(e) || errors.Is(e, llm.ErrResponseTimeout) ||
			e.Message != "request timed out: the model service sent nothing for 10s (loop_control.stream_idle_timeout_ms)" {
			t.Errorf("Timeout = %#v", e)
		}
	})
}

func TestWatchResponseCeiling(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(t.Context())
		w := Start(Limits{Idle: 10 * time.Second, Response: time.Minute}, cancel)
		chunks := make([]string, 100) // a byte a second for longer than the ceiling
		for i := range chunks {
			chunks[i] = "x"
		}
		start := time.Now()
		_, err := io.ReadAll(w.Body(&slowBody{ctx: ctx, chunks: chunks, gap: time.Second}))
		if !errors.Is(err, llm.ErrProviderTimeout) || time.Since(start) != time.Minute {
			t.Fatalf("err %v after %v", err, time.Since(start))
		}
		e := Timeout(ctx)
		if e == nil || !strings.Contains(e.Message, "took longer than 1m0s (loop_control.response_timeout_ms)") {
			t.Fatalf("Timeout = %v", e)
		}
		if e.Kind != llm.KindTimeout || llm.IsRetryable(e) || !errors.Is(e, llm.ErrResponseTimeout) {
			t.Errorf("a response past the ceiling: kind %s, retryable %v", e.Kind, llm.IsRetryable(e))
		}
	})
}

func TestWatchOffAndStopped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(t.Context())
		w := Start(Limits{Idle: -1, Response: -1}, cancel)
		time.Sleep(24 * time.Hour)
		if ctx.Err() != nil {
			t.Fatal("a watch with both limits off cancelled the request")
		}
		w.Stop()

		ctx2, cancel2 := context.WithCancelCause(t.Context())
		w2 := Start(Limits{}, cancel2) // the defaults
		w2.Stop()
		w2.Alive() // after Stop: must not re-arm
		time.Sleep(time.Hour)
		if ctx2.Err() != nil {
			t.Fatal("a stopped watch cancelled the request")
		}
		if Timeout(ctx2) != nil {
			t.Error("Timeout reported for a live request")
		}
		cancel2(errors.New("other"))
		if Timeout(ctx2) != nil {
			t.Error("Timeout reported for another cause")
		}
	})
}

func TestWatchDefaults(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(t.Context())
		Start(Limits{}, cancel)
		time.Sleep(llm.DefaultStreamIdleTimeout - time.Nanosecond)
		if ctx.Err() != nil {
			t.Fatal("fired before the default idle time")
		}
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		if e := Timeout(ctx); e == nil || !strings.Contains(e.Message, "nothing for 2m0s") {
			t.Errorf("Timeout = %v", e)
		}
	})
}
