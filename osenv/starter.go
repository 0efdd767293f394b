package osenv

import (
	"os"
	"syscall"
)

// Starter starts a process somewhere other than by this process's own fork
// and exec: package sandbox's starts it inside a sandbox. Local.Exec uses
// it when Cmd.Starter is set and still does everything else itself: it
// makes the pipes, returns the same Process (Kill signals the group, Wait
// waits for the leader, the output comes through the pipes) and closes its
// copies of the files once Start returned.
type Starter interface {
	// Start starts s as the leader of a new process group and returns it
	// once it runs: its pid is then the process group's id, valid in this
	// process's pid namespace. It keeps no reference to s.Files after it
	// returns. An error means nothing was started; it names the program.
	// Safe for concurrent use.
	Start(s StartSpec) (Leader, error)
}

// StartSpec is a process for a Starter to start.
type StartSpec struct {
	// Path is the program: absolute, or relative to Dir. Local.Exec has
	// looked a bare name up on PATH already.
	Path string
	// Args is the argv; Args[0] is the name the program sees.
	Args []string
	// Dir is the working directory, an absolute path.
	Dir string
	// Env is the whole environment, KEY=VALUE pairs.
	Env []string
	// Files are the standard input, output and error.
	Files [3]*os.File
}

// Leader is a process a Starter started.
type Leader interface {
	// Pid is the process id, which is also its process group's id.
	Pid() int
	// Wait blocks until the process exits and returns its wait status. An
	// error means its end cannot be known (whatever started it is gone);
	// the error says why. Local.Exec calls it once.
	Wait() (syscall.WaitStatus, error)
}
