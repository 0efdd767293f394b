package osenvtest

import (
	"io"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/kimigo/kimigo/osenv"
)

// Result is what a fake process does: its output and exit code, or a
// spawn error.
type Result struct {
	Stdout, Stderr string
	ExitCode       int
	// StartErr makes Exec fail.
	StartErr error
	// Block keeps the process running until it is killed.
	Block bool
}

// Runner records the commands an Env starts and the signals sent to them.
// It is safe for concurrent use.
type Runner struct {
	run func(osenv.Cmd) Result

	mu      sync.Mutex
	cmds    []osenv.Cmd      // guarded by mu
	signals []syscall.Signal // guarded by mu
	nextPid int              // guarded by mu
}

// Commands returns every command started (or attempted) so far, in order.
func (r *Runner) Commands() []osenv.Cmd {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.cmds)
}

// Signals returns every signal sent to a fake process, in order.
func (r *Runner) Signals() []syscall.Signal {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.signals)
}

func (r *Runner) start(cmd osenv.Cmd) (osenv.Process, error) {
	res := Result{}
	if r.run != nil {
		res = r.run(cmd)
	}
	r.mu.Lock()
	r.cmds = append(r.cmds, cmd)
	r.nextPid++
	pid := 10000 + r.nextPid
	r.mu.Unlock()
	if res.StartErr != nil {
		return nil, res.StartErr
	}
	stdout, stderr := res.Stdout, res.Stderr
	if cmd.CombinedOutput {
		stdout, stderr = stdout+stderr, ""
	}
	p := &fakeProcess{r: r, pid: pid, res: res, done: make(chan struct{}),
		stdout: strings.NewReader(stdout), stderr: strings.NewReader(stderr)}
	if !res.Block {
		p.exit(res.ExitCode)
	}
	return p, nil
}

type fakeProcess struct {
	r              *Runner
	pid            int
	res            Result
	stdout, stderr io.Reader
	done           chan struct{}

	mu     sync.Mutex
	code   int  // guarded by mu
	exited bool // guarded by mu
}

func (p *fakeProcess) exit(code int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.exited {
		return
	}
	p.code, p.exited = code, true
	close(p.done)
}

func (p *fakeProcess) Pid() int              { return p.pid }
func (p *fakeProcess) Stdout() io.Reader     { return p.stdout }
func (p *fakeProcess) Stderr() io.Reader     { return p.stderr }
func (p *fakeProcess) Done() <-chan struct{} { return p.done }
func (p *fakeProcess) Close() error          { return nil }

func (p *fakeProcess) Wait() error {
	<-p.done
	return nil
}

func (p *fakeProcess) ExitCode() (int, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.code, p.exited
}

func (p *fakeProcess) Kill(sig syscall.Signal) error {
	p.r.mu.Lock()
	p.r.signals = append(p.r.signals, sig)
	p.r.mu.Unlock()
	if sig == syscall.SIGTERM || sig == syscall.SIGKILL {
		p.exit(128 + int(sig))
	}
	return nil
}
