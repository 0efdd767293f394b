package sandbox

import (
	"os"
	"runtime"
	"sync/atomic"
)

// wired is set once MaybeRunTrampoline has returned in this process: only
// then may a sandboxed command re-execute this program as the trampoline
// or a server.
var wired atomic.Bool

func init() {
	// A sandbox server keeps the main thread for its main goroutine, which
	// only waits and shuts down: a thread that starts a command takes the
	// command's Landlock domain and must never be the main one, whose
	// credentials are the ones a signal to the server's pid is checked
	// against (spawn). Locking it here, before main runs, is what makes
	// main run on the main thread.
	if isServer() {
		runtime.LockOSThread()
	}
}

func isServer() bool { return len(os.Args) > 1 && os.Args[1] == serverArg }

// MaybeRunTrampoline must be the first statement of main (and of TestMain
// in tests that run sandboxed commands). When the program was started as
// the sandbox trampoline it sets the sandbox up, then replaces itself with
// the command, so it never returns; it exits with status 125 when the
// sandbox cannot be set up, 126 when the command cannot be executed and
// 127 when it is not found, after a message on stderr naming the policy
// and the path. When it was started as a sandbox server it serves until
// kimigo closes the sandbox or dies, then exits. Otherwise it only notes
// that the trampoline is wired and returns at once: it does no work at
// start-up.
func MaybeRunTrampoline() {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case trampolineArg:
			os.Exit(runTrampoline(os.Args[2:]))
		case serverArg:
			os.Exit(runServer(os.Args[2:]))
		}
	}
	wired.Store(true)
}
