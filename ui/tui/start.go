package tui

import (
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/kimigo/kimigo/ui/render"
)

// Init starts reading the session's events, shows the banner, the
// notices and a resumed conversation, and sends the start-up prompt.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{readGit(m.o.WorkDir)}
	if m.sess == nil && m.o.Start != nil {
		// Draw at once; the session opens meanwhile, and what the user
		// types before it is open waits in the queue.
		m.opening = &opening{started: m.now()}
		if p := strings.TrimSpace(m.o.Prompt); p != "" {
			m.queue = append(m.queue, queued{text: p})
		}
		if len(m.o.Ask) > 0 {
			m.ask(0)
			return tea.Batch(cmds...)
		}
		return tea.Batch(append(cmds, m.start(), m.animate())...)
	}
	m.welcome()
	m.replay(m.o.Replay)
	if m.sess != nil {
		m.status = m.sess.Status()
		cmds = append(cmds, m.subscribe())
	}
	if m.o.Picker {
		cmds = append(cmds, m.openSessionPicker(true))
	}
	if p := strings.TrimSpace(m.o.Prompt); p != "" && m.sess != nil {
		cmds = append(cmds, m.submit(p, false))
	}
	return tea.Batch(cmds...)
}

// start opens the first session in the background.
func (m *Model) start() tea.Cmd {
	start, ctx := m.o.Start, m.ctx
	return func() tea.Msg {
		o, err := start(ctx)
		return startedMsg{o: o, err: err}
	}
}

// ask puts question i of Options.Ask, then the next, then opens the
// session.
func (m *Model) ask(i int) {
	q := m.o.Ask[i]
	var items []choice
	for k, c := range q.Choices {
		items = append(items, choice{label: c, value: k})
	}
	p := newPicker(q.Title, items)
	p.detail = q.Detail
	if q.Default > 0 && q.Default < len(p.list.items) {
		p.list.sel = q.Default
	}
	answer := func(m *Model, k int) tea.Cmd {
		if err := q.Answer(k); err != nil {
			m.startErr = err
			return m.quit()
		}
		if i+1 < len(m.o.Ask) {
			m.ask(i + 1)
			return nil
		}
		return tea.Batch(m.start(), m.animate())
	}
	p.choose = func(m *Model, c choice) tea.Cmd { return answer(m, c.value.(int)) }
	p.close = func(m *Model) tea.Cmd { return answer(m, -1) }
	m.overlay = p
	m.touch()
}

// welcome prints the banner and the start-up notices.
func (m *Model) welcome() {
	m.print(render.WelcomeBanner(m.theme, render.Welcome{Version: m.o.Version, WorkDir: m.o.WorkDir,
		Home: m.o.UserHome, Model: m.modelDisplay(), Resumed: m.resumedLabel()}, m.width))
	for _, n := range m.o.Notices {
		l := render.Info
		if n.Warning {
			l = render.Warning
		}
		m.notice(l, n.Text)
	}
}

// opening is the first session opening in the background.
type opening struct{ started time.Time }

// startedMsg reports the first session open, or why it failed.
type startedMsg struct {
	o   Opened
	err error
}

// startedSession shows the session that opened, or ends the program
// with the error that stopped it.
func (m *Model) startedSession(msg startedMsg) tea.Cmd {
	m.opening = nil
	m.urgent = true
	m.touch()
	if msg.err != nil {
		m.startErr = msg.err
		return m.quit()
	}
	o := msg.o
	m.sess, m.content = o.Session, o.Resumed
	if o.Model != "" {
		m.model, m.effort, m.thinking = o.Model, o.Effort, o.Thinking
	}
	m.o.Resumed = o.Resumed
	m.o.Notices = append(m.o.Notices, o.Notices...)
	m.welcome()
	m.replay(o.Replay)
	m.status = m.sess.Status()
	return tea.Batch(m.subscribe(), m.drainQueue())
}

// StartError is why the first session did not open; Run returns it.
func (m *Model) StartError() error { return m.startErr }

func (m *Model) resumedLabel() string {
	if m.o.Resumed && m.sess != nil {
		return m.sess.ID()
	}
	return ""
}
