package tui

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/kimigo/kimigo/session"
	"github.com/kimigo/kimigo/ui/render"
)

// Opened is a session Options.Open opened, with what a resume shows.
type Opened struct {
	Session Session
	Replay  []session.TranscriptEntry
	Resumed bool
	Notices []Notice
	// Model is the session's model alias; Effort and Thinking its
	// thinking, as Options has them.
	Model, Effort string
	Thinking      bool
}

// switchedMsg reports a session switch: the new session, or why it
// failed (the old one stays).
type switchedMsg struct {
	o   Opened
	err error
	id  string
	// reopened is the notice of a session closed and opened again
	// (/reload, /add-dir): the old one is closed already and its
	// conversation is on screen.
	reopened string
}

// switchTo opens session id ("" for a new one) and, once it is open,
// closes the one shown.
func (m *Model) switchTo(id string) tea.Cmd {
	if m.o.Open == nil {
		m.notice(render.Warning, "Switching sessions is not available here.")
		return nil
	}
	open, ctx := m.o.Open, m.ctx
	return func() tea.Msg {
		o, err := open(ctx, id)
		return switchedMsg{o: o, err: err, id: id}
	}
}

func (m *Model) switched(msg switchedMsg) tea.Cmd {
	m.urgent = true
	if msg.err != nil {
		m.notice(render.Error, msg.err.Error())
		if m.sess == nil {
			return m.quit() // the start-up picker had nothing to fall back on
		}
		return nil
	}
	old := m.sess
	m.sess = msg.o.Session
	m.live, m.byID, m.turn, m.todos, m.queue, m.expand = nil, map[string]*item{}, nil, nil, nil, nil
	m.prompts = nil
	m.side, m.children = nil, nil // the old session closes its side conversations
	m.suspended = nil
	m.content = msg.o.Resumed
	if msg.o.Model != "" {
		m.model, m.effort, m.thinking = msg.o.Model, msg.o.Effort, msg.o.Thinking
	}
	m.status = m.sess.Status()
	switch {
	case msg.reopened != "":
		m.notice(render.Success, msg.reopened)
	case msg.o.Resumed:
		m.notice(render.Info, "Resumed session "+m.sess.ID()+".")
	default:
		m.notice(render.Info, "Started a new session.")
	}
	for _, n := range msg.o.Notices {
		l := render.Info
		if n.Warning {
			l = render.Warning
		}
		m.notice(l, n.Text)
	}
	if msg.reopened == "" {
		m.replay(msg.o.Replay)
	}
	m.touch()
	cmds := []tea.Cmd{m.subscribe()}
	if old != nil && msg.reopened == "" {
		cmds = append(cmds, func() tea.Msg {
			ctx, cancel := context.WithTimeout(context.WithoutCancel(m.ctx), 10*time.Second)
			defer cancel()
			if err := old.Close(ctx); err != nil {
				return callDoneMsg{label: "close", err: err}
			}
			return nil
		})
	}
	return tea.Batch(cmds...)
}

