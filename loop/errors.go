package loop

import (
	"errors"
	"fmt"
)

// ErrMaxStepsExceeded matches every *MaxStepsExceededError with errors.Is.
var ErrMaxStepsExceeded = errors.New("loop: max steps exceeded")

// CodeMaxStepsExceeded is the error code of *MaxStepsExceededError.
const CodeMaxStepsExceeded = "loop.max_steps_exceeded"

// MaxStepsExceededError stops a turn that would start a step beyond its
// limit. A turn that ends on its last allowed step does not raise it.
type MaxStepsExceededError struct {
	MaxSteps int
}

func (e *MaxStepsExceededError) Error() string {
	return fmt.Sprintf("the turn reached its step limit of %d steps before the model finished; "+
		"raise loop_control.max_steps_per_turn in config.toml (0 means no limit)", e.MaxSteps)
}

// Code returns CodeMaxStepsExceeded.
func (e *MaxStepsExceededError) Code() string { return CodeMaxStepsExceeded }

// Details returns {"maxSteps": N}.
func (e *MaxStepsExceededError) Details() map[string]any {
	return map[string]any{"maxSteps": e.MaxSteps}
}

// Retryable reports false: running the same turn again hits the same limit.
func (e *MaxStepsExceededError) Retryable() bool { return false }

// Is makes errors.Is(err, ErrMaxStepsExceeded) hold through wrapping.
func (e *MaxStepsExceededError) Is(target error) bool { return target == ErrMaxStepsExceeded }
