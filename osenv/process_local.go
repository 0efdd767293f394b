package osenv

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
)

// localProcess is a child started by Local.Exec: the leader of its own
// process group, with pipes this package created so that the read ends
// outlive the leader (grandchildren may still write).
type localProcess struct {
	leader         Leader
	name           string   // the program, for messages
	stdout, stderr *os.File // read ends
	// stdinCopied is closed once a goroutine of ours finished feeding
	// Cmd.Stdin to a Starter's process; nil when no goroutine does.
	stdinCopied chan struct{}
	done        chan struct{}

	mu      sync.Mutex
	waitErr error // guarded by mu; set before done is closed
	code    int   // guarded by mu
	exited  bool  // guarded by mu
	closed  bool  // guarded by mu
}

func startProcess(c Cmd, dir string, environ []string) (Process, error) {
	if len(c.Args) == 0 {
		return nil, errors.New("exec: empty argv")
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("exec %s: stdout pipe: %w", c.Args[0], err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(outR, outW)
		return nil, fmt.Errorf("exec %s: stderr pipe: %w", c.Args[0], err)
	}
	childErr := errW
	if c.CombinedOutput {
		childErr = outW
	}
	p := &localProcess{name: c.Args[0], stdout: outR, stderr: errR, done: make(chan struct{})}
	if c.Starter != nil {
		err = p.startWith(c, dir, environ, outW, childErr)
	} else {
		err = p.startHere(c, dir, environ, outW, childErr)
	}
	// The child holds its own copies of the write ends; ours must go so
	// the readers see EOF once every writer is gone.
	closeAll(outW, errW)
	if err != nil {
		closeAll(outR, errR)
		return nil, err
	}
	go p.wait() // owned by p: it ends when the leader exits, and Wait joins it
	return p, nil
}

// startHere forks and executes the process from this one.
func (p *localProcess) startHere(c Cmd, dir string, environ []string, stdout, stderr *os.File) error {
	cmd := exec.Command(c.Args[0], c.Args[1:]...)
	cmd.Dir = dir
	cmd.Env = environ
	cmd.Stdin = c.Stdin // nil: the child gets /dev/null, so reads see EOF
	cmd.Stdout = stdout
	cmd.Stderr = stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("exec %s: %w", c.Args[0], err)
	}
	p.leader, p.name = execLeader{cmd}, cmd.Path
	return nil
}

// startWith has c.Starter start the process, looking a bare name up on
// PATH first as exec.Command does, and feeding Stdin through a pipe when
// it is not a file.
func (p *localProcess) startWith(c Cmd, dir string, environ []string, stdout, stderr *os.File) error {
	path := c.Args[0]
	if !strings.Contains(path, "/") {
		lp, err := exec.LookPath(path)
		if err != nil {
			return fmt.Errorf("exec %s: %w", path, err)
		}
		path = lp
	}
	var stdin, feed *os.File // the child's end, and ours when we copy
	switch in := c.Stdin.(type) {
	case nil:
		f, err := os.Open(os.DevNull)
		if err != nil {
			return fmt.Errorf("exec %s: stdin: %w", path, err)
		}
		defer f.Close() // the child holds its own copy
		stdin = f
	case *os.File:
		stdin = in
	default:
		r, w, err := os.Pipe()
		if err != nil {
			return fmt.Errorf("exec %s: stdin pipe: %w", path, err)
		}
		defer r.Close() // the child holds its own copy
		stdin, feed = r, w
	}
	leader, err := c.Starter.Start(StartSpec{Path: path, Args: c.Args, Dir: dir, Env: environ,
		Files: [3]*os.File{stdin, stdout, stderr}})
	if err != nil {
		if feed != nil {
			_ = feed.Close() // nobody reads the other end
		}
		return err
	}
	p.leader, p.name = leader, path
	if feed != nil {
		p.stdinCopied = make(chan struct{})
		go func() { // owned by p: wait joins it
			// The copy ends early, with EPIPE, when the process closes
			// its standard input; as with exec.Cmd that is no error.
			_, _ = io.Copy(feed, c.Stdin)
			_ = feed.Close() // the process sees EOF
			close(p.stdinCopied)
		}()
	}
	return nil
}

// execLeader is a process this one forked itself.
type execLeader struct{ cmd *exec.Cmd }

func (l execLeader) Pid() int { return l.cmd.Process.Pid }

func (l execLeader) Wait() (syscall.WaitStatus, error) {
	err := l.cmd.Wait()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return 0, err
	}
	ws, _ := l.cmd.ProcessState.Sys().(syscall.WaitStatus)
	return ws, nil
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		_ = f.Close() // cleanup of pipes nobody reads or writes any more
	}
}

func (p *localProcess) wait() {
	ws, err := p.leader.Wait()
	if p.stdinCopied != nil {
		<-p.stdinCopied
	}
	p.mu.Lock()
	if err != nil {
		p.waitErr = fmt.Errorf("wait %s: %w", p.name, err)
	} else {
		p.exited = true
		p.code = exitCode(ws)
	}
	p.mu.Unlock()
	close(p.done)
}

func exitCode(ws syscall.WaitStatus) int {
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}

func (p *localProcess) Pid() int              { return p.leader.Pid() }
func (p *localProcess) Stdout() io.Reader     { return p.stdout }
func (p *localProcess) Stderr() io.Reader     { return p.stderr }
func (p *localProcess) Done() <-chan struct{} { return p.done }

func (p *localProcess) Wait() error {
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.waitErr
}

func (p *localProcess) ExitCode() (int, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.code, p.exited
}

// Kill signals the process group; if that is not permitted it falls back
// to the leader alone.
func (p *localProcess) Kill(sig syscall.Signal) error {
	pid := p.leader.Pid()
	err := syscall.Kill(-pid, sig)
	switch {
	case err == nil, errors.Is(err, syscall.ESRCH):
		return nil
	case errors.Is(err, syscall.EPERM):
		if err := syscall.Kill(pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
			return fmt.Errorf("kill %d: %w", pid, err)
		}
		return nil
	}
	return fmt.Errorf("kill group %d: %w", pid, err)
}

func (p *localProcess) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	p.mu.Unlock()
	return errors.Join(p.stdout.Close(), p.stderr.Close())
}
