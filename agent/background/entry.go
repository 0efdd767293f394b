package background

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"sync"
	"time"

	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/tools"
)

// entry is one live task. Its status fields are guarded by the manager's
// mu; its output by outMu. Lock order: outMu before the manager's mu,
// never the other way round.
type entry struct {
	m    *Manager
	id   string
	task Task
	kind tools.TaskKind

	// Fixed at registration.
	timeout, detachTimeout time.Duration
	autoBackground         bool
	startedDetached        bool
	signal                 context.Context // foreground only
	persistAfter           int64

	// ctx is the task's stop signal; its cause says why.
	ctx    context.Context
	cancel context.CancelCauseFunc

	stopReq   chan struct{} // closed by the first stop request
	stopOnce  sync.Once
	detachReq chan tools.ReleaseKind
	settled   chan Settlement // the first settlement; buffered
	settle    sync.Once
	done      chan struct{} // closed once terminal

	released    chan struct{}
	releaseOnce sync.Once
	release     tools.ForegroundRelease // set before released is closed

	info      tools.TaskInfo // guarded by m.mu
	requested string         // guarded by m.mu; the first stop reason asked for
	stopCause error          // guarded by m.mu; the abort cause of an interrupted call, else nil

	outMu    sync.Mutex
	ring     *ring          // guarded by outMu
	total    int64          // guarded by outMu
	pending  []byte         // guarded by outMu; foreground output not yet on disk
	logFile  osenv.File     // guarded by outMu; open while logging
	logPath  string         // guarded by outMu; set once the log was created
	logDone  bool           // guarded by outMu; the log was closed for good
	tripped  bool           // guarded by outMu; the output ceiling stopped the task
	onOutput func(p []byte) // guarded by outMu; nil once released
}

func (m *Manager) newEntry(id string, task Task, o RegisterOptions, now time.Time) *entry {
	ctx, cancel := context.WithCancelCause(m.base)
	e := &entry{m: m, id: id, task: task, kind: task.Kind(),
		timeout: o.Timeout, detachTimeout: o.DetachTimeout, autoBackground: o.AutoBackground,
		startedDetached: !o.Foreground, persistAfter: o.PersistAfter,
		ctx: ctx, cancel: cancel,
		stopReq: make(chan struct{}), detachReq: make(chan tools.ReleaseKind, 1),
		settled: make(chan Settlement, 1), done: make(chan struct{}), released: make(chan struct{}),
		ring: newRing(m.ringBytes()), onOutput: o.OnOutput}
	if o.Foreground {
		e.signal = o.Signal
		if e.signal == nil {
			e.signal = context.Background()
		}
	}
	if e.persistAfter <= 0 {
		e.persistAfter = DefaultPersistAfter
	}
	e.info = task.Info(tools.TaskInfo{TaskID: id, Description: task.Description(), Status: tools.TaskRunning,
		Detached: !o.Foreground, StartedAt: now.UnixMilli(), TimeoutMs: o.Timeout.Milliseconds(), Kind: task.Kind()})
	return e
}

// infoLocked is the task's info; the caller holds m.mu.
func (e *entry) infoLocked() tools.TaskInfo {
	info := e.info
	if info.EndedAt != nil {
		v := *info.EndedAt
		info.EndedAt = &v
	}
	if info.ExitCode != nil {
		v := *info.ExitCode
		info.ExitCode = &v
	}
	return info
}

// AppendOutput implements Sink.
func (e *entry) AppendOutput(p []byte) {
	if len(p) == 0 {
		return
	}
	e.outMu.Lock()
	defer e.outMu.Unlock()
	e.total += int64(len(p))
	e.ring.write(p)
	if e.tripped {
		return
	}
	if e.kind == tools.TaskKindProcess && e.total > OutputCeiling {
		// No more output goes to disk or to the call; the stop takes the
		// manager's lock, which is below outMu.
		e.tripped, e.onOutput = true, nil
		e.closeLogLocked()
		e.requestStop(ceilingReason)
		return
	}
	switch {
	case e.logFile != nil:
		e.writeLogLocked(p)
	case !e.logDone && e.m.o.Dir != "":
		e.pending = append(e.pending, p...)
		if int64(len(e.pending)) > e.persistAfter {
			e.startLogLocked()
		}
	}
	if e.onOutput != nil {
		e.onOutput(p)
	}
}

