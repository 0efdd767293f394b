package background

import (
	"context"
	"io"
	"sync"
	"syscall"
	"time"

	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/tools"
)

// drainWait bounds how long a process task still reads output after its
// shell exited: a grandchild may hold the pipes open (spec 05 §4.6).
const drainWait = 250 * time.Millisecond

// ProcessSpec is a started process to run as a task.
type ProcessSpec struct {
	Process     osenv.Process
	Command     string
	Description string
}

// processTask observes a spawned process (spec 05 §6.1, kind process):
// every chunk of its output in arrival order; exit 0 completes, another
// exit fails, the stop signal terminates the whole process group.
type processTask struct {
	spec  ProcessSpec
	start uint64 // the process's start time, for the resume orphan check
	force chan struct{}
	once  sync.Once
}

// NewProcessTask returns the task of a started process. The process must
// lead its own process group (osenv.Env.Exec does that), so that stopping
// the task stops everything it started.
func NewProcessTask(spec ProcessSpec) Task {
	t := &processTask{spec: spec, force: make(chan struct{})}
	if spec.Process != nil {
		t.start, _ = processStartTime(spec.Process.Pid())
	}
	return t
}

func (t *processTask) Kind() tools.TaskKind { return tools.TaskKindProcess }
func (t *processTask) Description() string  { return t.spec.Description }
func (t *processTask) ForceStop()           { t.once.Do(func() { close(t.force) }) }
func (t *processTask) Info(b tools.TaskInfo) tools.TaskInfo {
	b.Command, b.Pid, b.ProcessStart = t.spec.Command, t.spec.Process.Pid(), t.start
	return b
}

// Start reads the process's pipes until they end, after the process
// exited (at most drainWait later), and settles with its exit status.
func (t *processTask) Start(ctx context.Context, sink Sink) {
	p := t.spec.Process
	chunks := make(chan []byte, 8)
	var pumps sync.WaitGroup
	pumps.Add(2)
	go pump(p.Stdout(), chunks, &pumps)
	go pump(p.Stderr(), chunks, &pumps)
	go func() { pumps.Wait(); close(chunks) }() // owned here: the loop below waits for the close

	var (
		exited, ended, aborted bool
		drain                  <-chan time.Time
		done                   = p.Done()
		stop                   = ctx.Done()
		force                  = (<-chan struct{})(t.force)
	)
	for !exited || !ended {
		select {
		case c, ok := <-chunks:
			if !ok {
				ended, chunks = true, nil
				continue
			}
			sink.AppendOutput(c)
		case <-done:
			exited, done = true, nil
			if aborted {
				_ = p.Kill(syscall.SIGKILL) // grandchildren that ignored SIGTERM
			}
			drain = time.After(drainWait)
		case <-drain:
			drain = nil
			_ = p.Close() // stop waiting for output a grandchild holds open
		case <-stop:
			stop, aborted = nil, true
			_ = p.Kill(syscall.SIGTERM) // a failure leaves ForceStop's SIGKILL
		case <-force:
			force = nil
			_ = p.Kill(syscall.SIGKILL)
			_ = p.Close()
		}
	}
	_ = p.Close() // the pipes are drained or abandoned
	if err := p.Wait(); err != nil {
		sink.Settle(Settlement{Status: tools.TaskFailed, Reason: err.Error()})
		return
	}
	code, _ := p.ExitCode()
	s := Settlement{Status: tools.TaskFailed, ExitCode: &code}
	switch {
	case code == 0:
		s.Status = tools.TaskCompleted
	case aborted:
		s.Status = tools.TaskKilled
	}
	sink.Settle(s)
}

// pumpBuffer is how much one read takes from a pipe.
const pumpBuffer = 32 << 10

func pump(r io.Reader, out chan<- []byte, wg *sync.WaitGroup) {
	defer wg.Done()
	buf := make([]byte, pumpBuffer)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			out <- append([]byte(nil), buf[:n]...)
		}
		if err != nil {
			return
		}
	}
}
