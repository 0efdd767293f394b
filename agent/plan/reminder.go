package plan

import (
	"context"
	_ "embed"
	"strings"
	"sync"
	"text/template"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/injection"
	"github.com/kimigo/kimigo/llm"
)

// VariantPlanMode is the injection variant of the plan reminders.
const VariantPlanMode = "plan_mode"

// Reminder cadence (spec 04 §5.7): after a reminder, two assistant
// messages bring a short one and five a full one.
const (
	dedupMinTurns    = 2
	fullRefreshTurns = 5
)

var (
	//go:embed text/reminder_full.md
	reminderFullText string
	//go:embed text/reminder_sparse.md
	reminderSparseText string
	//go:embed text/reminder_reentry.md
	reminderReentryText string
	//go:embed text/reminder_exit.md
	reminderExitText string

	// The templates are parsed on first use, not at every process start.
	reminderTemplates = sync.OnceValue(func() map[string]*template.Template {
		return map[string]*template.Template{
			"full":    template.Must(template.New("full").Parse(reminderFullText)),
			"sparse":  template.Must(template.New("sparse").Parse(reminderSparseText)),
			"reentry": template.Must(template.New("reentry").Parse(reminderReentryText)),
		}
	})
)

// Reminder is the per-step plan-mode injector (spec 04 §5.7, §8.2): a
// full reminder when plan mode starts, a short one after two assistant
// messages, a full one again after five or after any new user input; one
// reminder when plan mode ends; and, when a plan from before is in the
// file, a reminder to revisit it first.
type Reminder struct {
	injection.Tracker
	m *Mode

	mu        sync.Mutex
	wasActive bool // guarded by mu
}

// Reminder returns m's plan-mode injector, for the per-step group of the
// injection manager (between the todo-list and permission-mode
// reminders).
func (m *Mode) Reminder() *Reminder { return &Reminder{m: m} }

// Inject implements injection.Injector.
func (r *Reminder) Inject(ctx context.Context, h injection.Host) error {
	text, err := r.next(h)
	if err != nil || text == "" {
		return err
	}
	return r.Append(ctx, h, VariantPlanMode, text)
}

// next is the reminder due now, "" for none.
func (r *Reminder) next(h injection.Host) (string, error) {
	s := r.m.State()
	r.mu.Lock()
	was := r.wasActive
	r.wasActive = s.Active
	r.mu.Unlock()
	switch {
	case !s.Active && !was:
		return "", nil
	case !s.Active:
		r.forget()
		return strings.TrimSpace(reminderExitText), nil
	case !was:
		r.forget()
		content, err := r.m.read(s.Path)
		if err != nil {
			return "", err
		}
		if strings.TrimSpace(content) != "" {
			return render("reentry", s.Path), nil
		}
	}
	at, ok := r.InjectedAt()
	if !ok {
		return render("full", s.Path), nil
	}
	msgs := h.History()
	assistants := 0
	for i := at + 1; i < len(msgs); i++ {
		switch m := msgs[i]; {
		case m.Role == llm.RoleUser && !m.Origin.Is(history.OriginInjection):
			return render("full", s.Path), nil
		case m.Role == llm.RoleAssistant:
			assistants++
		}
	}
	switch {
	case assistants >= fullRefreshTurns:
		return render("full", s.Path), nil
	case assistants >= dedupMinTurns:
		return render("sparse", s.Path), nil
	}
	return "", nil
}

// forget drops the position of the last reminder.
func (r *Reminder) forget() { r.Tracker.OnClear() }

// OnClear implements injection.Injector: after a clear the reminder starts
// over, from what plan mode is now.
func (r *Reminder) OnClear() {
	r.Tracker.OnClear()
	r.mu.Lock()
	r.wasActive = r.m.State().Active
	r.mu.Unlock()
}

func render(name, path string) string {
	var b strings.Builder
	if err := reminderTemplates()[name].Execute(&b, struct{ Path string }{path}); err != nil {
		return "" // the templates are fixed and tested
	}
	return strings.TrimSpace(b.String())
}
