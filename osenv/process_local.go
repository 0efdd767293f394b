package osenv

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
)

// localProcess is a child started by Local.Exec: the leader of its own
// process group, with pipes this package created so that the read ends
// outlive the leader (grandchildren may still write).
type localProcess struct {
	cmd            *exec.Cmd
	stdout, stderr *os.File // read ends
	done           chan struct{}

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
	cmd := exec.Command(c.Args[0], c.Args[1:]...)
	cmd.Dir = dir
	cmd.Env = environ
	cmd.Stdin = c.Stdin // nil: the child gets /dev/null, so reads see EOF
	cmd.Stdout = outW
	cmd.Stderr = childErr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		closeAll(outR, outW, errR, errW)
		return nil, fmt.Errorf("exec %s: %w", c.Args[0], err)
	}
	// The child holds its own copies of the write ends; ours must go so
	// the readers see EOF once every writer is gone.
	closeAll(outW, errW)
	p := &localProcess{cmd: cmd, stdout: outR, stderr: errR, done: make(chan struct{})}
	go p.wait() // owned by p: it ends when the leader exits, and Wait joins it
	return p, nil
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		_ = f.Close() // cleanup of pipes nobody reads or writes any more
	}
}

func (p *localProcess) wait() {
	err := p.cmd.Wait()
	p.mu.Lock()
	var ee *exec.ExitError
	switch {
	case err == nil || errors.As(err, &ee):
		p.exited = true
		p.code = exitCode(p.cmd.ProcessState)
	default:
		p.waitErr = fmt.Errorf("wait %s: %w", p.cmd.Path, err)
	}
	p.mu.Unlock()
	close(p.done)
}

func exitCode(st *os.ProcessState) int {
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return st.ExitCode()
}

func (p *localProcess) Pid() int              { return p.cmd.Process.Pid }
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
	err := syscall.Kill(-p.cmd.Process.Pid, sig)
	switch {
	case err == nil, errors.Is(err, syscall.ESRCH):
		return nil
	case errors.Is(err, syscall.EPERM):
		if err := p.cmd.Process.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
			return fmt.Errorf("kill %d: %w", p.cmd.Process.Pid, err)
		}
		return nil
	}
	return fmt.Errorf("kill group %d: %w", p.cmd.Process.Pid, err)
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
