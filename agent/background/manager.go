package background

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"path"
	"sync"
	"time"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/internal/bug"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/tools"
)

// Defaults of Options (spec 05 §4.6, §6.4).
const (
	// DefaultKillGrace is how long a stopped task gets before it is forced.
	DefaultKillGrace = 5 * time.Second
	// OutputCeiling stops a process task that printed more than this.
	OutputCeiling = 16 << 20
	// DefaultPersistAfter is how much output a foreground task keeps in
	// memory before it starts its log on disk.
	DefaultPersistAfter = 1 << 20
	// ringMemory is the in-memory tail of a task whose output has no log
	// on disk; ringPersisted that of a task whose log holds everything
	// (the tail serves notifications, previews and TaskOutput without a
	// log).
	ringMemory    = 1 << 20
	ringPersisted = 64 << 10
)

// ErrTooManyTasks refuses a background task over the running-task cap.
var ErrTooManyTasks = errors.New("Too many background tasks are already running.") //lint:ignore ST1005 the model reads it verbatim (spec 05 §6.2)

// ErrClosed is returned by a manager used after Close.
var ErrClosed = errors.New("background task manager is closed")

// ceilingReason is the stop reason of a process over OutputCeiling.
var ceilingReason = fmt.Sprintf("Output limit exceeded: the command printed more than %d MiB and was stopped. "+
	"Redirect large output to a file and read it in slices.", OutputCeiling>>20)

// Options configure a Manager. The zero value keeps output in memory,
// persists nothing and caps nothing.
type Options struct {
	// Dir is the agent's home directory (<session>/agents/<id>): task
	// records go to tasks/<id>.json and full output to
	// tasks/<id>/output.log. "" keeps everything in memory.
	Dir string
	// FS holds Dir; nil means the local file system.
	FS osenv.FS
	// MaxRunning caps the background tasks running at once; 0 means no
	// cap. Foreground tasks are never refused.
	MaxRunning int
	// KillGrace is how long a stopped task gets before it is forced; 0
	// means DefaultKillGrace.
	KillGrace time.Duration
	// RingBytes is the output each task keeps in memory; 0 means 64 KiB
	// for a task whose full output is on disk and 1 MiB otherwise.
	RingBytes int
	// Processes finds the processes of tasks a resume finds lost; nil
	// means LocalProcesses.
	Processes ProcessProber
	// Events receives the task events besides the bound agent; nil is
	// nobody else.
	Events func(Event)
	// Logger receives lifecycle logs; nil discards.
	Logger *slog.Logger
}

// Host is the agent as the manager reaches it. Both methods are safe for
// concurrent use; the manager never holds its lock while calling them.
type Host interface {
	// Steer delivers a notification: to the running turn at its next step
	// boundary, or starting a turn when the agent is idle.
	Steer(ctx context.Context, parts []llm.ContentPart, origin *history.Origin) error
	// AppendMessage adds a message to history without starting a turn
	// (a resume's undelivered notifications).
	AppendMessage(ctx context.Context, m history.Message) error
	// Publish passes a task event on to the agent's front ends.
	Publish(ev Event)
	// Notified is told of each notification delivered live, after
	// Steer (the agent fires its Notification hook, spec 05 §6.6).
	Notified(n Notification)
}

// Manager is one agent's background task manager (spec 05 §6): it
// registers tasks, runs their lifecycles (deadline, stop with grace,
// detach), captures their output (an in-memory ring plus the full
// output.log), persists their records, notifies the model when a
// background task ends, and on resume turns tasks that were running into
// lost ones. It implements tools.BackgroundTasks. Every method is safe for
// concurrent use.
type Manager struct {
	o     Options
	log   *slog.Logger
	fs    osenv.FS
	probe ProcessProber
	grace time.Duration
	// base is the lifetime root of notification deliveries; Close
	// cancels it.
	base   context.Context
	cancel context.CancelFunc
	// closing is closed when Close starts: lost tasks' processes are
	// killed at once instead of after the grace.
	closing   chan struct{}
	closeOnce sync.Once

	mu        sync.Mutex
	host      Host                      // guarded by mu
	entries   map[string]*entry         // guarded by mu; live tasks
	ghosts    map[string]tools.TaskInfo // guarded by mu; tasks loaded from disk
	order     []string                  // guarded by mu; ids, oldest first
	delivered map[string]bool           // guarded by mu; notification keys in history
	scheduled map[string]bool           // guarded by mu; notification keys steered
	closed    bool                      // guarded by mu
	wg        sync.WaitGroup
}

var _ tools.BackgroundTasks = (*Manager)(nil)

