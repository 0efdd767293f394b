package sandbox

import (
	"errors"
	"fmt"
)

// ErrUnavailable is what errors.Is finds in every error that says this
// system cannot enforce a policy. A caller that promised a sandbox treats
// it as "ask before running", never as "run unconfined".
var ErrUnavailable = errors.New("sandbox unavailable")

// UnavailableError says which policy cannot be enforced here, and why.
type UnavailableError struct {
	// Mode is the policy that was asked for.
	Mode Mode
	// Reason names what is missing, e.g. "Landlock ABI 2; the sandbox
	// needs 3 (Linux 6.2)".
	Reason string
}

func (e *UnavailableError) Error() string {
	return fmt.Sprintf("sandbox %s is unavailable: %s", e.Mode, e.Reason)
}

// Is makes errors.Is(err, ErrUnavailable) true.
func (e *UnavailableError) Is(target error) bool { return target == ErrUnavailable }
