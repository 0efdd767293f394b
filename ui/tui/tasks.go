package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/kimigo/kimigo/ui/render"
	"github.com/kimigo/kimigo/ui/term"
)

// Task is a background task as /tasks shows it.
type Task struct {
	ID          string
	Kind        string // "process", "agent", "question"
	Status      string // "running", "completed", "failed", "timed_out", "killed", "lost"
	Description string
	Started     time.Time
	Ended       time.Time // zero while it runs
}

// tasker is a session with background tasks (the seam of the background
// task manager): /tasks lists them, shows a task's output and stops one;
// the footer counts the running ones.
type tasker interface {
	Tasks() []Task
	TaskOutput(id string) (string, error)
	StopTask(ctx context.Context, id string) error
}

// statusLabel is how /tasks names a status (spec 06 §5.10).
func statusLabel(s string) string {
	if s == "timed_out" {
		return "timed out"
	}
	return s
}

// tasksBrowser is /tasks: the tasks, newest first; Enter shows a task's
// output, s stops it after a y, Tab shows all or only the running, r
// refreshes.
type tasksBrowser struct {
	baseOverlay
	t       tasker
	list    list
	active  bool // only the running ones
	confirm string
	gen     int
}

type taskConfirmDoneMsg struct{ gen int }

func cmdTasks(c *Ctx, _ string) tea.Cmd {
	t, ok := c.m.sess.(tasker)
	if !ok {
		c.Warn("This session has no background tasks to show.")
		return nil
	}
	b := &tasksBrowser{t: t}
	b.load(c.m)
	c.m.overlay = b
	return nil
}

func (b *tasksBrowser) load(m *Model) {
	var items []choice
	now := m.now()
	for _, t := range b.t.Tasks() {
		if b.active && t.Status != "running" {
			continue
		}
		d := statusLabel(t.Status)
		if !t.Started.IsZero() {
			end := now
			if !t.Ended.IsZero() {
				end = t.Ended
			}
			d += " · " + elapsed(end.Sub(t.Started))
		}
		items = append(items, choice{label: t.ID + "  " + t.Description, detail: d, value: t})
	}
	b.list.items = items
	if b.list.sel >= len(items) {
		b.list.sel = max(0, len(items)-1)
	}
}

func (b *tasksBrowser) key(m *Model, k tea.KeyPressMsg) tea.Cmd {
	s := k.String()
	if b.confirm != "" {
		id := b.confirm
		b.confirm = ""
		if s == "y" {
			t := b.t
			return m.call("stop task", func(ctx context.Context) error { return t.StopTask(ctx, id) })
		}
		return nil
	}
	switch s {
	case "esc", "q", "ctrl+c":
		m.overlay = nil
		return m.drainQueue()
	case "up", "k":
		b.list.move(-1)
	case "down", "j":
		b.list.move(1)
	case "tab":
		b.active = !b.active
		b.load(m)
	case "r":
		b.load(m)
	case "s":
		if c := b.list.selected(); c != nil {
			if t := c.value.(Task); t.Status == "running" {
				b.confirm = t.ID
				b.gen++
				return m.after(5*time.Second, taskConfirmDoneMsg{b.gen})
			}
		}
	case "enter", "o":
		if c := b.list.selected(); c != nil {
			t := c.value.(Task)
			out, err := b.t.TaskOutput(t.ID)
			if err != nil {
				out = err.Error()
			}
			m.openPagerWith("Output of "+t.ID, render.Wrap(out, m.width-2))
		}
	}
	return nil
}

func (b *tasksBrowser) message(m *Model, msg tea.Msg) (tea.Cmd, bool) {
	if d, ok := msg.(taskConfirmDoneMsg); ok {
		if d.gen == b.gen {
			b.confirm = ""
		}
		return nil, true
	}
	return nil, false
}

func (b *tasksBrowser) lines(m *Model) ([]string, *term.Cursor) {
	t := m.theme
	title := "Background tasks"
	if b.active {
		title += " (running)"
	}
	out := []string{panelRule(t, m.width), t.Bold.Render(title)}
	if len(b.list.items) == 0 {
		out = append(out, t.Dim.Render("  No tasks."))
	} else {
		out = append(out, b.list.render(t, m.width, pickerRows, false)...)
	}
	hint := "  ↑↓ choose · enter output · s stop · tab all/running · r refresh · esc close"
	if b.confirm != "" {
		hint = fmt.Sprintf("  Stop %s? y to stop, any other key keeps it", b.confirm)
	}
	return append(out, t.Dim.Render(render.Truncate(hint, m.width-1))), nil
}

// tasksBadge is the footer's count of running tasks and child agents.
func (m *Model) tasksBadge() string {
	var procs, agents int
	if t, ok := m.sess.(tasker); ok {
		for _, task := range t.Tasks() {
			if task.Status != "running" {
				continue
			}
			if task.Kind == "agent" {
				agents++
			} else {
				procs++
			}
		}
	}
	// A background child is a task and runs turns; a foreground one only
	// runs turns: the larger count covers both without counting one twice.
	agents = max(agents, len(m.children))
	var parts []string
	if procs > 0 {
		parts = append(parts, fmt.Sprintf("[%d %s running]", procs, plural(procs, "task", "tasks")))
	}
	if agents > 0 {
		parts = append(parts, fmt.Sprintf("[%d %s running]", agents, plural(agents, "agent", "agents")))
	}
	return strings.Join(parts, " ")
}