// New returns a manager for o. It reads and writes nothing until a task
// registers or Reconcile runs.
func New(o Options) *Manager {
	m := &Manager{o: o, log: o.Logger, fs: o.FS, probe: o.Processes, grace: o.KillGrace,
		entries: map[string]*entry{}, ghosts: map[string]tools.TaskInfo{},
		delivered: map[string]bool{}, scheduled: map[string]bool{}, closing: make(chan struct{})}
	if m.log == nil {
		m.log = slog.New(slog.DiscardHandler)
	}
	if m.fs == nil {
		m.fs = osenv.NewLocal(osenv.LocalOptions{})
	}
	if m.probe == nil {
		m.probe = LocalProcesses{}
	}
	if m.grace <= 0 {
		m.grace = DefaultKillGrace
	}
	m.base, m.cancel = context.WithCancel(context.Background())
	return m
}

// Bind connects the manager to its agent; the agent calls it once, when
// it is built. Until then notifications are not delivered.
func (m *Manager) Bind(h Host) {
	m.mu.Lock()
	m.host = h
	m.mu.Unlock()
}

// RegisterOptions say how a task runs.
type RegisterOptions struct {
	// Foreground makes a task a tool call waits for; Signal is then the
	// call's context: when it ends while the task is attached, the task is
	// stopped as interrupted by the user.
	Foreground bool
	Signal     context.Context
	// Timeout is the deadline; 0 means none.
	Timeout time.Duration
	// AutoBackground moves a foreground task to the background at its
	// deadline instead of stopping it, and arms DetachTimeout (0: none).
	AutoBackground bool
	DetachTimeout  time.Duration
	// PersistAfter: a foreground task starts its log on disk once it
	// printed that much; 0 means DefaultPersistAfter.
	PersistAfter int64
	// OnOutput receives a foreground task's output until it is released.
	OnOutput func([]byte)
}

// Register starts task and returns its entry. A background registration
// over the running-task cap is refused with ErrTooManyTasks.
func (m *Manager) Register(task Task, o RegisterOptions) (*Handle, error) {
	now := time.Now()
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, ErrClosed
	}
	if !o.Foreground && m.o.MaxRunning > 0 && m.runningBackgroundLocked() >= m.o.MaxRunning {
		m.mu.Unlock()
		return nil, ErrTooManyTasks
	}
	id := m.newIDLocked(idPrefix(task.Kind()))
	e := m.newEntry(id, task, o, now)
	m.entries[id] = e
	m.order = append(m.order, id)
	info := e.info
	m.wg.Add(2)
	m.mu.Unlock()

	switch {
	case !o.Foreground:
		e.outMu.Lock()
		e.startLogLocked()
		e.outMu.Unlock()
		m.writeInfo(info)
		m.emit(TaskStarted{Info: info})
	case task.Kind() == tools.TaskKindProcess:
		// A foreground command keeps a record while it runs, so that a
		// resume after kimigo was killed finds its processes.
		m.saveInfo(info, false)
	}
	go m.work(e)
	go m.lifecycle(e)
	m.log.Info("background task registered", "task_id", id, "kind", task.Kind(), "detached", !o.Foreground)
	return &Handle{e: e}, nil
}

// runningBackgroundLocked counts the running tasks registered in the
// background (spec 05 §6.2: detached-at-start only).
func (m *Manager) runningBackgroundLocked() int {
	n := 0
	for _, e := range m.entries {
		if e.startedDetached && !e.info.Status.Terminal() {
			n++
		}
	}
	return n
}

// newIDLocked returns an unused id: the kind's prefix and 8 characters
// of [0-9a-z] (spec 05 §6.1).
func (m *Manager) newIDLocked(prefix string) string {
	const alphabet = "0123456789abcdefghijklmnopqrstuvwxyz"
	for {
		var b [8]byte
		_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
		s := make([]byte, 8)
		for i, c := range b {
			s[i] = alphabet[int(c)%len(alphabet)]
		}
		id := prefix + "-" + string(s)
		_, live := m.entries[id]
		_, ghost := m.ghosts[id]
		if !live && !ghost {
			return id
		}
	}
}

// work runs the task's own goroutine; a panic fails the task.
func (m *Manager) work(e *entry) {
	defer m.wg.Done()
	defer func() {
		if r := recover(); r != nil {
			bug.Reportf("background task %s panicked: %v", e.id, r)
			e.Settle(Settlement{Status: tools.TaskFailed, Reason: fmt.Sprint("the task crashed: ", r)})
		}
	}()
	e.task.Start(e.ctx, e)
}

// Get returns a task, live or loaded from disk by a resume.
func (m *Manager) Get(id string) (tools.TaskInfo, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.entries[id]; ok {
		return e.infoLocked(), true
	}
	g, ok := m.ghosts[id]
	return g, ok
}

// List implements tools.BackgroundTasks.
func (m *Manager) List(activeOnly bool) []tools.TaskInfo {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []tools.TaskInfo
	for _, id := range m.order {
		if e, ok := m.entries[id]; ok {
			info := e.infoLocked()
			switch {
			case !info.Status.Terminal():
				out = append(out, info)
			case !activeOnly && info.Detached:
				out = append(out, info)
			}
			continue
		}
		if g, ok := m.ghosts[id]; ok && !activeOnly && g.Detached {
			out = append(out, g)
		}
	}
	return out
}

