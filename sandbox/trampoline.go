package sandbox

import (
	"os"
	"sync/atomic"
)

// wired is set once MaybeRunTrampoline has returned in this process: only
// then may a sandboxed command re-execute this program as the trampoline.
var wired atomic.Bool

// MaybeRunTrampoline must be the first statement of main (and of TestMain
// in tests that run sandboxed commands). When the program was started as
// the sandbox trampoline it sets the sandbox up, then replaces itself with
// the command, so it never returns; it exits with status 125 when the
// sandbox cannot be set up, 126 when the command cannot be executed and
// 127 when it is not found, after a message on stderr naming the policy
// and the path. Otherwise it only notes that the trampoline is wired and
// returns at once: it does no work at start-up.
func MaybeRunTrampoline() {
	if len(os.Args) > 1 && os.Args[1] == trampolineArg {
		os.Exit(runTrampoline(os.Args[2:]))
	}
	wired.Store(true)
}
