package loop

import (
	"context"
	"errors"
	"fmt"

	"github.com/kimigo/kimigo/llm"
)

// ErrUserCancelled is the cancel cause of a turn the user stopped. Hosts
// cancel with context.WithCancelCause(parent) and this cause; any other
// cause (a deadline, a closing session) is a plain abort. The loop reads it
// back with context.Cause to choose the wording the model sees.
var ErrUserCancelled = errors.New("cancelled by the user")

// IsAbort reports whether err is a cancellation rather than a failure.
func IsAbort(err error) bool { return llm.IsAbort(err) }

// abortErr is the error a safe point returns once ctx is done.
func abortErr(ctx context.Context) error { return llm.Aborted(ctx) }

// userCancelled reports whether the turn was cancelled by the user.
func userCancelled(ctx context.Context, err error) bool {
	return errors.Is(context.Cause(ctx), ErrUserCancelled) || errors.Is(err, ErrUserCancelled)
}

// abortedResult is the result of a call the turn's cancellation stopped or
// kept from starting (spec 01 §4.10.6).
func abortedResult(ctx context.Context, name string) ToolResult {
	if userCancelled(ctx, nil) {
		return ErrorResult(fmt.Sprintf("The user deliberately interrupted tool %q and anything that was running "+
			"alongside it. This is not a system error, a timeout or a capacity limit. Do not retry it on your own "+
			"and do not guess why it was stopped; wait for the user to tell you what to do next.", name))
	}
	return ErrorResult(fmt.Sprintf("Tool %q was aborted", name))
}