// Stop stops a running task and waits until it is over or ctx ends. A
// blank reason means "Stopped by TaskStop". ok is false for an unknown id;
// a finished task is returned as it is.
func (m *Manager) Stop(ctx context.Context, id, reason string) (tools.TaskInfo, bool, error) {
	return m.stop(ctx, id, reason, true)
}

// Suppress keeps the model from being told of the task's end.
func (m *Manager) Suppress(id string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.entries[id]; ok && !e.info.Status.Terminal() {
		e.info.TerminalNotificationSuppressed = true
	}
}

func (m *Manager) stop(ctx context.Context, id, reason string, suppress bool) (tools.TaskInfo, bool, error) {
	if reason == "" {
		reason = "Stopped by TaskStop"
	}
	m.mu.Lock()
	e, ok := m.entries[id]
	if !ok {
		g, ok := m.ghosts[id]
		m.mu.Unlock()
		return g, ok, nil
	}
	if e.info.Status.Terminal() {
		info := e.infoLocked()
		m.mu.Unlock()
		return info, true, nil
	}
	if suppress {
		e.info.TerminalNotificationSuppressed = true
	}
	m.mu.Unlock()
	e.requestStop(reason)
	select {
	case <-e.done:
	case <-ctx.Done():
		return tools.TaskInfo{}, true, fmt.Errorf("stop task %s: %w", id, context.Cause(ctx))
	}
	info, _ := m.Get(id)
	return info, true, nil
}

// Wait returns the task once it is over, or as it is when ctx ends. ok is
// false for an unknown id.
func (m *Manager) Wait(ctx context.Context, id string) (tools.TaskInfo, bool) {
	m.mu.Lock()
	e, live := m.entries[id]
	m.mu.Unlock()
	if live {
		select {
		case <-e.done:
		case <-ctx.Done():
		}
	}
	return m.Get(id)
}

// WaitForActive waits until no active task matches keep (nil: every
// task), looking again after each end so that tasks started meanwhile are
// waited for too. A task counts as active until its lifecycle is over:
// one whose status is already terminal but whose notification is still
// being delivered is waited for, so that when WaitForActive returns, every
// notification was steered. It returns ctx's error when ctx ends first.
func (m *Manager) WaitForActive(ctx context.Context, keep func(tools.TaskInfo) bool) error {
	for {
		m.mu.Lock()
		var waiting []*entry
		for _, id := range m.order {
			if e, ok := m.entries[id]; ok && !e.over() && (keep == nil || keep(e.infoLocked())) {
				waiting = append(waiting, e)
			}
		}
		m.mu.Unlock()
		if len(waiting) == 0 {
			return nil
		}
		for _, e := range waiting {
			select {
			case <-e.done:
			case <-ctx.Done():
				return context.Cause(ctx)
			}
		}
	}
}

// Close stops every running task without notifying anyone, waits for
// their goroutines (or ctx), and refuses new tasks afterwards.
func (m *Manager) Close(ctx context.Context) error {
	m.mu.Lock()
	m.closed = true
	var running []*entry
	for _, e := range m.entries {
		if !e.info.Status.Terminal() {
			e.info.TerminalNotificationSuppressed = true
			running = append(running, e)
		}
	}
	m.mu.Unlock()
	m.closeOnce.Do(func() { close(m.closing) })
	for _, e := range running {
		e.requestStop("The agent was closed")
	}
	done := make(chan struct{})
	go func() { m.wg.Wait(); close(done) }()
	select {
	case <-done:
		m.cancel()
		return nil
	case <-ctx.Done():
		m.cancel()
		return fmt.Errorf("close background tasks: %w", ctx.Err())
	}
}

// MarkDelivered records that a notification entered history, so it is
// never delivered again; the agent's history calls it for every message
// with a background_task origin, live and on resume. It only takes the
// manager's lock.
func (m *Manager) MarkDelivered(o history.Origin) {
	m.mu.Lock()
	m.delivered[notificationKey(o.TaskID, o.Status, o.NotificationID)] = true
	m.mu.Unlock()
}

func (m *Manager) emit(ev Event) {
	if m.o.Events != nil {
		m.o.Events(ev)
	}
	m.mu.Lock()
	h := m.host
	m.mu.Unlock()
	if h != nil {
		h.Publish(ev)
	}
}

// ringBytes is the in-memory tail of a new task.
func (m *Manager) ringBytes() int {
	switch {
	case m.o.RingBytes > 0:
		return m.o.RingBytes
	case m.o.Dir != "":
		return ringPersisted
	}
	return ringMemory
}

func (m *Manager) tasksDir() string { return path.Join(m.o.Dir, "tasks") }
