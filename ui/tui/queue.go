package tui

import (
	"context"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/ui/render"
)

// queued is a message typed while the session was busy (spec 06
// §5.3.4): a prompt, or a shell command (which steering leaves alone).
type queued struct {
	text  string
	shell bool
}

// drainQueue sends the first queued message once the session is idle.
func (m *Model) drainQueue() tea.Cmd {
	if m.busy() || len(m.queue) == 0 || m.overlay != nil && m.overlay.modal() {
		return nil
	}
	q := m.queue[0]
	m.queue = m.queue[1:]
	m.touch()
	return m.submit(q.text, q.shell)
}

// steer injects the queued prompts and the draft into the running turn
// at its next step (Ctrl-S); queued shell commands stay queued.
func (m *Model) steer() tea.Cmd {
	if m.turn == nil {
		return nil
	}
	var parts []string
	rest := m.queue[:0]
	for _, q := range m.queue {
		if q.shell { // shell commands stay queued
			rest = append(rest, q)
			continue
		}
		parts = append(parts, q.text)
	}
	m.queue = rest
	if d := strings.TrimSpace(m.ed.Value()); d != "" && !m.ed.Shell {
		parts = append(parts, d)
		_ = m.hist.Add(d, false)
		m.ed.SetValue("")
	}
	if len(parts) == 0 {
		return nil
	}
	var cmds []tea.Cmd
	s := m.sess
	for _, p := range parts {
		m.print(render.UserMessage(m.theme, p, m.width, false))
		input := []llm.ContentPart{{Type: llm.PartText, Text: p}}
		cmds = append(cmds, m.call("steer", func(ctx context.Context) error { return s.Steer(ctx, input) }))
	}
	return tea.Batch(cmds...)
}

// recallQueued takes the last queued message back into the editor (↑ on
// an empty editor while a turn runs).
func (m *Model) recallQueued() bool {
	n := len(m.queue)
	if n == 0 {
		return false
	}
	q := m.queue[n-1]
	m.queue = m.queue[:n-1]
	m.ed.Shell = q.shell
	m.ed.SetValue(q.text)
	return true
}

// queueLines renders the queue pane.
func (m *Model) queueLines() []string {
	if len(m.queue) == 0 {
		return nil
	}
	var out []string
	for i, q := range m.queue {
		if i == 3 && len(m.queue) > 4 {
			out = append(out, m.theme.Dim.Render(render.Indent+"… and more queued"))
			break
		}
		text, _, _ := strings.Cut(strings.TrimSpace(q.text), "\n")
		mark := "↳ "
		if q.shell {
			mark = "↳ !"
		}
		out = append(out, m.theme.Dim.Render(render.Truncate(render.Indent+mark+text, m.width-2)))
	}
	return append(out, m.theme.Dim.Render(render.Indent+"queued · sent when the turn ends · ctrl+s sends now"))
}
