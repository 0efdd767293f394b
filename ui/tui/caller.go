package tui

import (
	"context"
	"sync"

	tea "charm.land/bubbletea/v2"
)

// callDoneMsg reports a session call that ended: its label and error.
type callDoneMsg struct {
	label string
	err   error
}

// caller runs the interface's session calls off the update loop, one at
// a time and in the order they were made, so a Cancel never overtakes
// the Prompt before it. Run enqueues f without blocking and returns the
// command whose message is f's.
type caller interface {
	Run(f func(ctx context.Context) tea.Msg) tea.Cmd
}

// call runs a session call whose end reports its label and error.
func (m *Model) call(label string, f func(ctx context.Context) error) tea.Cmd {
	return m.calls.Run(func(ctx context.Context) tea.Msg { return callDoneMsg{label: label, err: f(ctx)} })
}

// queueCaller is the program's caller: one goroutine drains the queue.
// Close stops it after the calls already queued and waits for it.
type queueCaller struct {
	ctx context.Context

	mu     sync.Mutex
	queue  []func() // guarded by mu
	wake   chan struct{}
	closed bool // guarded by mu
	done   chan struct{}
	// onPanic hears of a call that panicked.
	onPanic func(any)
}

func newQueueCaller(ctx context.Context, onPanic func(any)) *queueCaller {
	c := &queueCaller{ctx: ctx, wake: make(chan struct{}, 1), done: make(chan struct{}), onPanic: onPanic}
	go c.run()
	return c
}

func (c *queueCaller) Run(f func(ctx context.Context) tea.Msg) tea.Cmd {
	res := make(chan tea.Msg, 1)
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.queue = append(c.queue, func() { res <- f(c.ctx) })
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
	return func() tea.Msg { return <-res }
}

func (c *queueCaller) run() {
	defer close(c.done)
	for {
		c.mu.Lock()
		if len(c.queue) == 0 {
			closed := c.closed
			c.mu.Unlock()
			if closed {
				return
			}
			<-c.wake
			continue
		}
		f := c.queue[0]
		c.queue = c.queue[1:]
		c.mu.Unlock()
		c.safely(f)
	}
}

// safely runs f; a panic in a session call must not take the terminal
// down raw: it is logged and the call's command never reports.
func (c *queueCaller) safely(f func()) {
	defer func() {
		if r := recover(); r != nil && c.onPanic != nil {
			c.onPanic(r)
		}
	}()
	f()
}

// Close lets the queued calls finish and waits for them.
func (c *queueCaller) Close() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
	<-c.done
}

// inlineCaller runs each call at once, in the update: the model tests'
// caller, where order is the order of the test's steps.
type inlineCaller struct{ ctx context.Context }

func (c inlineCaller) Run(f func(ctx context.Context) tea.Msg) tea.Cmd {
	msg := f(c.ctx)
	return func() tea.Msg { return msg }
}