// Settle implements Sink.
func (e *entry) Settle(s Settlement) bool {
	won := false
	e.settle.Do(func() {
		e.settled <- s
		won = true
	})
	return won
}

// requestStop asks the lifecycle to stop the task with reason; the first
// request's reason is kept.
func (e *entry) requestStop(reason string) {
	e.m.mu.Lock()
	if e.requested == "" {
		e.requested = reason
	}
	e.m.mu.Unlock()
	e.stopOnce.Do(func() { close(e.stopReq) })
}

// startLogLocked opens tasks/<id>/output.log and writes the pending
// output to it; from then on every chunk is appended. A failure is logged
// and the output stays in memory. The caller holds outMu.
func (e *entry) startLogLocked() {
	if e.logFile != nil || e.logDone || e.m.o.Dir == "" {
		return
	}
	dir := path.Join(e.m.tasksDir(), e.id)
	p := path.Join(dir, "output.log")
	f, err := e.openLog(dir, p)
	if err != nil {
		e.m.log.Warn("cannot save background task output", "task_id", e.id, "path", p, "error", err)
		e.logDone, e.pending = true, nil
		return
	}
	e.logFile, e.logPath = f, p
	pending := e.pending
	e.pending = nil
	e.writeLogLocked(pending)
}

func (e *entry) openLog(dir, p string) (osenv.File, error) {
	if err := e.m.ensureDir(dir); err != nil {
		return nil, err
	}
	return e.m.fs.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o600)
}

func (e *entry) writeLogLocked(p []byte) {
	if len(p) == 0 || e.logFile == nil {
		return
	}
	if _, err := e.logFile.Write(p); err != nil {
		e.m.log.Warn("background task output lost", "task_id", e.id, "path", e.logPath, "error", err)
		e.closeLogLocked()
		e.logPath = "" // incomplete: never offered as the full output
	}
}

// closeLogLocked ends the log for good.
func (e *entry) closeLogLocked() {
	e.logDone = true
	e.pending = nil
	if e.logFile == nil {
		return
	}
	if err := e.logFile.Close(); err != nil {
		e.m.log.Warn("close background task output", "task_id", e.id, "path", e.logPath, "error", err)
	}
	e.logFile = nil
}

// persisted reports whether the task's output reached disk.
func (e *entry) persisted() bool {
	e.outMu.Lock()
	defer e.outMu.Unlock()
	return e.logPath != ""
}

// releaseWith releases a foreground caller once.
func (e *entry) releaseWith(kind tools.ReleaseKind) {
	e.releaseOnce.Do(func() {
		e.m.mu.Lock()
		info := e.infoLocked()
		e.m.mu.Unlock()
		e.outMu.Lock()
		e.onOutput = nil
		e.release = tools.ForegroundRelease{Kind: kind, Info: info, OutputPath: e.logPath, OutputSize: e.total}
		e.outMu.Unlock()
		close(e.released)
	})
}

// Handle is a registered task as its registrant holds it; it implements
// tools.ForegroundTask.
type Handle struct{ e *entry }

// ID is the task id.
func (h *Handle) ID() string { return h.e.id }

// Released is closed when the task ended or left the foreground.
func (h *Handle) Released() <-chan struct{} { return h.e.released }

// Release says how the task left the foreground; valid once Released is
// closed.
func (h *Handle) Release() tools.ForegroundRelease { return h.e.release }

// Done is closed once the task is over.
func (h *Handle) Done() <-chan struct{} { return h.e.done }

// Detach moves a foreground task to the background (the user's detach).
// It does nothing for a task that is over or already in the background.
func (h *Handle) Detach() {
	select {
	case h.e.detachReq <- tools.ReleaseDetached:
	default: // a detach is already on its way
	}
}

// errTimedOut is the stop cause of a deadline.
var errTimedOut = errors.New("timed out")

// over reports whether the task's lifecycle ended: its status, record,
// notification and events are all done.
func (e *entry) over() bool {
	select {
	case <-e.done:
		return true
	default:
		return false
	}
}

// ensureDir creates dir below the agent's home, never the home itself: a
// home deleted while kimigo runs stays deleted (the records' writer
// reports it) instead of coming back with only task files in it.
func (m *Manager) ensureDir(dir string) error {
	if err := osenv.MkdirBelow(m.fs, m.o.Dir, dir, 0o700); err != nil {
		return fmt.Errorf("agent home %s: %w", m.o.Dir, err)
	}
	return nil
}
