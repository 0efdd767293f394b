package osenv

import (
	"io"
	"syscall"
)

// Env is the whole OS seam (spec 05 §10): the file system, a working
// directory of its own, an environment overlay, and process spawning.
// Values are immutable: WithCwd and WithEnv return derived values and never
// change the receiver, so one Env may be shared by concurrent tool calls.
// Every method is safe for concurrent use.
type Env interface {
	FS

	// PathClass is the path syntax of this environment.
	PathClass() PathClass
	// Normpath cleans p lexically (no symlink resolution): "." and ".."
	// elements, repeated separators and a trailing separator go.
	Normpath(p string) string
	// Home is the user's home directory ("" when unknown).
	Home() string
	// Cwd is this value's working directory, an absolute path. It is never
	// the process-global directory of another value.
	Cwd() string
	// WithCwd returns a copy whose working directory is dir (resolved
	// against the current one when relative).
	WithCwd(dir string) Env
	// WithEnv returns a copy whose environment has overlay applied on top
	// of the current one. An empty value unsets the variable.
	WithEnv(overlay map[string]string) Env
	// Getenv reads one variable of the (overlaid) environment.
	Getenv(key string) string
	// Environ is the (overlaid) environment as KEY=VALUE pairs, sorted.
	Environ() []string
	// TempDir is a directory for scratch files such as full command logs.
	TempDir() string
	// Shell is the shell Bash commands run in.
	Shell() Shell
	// Exec starts a process as the leader of a new process group, with
	// stdin closed unless cmd.Stdin is set. It does not wait for it.
	Exec(cmd Cmd) (Process, error)
}

// PathClass names a path syntax.
type PathClass string

// Path classes. Remote backends stay posix.
const (
	PathPOSIX PathClass = "posix"
	PathWin32 PathClass = "win32"
)

// Shell is the shell that runs command strings.
type Shell struct {
	// Name is "bash" or "sh".
	Name string
	// Path is the absolute path of the binary.
	Path string
}

// Cmd describes a process to start.
type Cmd struct {
	// Args is the argv; Args[0] is looked up on PATH when it has no slash.
	Args []string
	// Dir is the working directory; "" means the Env's Cwd.
	Dir string
	// Env is added after the Env's own environment (later entries win);
	// KEY=VALUE pairs.
	Env []string
	// Stdin feeds the process; nil means closed (reads see EOF at once).
	Stdin io.Reader
	// CombinedOutput makes stderr share stdout's pipe, so the output keeps
	// the exact order the process wrote it in (two pipes cannot: writes
	// microseconds apart may be read in either order). Process.Stderr is
	// then empty.
	CombinedOutput bool
	// Starter, when set, starts the process in place of this machine's
	// fork and exec, e.g. inside a sandbox (package sandbox). The Process
	// Exec returns behaves the same either way.
	Starter Starter
}

// Process is a started process. Its pipes must be read concurrently with
// Wait, or a chatty child blocks. Every method is safe for concurrent use.
type Process interface {
	// Pid is the process id, which is also its process-group id.
	Pid() int
	// Stdout and Stderr are the read ends of the output pipes. They reach
	// EOF when every process holding the write end (grandchildren too) has
	// closed it; Close ends them early.
	Stdout() io.Reader
	Stderr() io.Reader
	// Wait blocks until the leader exits and returns nil, whatever its exit
	// status; an error means the wait itself failed. It may be called from
	// several goroutines.
	Wait() error
	// Done is closed when Wait would return.
	Done() <-chan struct{}
	// ExitCode is the exit status once the leader exited; a death by signal
	// N reports 128+N, as shells do. ok is false while it runs.
	ExitCode() (code int, ok bool)
	// Kill sends sig to the whole process group. A group that is already
	// gone is not an error.
	Kill(sig syscall.Signal) error
	// Close closes the read ends of the pipes. Call it after Wait, once
	// the output was drained or the drain gave up.
	Close() error
}
