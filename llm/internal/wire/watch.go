package wire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/kimigo/kimigo/llm"
)

// Limits bound one response. Zero means the llm default
// (llm.DefaultStreamIdleTimeout, llm.DefaultResponseTimeout); a negative
// value turns the limit off.
type Limits struct {
	Idle     time.Duration
	Response time.Duration
}

func (l Limits) resolve() Limits {
	if l.Idle == 0 {
		l.Idle = llm.DefaultStreamIdleTimeout
	}
	if l.Response == 0 {
		l.Response = llm.DefaultResponseTimeout
	}
	return l
}

// expired is the cancel cause of a request whose clock ran out.
type expired struct {
	msg   string
	cause error // llm.ErrProviderTimeout or llm.ErrResponseTimeout
}

func (e *expired) Error() string { return e.msg }

// Unwrap makes errors.Is(err, llm.ErrProviderTimeout) hold, and for the
// response clock errors.Is(err, llm.ErrResponseTimeout).
func (e *expired) Unwrap() error { return e.cause }

// Watch holds the clocks of one request. Its methods are safe for
// concurrent use: the body is read on the caller's goroutine while the
// clocks fire on timer goroutines.
type Watch struct {
	idle time.Duration

	mu      sync.Mutex
	idleT   *time.Timer // nil when the idle limit is off; guarded by mu
	respT   *time.Timer // nil when the response limit is off; guarded by mu
	stopped bool        // guarded by mu
}

// Start starts the clocks of a request that is about to be sent; cancel
// cancels it with the cause when one runs out. Call Stop when the response
// is done with.
func Start(l Limits, cancel context.CancelCauseFunc) *Watch {
	l = l.resolve()
	w := &Watch{idle: l.Idle}
	w.mu.Lock()
	defer w.mu.Unlock()
	// The messages name the configuration keys that set the clocks: the
	// user who meets one needs to know which to raise.
	if l.Idle > 0 {
		cause := &expired{fmt.Sprintf("the model service sent nothing for %s (loop_control.stream_idle_timeout_ms)", l.Idle),
			llm.ErrProviderTimeout}
		w.idleT = time.AfterFunc(l.Idle, func() { cancel(cause) })
	}
	if l.Response > 0 {
		cause := &expired{fmt.Sprintf("the model response took longer than %s (loop_control.response_timeout_ms)", l.Response),
			llm.ErrResponseTimeout}
		w.respT = time.AfterFunc(l.Response, func() { cancel(cause) })
	}
	return w
}

// Alive restarts the idle clock: the service just sent something.
func (w *Watch) Alive() {
	w.mu.Lock()
	if w.idleT != nil && !w.stopped {
		w.idleT.Reset(w.idle)
	}
	w.mu.Unlock()
}

// Stop stops both clocks. It may be called more than once.
func (w *Watch) Stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
	if w.idleT != nil {
		w.idleT.Stop()
	}
	if w.respT != nil {
		w.respT.Stop()
	}
}

// Body wraps a response body so that every read that returns bytes
// restarts the idle clock, and closing it stops the clocks. Without an idle
// limit only the close is wrapped.
func (w *Watch) Body(rc io.ReadCloser) io.ReadCloser { return &watchedBody{rc: rc, w: w} }

type watchedBody struct {
	rc io.ReadCloser
	w  *Watch
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if n > 0 && b.w.idleT != nil { // idleT is set once in Start
		b.w.Alive()
	}
	return n, err
}

func (b *watchedBody) Close() error {
	b.w.Stop()
	return b.rc.Close()
}

// Timeout returns the Timeout error of a request that reqCtx's clock
// cancelled, or nil when its cause is anything else.
func Timeout(reqCtx context.Context) *llm.Error {
	cause := context.Cause(reqCtx)
	if cause == nil || !errors.Is(cause, llm.ErrProviderTimeout) {
		return nil
	}
	return &llm.Error{Kind: llm.KindTimeout, Message: "request timed out: " + cause.Error(), Cause: cause}
}