// openSessionPicker lists the sessions of the work dir (Ctrl-A: of every
// directory) to resume one (spec 06 §5.10). At start-up, closing it ends
// the program.
func (m *Model) openSessionPicker(startup bool) tea.Cmd {
	if m.o.Store == nil || m.o.Open == nil {
		m.notice(render.Warning, "The session picker is not available here.")
		if startup {
			return m.quit()
		}
		return nil
	}
	all := false
	p := newPicker("Sessions", nil)
	p.filter = true
	p.empty = "No sessions found."
	p.hint = "↑↓ choose · enter resume · ctrl+a all directories · esc close"
	load := func() {
		opts := session.ListOptions{}
		if !all {
			opts.WorkDir = m.o.WorkDir
		}
		sums, err := m.o.Store.List(opts)
		if err != nil {
			p.empty = "Cannot list the sessions: " + err.Error()
		}
		var items []choice
		now := m.now()
		for _, s := range sums {
			current := m.sess != nil && s.ID == m.sess.ID()
			if current && !m.content {
				continue
			}
			detail := ago(now.Sub(s.UpdatedAt))
			if all {
				detail += " · " + render.ShortPath(s.WorkDir, m.o.UserHome)
			}
			items = append(items, choice{label: label(s), detail: detail, current: current, value: s})
		}
		p.title = "Sessions"
		if all {
			p.title = "All sessions"
		}
		p.setItems(items)
	}
	load()
	p.keys = func(m *Model, p *picker, k tea.KeyPressMsg) (tea.Cmd, bool) {
		if k.String() == "ctrl+a" {
			all = !all
			load()
			return nil, true
		}
		return nil, false
	}
	p.choose = func(m *Model, c choice) tea.Cmd {
		s := c.value.(session.Summary)
		if m.sess != nil && s.ID == m.sess.ID() {
			return nil
		}
		if !session.SameWorkDir(s.WorkDir, m.o.WorkDir) {
			m.notice(render.Warning, fmt.Sprintf("Session %q was created under a different directory. To resume it:\n  cd %q && kimigo -r %s",
				s.ID, s.WorkDir, s.ID))
			if startup && m.sess == nil {
				return m.quit()
			}
			return nil
		}
		return m.switchTo(s.ID)
	}
	if startup {
		p.close = func(m *Model) tea.Cmd { return m.quit() }
	}
	m.overlay = p
	m.touch()
	return nil
}

// label is what the picker shows for a session: its title, else its last
// prompt, else its id.
func label(s session.Summary) string {
	for _, t := range []string{s.Title, s.LastPrompt} {
		if t != "" && t != "New Session" {
			return t
		}
	}
	return s.ID
}

// ago is a relative time: just now, 5m ago, 3h ago, 2d ago.
func ago(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}

// openUndo opens the undo selector: the recent prompts, newest first.
func (m *Model) openUndo() tea.Cmd {
	if _, ok := m.sess.(undoer); !ok {
		m.notice(render.Warning, "This session cannot withdraw prompts.")
		return nil
	}
	if len(m.prompts) == 0 {
		m.notice(render.Info, "There is no prompt to withdraw.")
		return nil
	}
	var items []choice
	for i, p := range slices.Backward(m.prompts) {
		n := len(m.prompts) - i
		items = append(items, choice{label: render.Truncate(firstLine(p), m.width-16), detail: fmt.Sprintf("withdraws %d", n), value: n})
	}
	p := newPicker("Withdraw prompts (the files stay as they are)", items)
	p.choose = func(m *Model, c choice) tea.Cmd { return m.undo(c.value.(int)) }
	m.overlay = p
	return nil
}

// undo withdraws the last n prompts and puts the oldest of them back in
// the editor.
func (m *Model) undo(n int) tea.Cmd {
	u, ok := m.sess.(undoer)
	if !ok {
		m.notice(render.Warning, "This session cannot withdraw prompts.")
		return nil
	}
	var back string
	if n <= len(m.prompts) {
		back = m.prompts[len(m.prompts)-n]
	}
	return m.calls.Run(func(ctx context.Context) tea.Msg {
		return undoneMsg{n: n, text: back, err: u.Undo(ctx, n)}
	})
}

type undoneMsg struct {
	n    int
	text string
	err  error
}

func firstLine(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			return s[:i] + " …"
		}
	}
	return s
}

// exportZip saves the session's debug ZIP in the work dir.
func (m *Model) exportZip() tea.Cmd {
	if m.o.Store == nil {
		m.notice(render.Warning, "Exporting is not available here.")
		return nil
	}
	store, id, dir := m.o.Store, m.sess.ID(), m.o.WorkDir
	now := m.now()
	return func() tea.Msg {
		sum, err := store.Find(id, dir)
		if err != nil {
			return callDoneMsg{label: "export", err: err}
		}
		out := filepath.Join(dir, session.DefaultExportName(id, now))
		if err := store.ExportFile(context.Background(), sum, out, session.ExportOptions{}); err != nil {
			return callDoneMsg{label: "export", err: err}
		}
		return exportedMsg{path: out}
	}
}

type exportedMsg struct{ path string }
