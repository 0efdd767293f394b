package turn

import (
	"context"
	"errors"
	"sync"
)

// WaitForCurrentTurn waits for the most recently launched turn and returns
// how it ended; a turn that already ended returns at once. When ctx ends
// first, the turn is cancelled with ctx's cause and ctx's error returned.
// It fails when no turn was ever launched.
func (f *TurnFlow) WaitForCurrentTurn(ctx context.Context) (Result, error) {
	f.mu.Lock()
	t := f.last
	f.mu.Unlock()
	if t == nil {
		return Result{}, errNoActiveTurn
	}
	select {
	case <-t.done: // an ended turn answers even to an ended ctx
		return t.res, nil
	default:
	}
	select {
	case <-t.done:
		return t.res, nil
	case <-ctx.Done(): // already ended included: the turn is cancelled either way
		id := t.id
		if err := f.Cancel(context.WithoutCancel(ctx), &id, context.Cause(ctx)); err != nil {
			f.log.Warn("cancel after an abandoned wait failed", "turn", id, "error", err)
		}
		return Result{}, ctx.Err()
	}
}

// WaitForFirstRequest waits until the running turn shows the first sign of
// a model response (spec 03 §1.11). It fails when the turn ends first.
func (f *TurnFlow) WaitForFirstRequest(ctx context.Context) error {
	f.mu.Lock()
	t := f.active
	f.mu.Unlock()
	if t == nil {
		return errNoActiveTurn
	}
	select {
	case <-t.first.ch:
		return nil
	case <-t.done:
		select {
		case <-t.first.ch:
			return nil
		default:
			return errors.New("the turn ended before its first request was answered")
		}
	case <-ctx.Done():
		return ctx.Err()
	}
}

// firstRequest resolves once, at the first streaming evidence of a turn.
type firstRequest struct {
	once sync.Once
	ch   chan struct{}
}

func newFirstRequest() *firstRequest { return &firstRequest{ch: make(chan struct{})} }

func (r *firstRequest) resolve() { r.once.Do(func() { close(r.ch) }) }

// WaitSettled waits until the last launched turn's worker finished,
// including what it does after turn.ended: a cancelled goal turn pauses
// its goal once the turn ended, and the slot is free (HasActiveTurn false)
// from the moment of the Cancel. A control that changes what that worker
// reads (the goal) waits for it first. It returns at once when no turn was
// launched or the last one finished, and ctx's error when ctx ends first;
// it never cancels anything.
func (f *TurnFlow) WaitSettled(ctx context.Context) error {
	f.mu.Lock()
	t := f.last
	f.mu.Unlock()
	if t == nil {
		return nil
	}
	select {
	case <-t.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
