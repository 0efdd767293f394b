package hooks

import (
	"bytes"
	"context"
	"errors"
	"io"
	"sort"
	"sync"
	"syscall"
	"time"

	"github.com/kimigo/kimigo/osenv"
)

// shellPath runs every hook command (spec 06 §6.3).
const shellPath = "/bin/sh"

const (
	// killGrace is the time between SIGTERM and SIGKILL.
	killGrace = 100 * time.Millisecond
	// drainGrace is how long the output of an exited command may keep
	// coming: a command that left a background child holding its pipes
	// must not hold the trigger.
	drainGrace = 200 * time.Millisecond
)

// errCancelled is the error of a result whose trigger was cancelled.
var errCancelled = errors.New("hook cancelled")

// run runs one hook command to its end, its timeout or ctx's end, and
// decides. It never fails: whatever goes wrong allows (spec 06 §6.3).
func (e *Engine) run(ctx context.Context, h compiled, input []byte) Result {
	start := e.now()
	res := Result{Hook: h.Hook, ExitCode: -1}
	defer func() { res.Duration = e.now().Sub(start) }()
	if err := ctx.Err(); err != nil {
		res.Action, res.Err = Allow, errCancelled
		return res
	}
	p, err := e.env.Exec(osenv.Cmd{
		Args:  []string{shellPath, "-c", h.Command},
		Dir:   e.dirOf(h.Hook),
		Env:   envPairs(h.Env),
		Stdin: bytes.NewReader(input), // a hook that does not read it gets EPIPE, ignored
	})
	if err != nil {
		res.Action, res.Err, res.Stderr = Allow, err, err.Error()
		return res
	}
	var stdout, stderr tailBuffer
	var wg sync.WaitGroup
	wg.Add(2)
	go drain(&wg, &stdout, p.Stdout())
	go drain(&wg, &stderr, p.Stderr())

	timer := time.NewTimer(h.timeout())
	defer timer.Stop()
	select {
	case <-p.Done():
	case <-timer.C:
		res.TimedOut = true
		terminate(p)
	case <-ctx.Done():
		res.Err = errCancelled
		terminate(p)
	}
	drained := make(chan struct{})
	go func() { wg.Wait(); close(drained) }()
	grace := time.NewTimer(drainGrace)
	select {
	case <-drained:
	case <-grace.C: // a child of the hook still holds the pipes
	}
	grace.Stop()
	_ = p.Close() // ends the drains; the output so far is kept
	<-drained
	if err := p.Wait(); err != nil && res.Err == nil {
		res.Err = err
	}
	res.Stdout, res.Stderr = stdout.String(), stderr.String()
	if code, ok := p.ExitCode(); ok {
		res.ExitCode = code
	}
	if res.TimedOut || res.Err != nil {
		res.Action = Allow
		return res
	}
	res.decide()
	return res
}

// terminate ends the command's whole process group: SIGTERM, then
// SIGKILL killGrace later for whatever is left.
func terminate(p osenv.Process) {
	_ = p.Kill(syscall.SIGTERM) // a group already gone is no error
	t := time.NewTimer(killGrace)
	select {
	case <-p.Done():
	case <-t.C:
	}
	t.Stop()
	_ = p.Kill(syscall.SIGKILL) // stragglers of the group, if any
	<-p.Done()
}

func drain(wg *sync.WaitGroup, dst io.Writer, src io.Reader) {
	defer wg.Done()
	_, _ = io.Copy(dst, src) // ends at EOF or when the pipe is closed
}

// envPairs turns a hook's env map into sorted KEY=VALUE pairs.
func envPairs(env map[string]string) []string {
	if len(env) == 0 {
		return nil
	}
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}
