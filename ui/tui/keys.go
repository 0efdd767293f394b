package tui

import (
	"context"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/kimigo/kimigo/ui/render"
)

// key handles a key press: the open panel's first, then the completion
// menu's, then the interface's shortcuts, then the editor's.
func (m *Model) key(k tea.KeyPressMsg) tea.Cmd {
	if m.overlay != nil {
		return m.overlay.key(m, k)
	}
	s := k.String()
	if s != "esc" {
		m.ladder.OtherKey()
	}
	if m.menu != nil {
		if cmd, ok := m.menuKey(k); ok {
			return cmd
		}
	}
	switch s {
	case "ctrl+c":
		return m.ladderAction(m.ladder.CtrlC(m.busyState()))
	case "ctrl+d":
		return m.ladderAction(m.ladder.CtrlD(m.busyState()))
	case "esc":
		if m.ed.Shell && m.ed.Empty() {
			m.ed.Shell = false
			return nil
		}
		if m.side != nil { // the side answer goes first; the next esc reaches the turn
			return m.dismissSide()
		}
		return m.ladderAction(m.ladder.Esc(m.busyState()))
	case "enter":
		return m.enter()
	case "ctrl+s":
		return m.steer()
	case "ctrl+o":
		m.openPager()
		return nil
	case "ctrl+t":
		if len(m.todos) > 5 {
			m.todoAll = !m.todoAll
		}
		return nil
	case "ctrl+g":
		return m.externalEditor()
	case "shift+tab":
		return m.togglePlan()
	case "ctrl+b":
		d, ok := m.sess.(detacher)
		if !ok || m.turn == nil || m.turn.phase != phaseTool {
			return nil
		}
		return m.call("background", func(ctx context.Context) error { return d.Detach(ctx) })
	case "up":
		if m.ed.Empty() && m.turn != nil && m.recallQueued() {
			return nil
		}
		if m.ed.Empty() || m.ed.OnFirstRow() {
			if t, ok := m.hist.Prev(m.ed.Value(), m.ed.Shell); ok {
				m.ed.SetValue(t)
				return nil
			}
		}
	case "down":
		if m.hist.Browsing() && (m.ed.Empty() || m.ed.OnLastRow()) {
			if t, ok := m.hist.Next(m.ed.Shell); ok {
				m.ed.SetValue(t)
				return nil
			}
		}
	case "backspace":
		if m.ed.Shell && m.ed.Empty() {
			m.ed.Shell = false
			return nil
		}
	case "!":
		if m.ed.Empty() && !m.ed.Shell {
			m.ed.Shell = true
			return nil
		}
	}
	if m.ed.HandleKey(k) {
		if s != "up" && s != "down" {
			m.hist.Stop()
		}
		return m.refreshMenu()
	}
	return nil
}

// busyState is what the ladder needs to know.
func (m *Model) busyState() Busy {
	return Busy{Compacting: m.compact != nil, Streaming: m.turn != nil, Shell: m.shell != nil,
		EditorEmpty: m.ed.Empty()}
}

// ladderAction carries out what the ladder decided.
func (m *Model) ladderAction(a Action) tea.Cmd {
	switch a {
	case ClearEditor:
		m.ed.SetValue("")
		m.menu = nil
	case CancelCompaction:
		m.cancelCompaction()
	case CancelTurn:
		return m.cancelTurn()
	case ArmCtrlC:
		m.ed.SetValue("")
		m.menu = nil
		return m.setHint("Press Ctrl+C again to exit", ExitConfirmWindow)
	case ArmCtrlD:
		return m.setHint("Press Ctrl+D again to exit", ExitConfirmWindow)
	case Disarm:
		m.hint = ""
	case Exit:
		return m.quit()
	case OpenUndo:
		return m.openUndo()
	case DeleteForward:
		m.ed.DeleteForward()
	}
	return nil
}

// cancelTurn cancels the running turn, or the running shell command.
func (m *Model) cancelTurn() tea.Cmd {
	if m.shell != nil {
		m.shell.cancel()
		return nil
	}
	if m.turn == nil {
		return nil
	}
	m.turn.cancelling = true
	s := m.sess
	return m.call("cancel", func(ctx context.Context) error { return s.Cancel(ctx, nil) })
}

// enter submits the editor's text.
func (m *Model) enter() tea.Cmd {
	text := m.ed.Value()
	shell := m.ed.Shell
	if strings.TrimSpace(text) == "" {
		return nil
	}
	if !shell {
		if name, args, ok := ParseCommand(text); ok {
			if c := m.reg.Lookup(name); c != nil {
				if why := m.refusal(c, name, args); why != "" {
					m.notice(render.Warning, why)
					return nil // the text stays for later
				}
			}
		}
	}
	if err := m.hist.Add(text, shell); err != nil {
		m.log.Warn("input history", "err", err)
	}
	m.ed.SetValue("")
	m.ed.Shell = false
	m.menu = nil
	if shell && m.busy() {
		m.queue = append(m.queue, queued{text: text, shell: true})
		return nil
	}
	return m.submit(text, shell)
}

// paste inserts pasted text into the panel that takes text, or the
// editor, verbatim: its newlines do not submit.
func (m *Model) paste(s string) tea.Cmd {
	if m.overlay != nil {
		return m.overlay.paste(m, s)
	}
	m.ed.Insert(s)
	m.hist.Stop()
	return m.refreshMenu()
}
