package injection

import (
	"context"
	_ "embed"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/tools"
)

// VariantBackgroundStatus is the variant of the reminder listing running
// background tasks after a compaction.
const VariantBackgroundStatus = "background_task_status"

//go:embed text/background_status.md
var backgroundStatusText string

// Options configure a Manager.
type Options struct {
	// PerStep run before every step, in order; nil means DefaultPerStep.
	// Plan mode joins here (between the todo and permission reminders).
	PerStep []Injector
	// Boundary run at the start of a turn and after a compaction, in
	// order: goal (main agent only), then the tools diff.
	Boundary []Injector
	// Logger receives failures of lifecycle callbacks; nil discards.
	Logger *slog.Logger
}

// DefaultPerStep are the per-step injectors every agent has today: the
// todo-list reminder, the permission-mode reminder, then the
// announcement of loadable tools (silent without progressive disclosure).
func DefaultPerStep() []Injector {
	return []Injector{&TodoReminder{}, &PermissionModeReminder{}, ToolsDiff{}}
}

// PerStepWith is DefaultPerStep with plan mode's reminder in its place,
// between the todo-list and permission-mode reminders (spec 04 §8.1).
func PerStepWith(planReminder Injector) []Injector {
	return []Injector{&TodoReminder{}, planReminder, &PermissionModeReminder{}}
}

// Manager runs an agent's injectors at their call sites (spec 04 §8.3):
// the boundary group at turn start, the per-step group in every step's
// BeforeStep, and everything again, with the background-task reminder,
// after a compaction. It forwards history's lifecycle to the injectors.
// It implements turn.Injector. Safe for concurrent use.
type Manager struct {
	log      *slog.Logger
	perStep  []Injector
	boundary []Injector

	mu   sync.Mutex
	host Host // guarded by mu
}

// New returns a manager for o.
func New(o Options) *Manager {
	m := &Manager{log: o.Logger, perStep: o.PerStep, boundary: o.Boundary}
	if m.log == nil {
		m.log = slog.New(slog.DiscardHandler)
	}
	if m.perStep == nil {
		m.perStep = DefaultPerStep()
	}
	return m
}

// Bind connects the manager to its agent; the agent calls it once, when
// it is built. Until then nothing is injected.
func (m *Manager) Bind(h Host) {
	m.mu.Lock()
	m.host = h
	m.mu.Unlock()
}

func (m *Manager) bound() Host {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.host
}

// InjectForTurn runs the boundary injectors (turn start).
func (m *Manager) InjectForTurn(ctx context.Context) error {
	return m.run(ctx, m.boundary)
}

// InjectForStep runs the per-step injectors (every BeforeStep, after
// compaction and the delivery of buffered input).
func (m *Manager) InjectForStep(ctx context.Context) error {
	return m.run(ctx, m.perStep)
}

// InjectAfterCompaction re-adds what a compaction dropped, before the
// compaction is announced complete (spec 03 §6.8 step 3): the boundary
// reminders, the still-running background tasks, then the per-step
// reminders.
func (m *Manager) InjectAfterCompaction(ctx context.Context) error {
	if err := m.run(ctx, m.boundary); err != nil {
		return err
	}
	h := m.bound()
	if h == nil {
		return nil
	}
	if tasks := h.ActiveTasks(); len(tasks) > 0 {
		text := strings.TrimSpace(backgroundStatusText) + "\n\n" + tools.FormatTaskList(tasks, true)
		if err := h.AppendMessage(ctx, history.SystemReminder(text, history.InjectionOrigin(VariantBackgroundStatus))); err != nil {
			return fmt.Errorf("remind of background tasks: %w", err)
		}
	}
	return m.run(ctx, m.perStep)
}

func (m *Manager) run(ctx context.Context, group []Injector) error {
	h := m.bound()
	if h == nil {
		return nil
	}
	for _, inj := range group {
		if err := inj.Inject(ctx, h); err != nil {
			return fmt.Errorf("inject reminder: %w", err)
		}
	}
	return nil
}

// OnContextClear forwards a clear of history to every injector.
func (m *Manager) OnContextClear() { m.each("clear", Injector.OnClear) }

// OnContextCompacted forwards a compaction; a failing injector does not
// keep the others from hearing of it.
func (m *Manager) OnContextCompacted() { m.each("compaction", Injector.OnCompacted) }

// OnMessageRemoved forwards the removal of history message i.
func (m *Manager) OnMessageRemoved(i int) {
	m.each("message removal", func(inj Injector) { inj.OnMessageRemoved(i) })
}

func (m *Manager) each(what string, f func(Injector)) {
	for _, g := range [][]Injector{m.boundary, m.perStep} {
		for _, inj := range g {
			func() {
				defer func() {
					if r := recover(); r != nil { // one broken injector must not deafen the others
						m.log.Error("injector failed", "injector", fmt.Sprintf("%T", inj), "event", what, "error", r)
					}
				}()
				f(inj)
			}()
		}
	}
}
