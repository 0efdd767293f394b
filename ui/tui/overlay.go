package tui

import (
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/kimigo/kimigo/ui/render"
	"github.com/kimigo/kimigo/ui/term"
)

// overlay is a panel that replaces the editor while it is open: the
// approval panel, the question dialog, a picker, help, the expanded view.
type overlay interface {
	// key handles a key; the panel closes itself through m.closeOverlay.
	key(m *Model, k tea.KeyPressMsg) tea.Cmd
	// paste takes pasted text (a panel with a text input).
	paste(m *Model, s string) tea.Cmd
	// message handles any other message; ok false leaves it alone.
	message(m *Model, msg tea.Msg) (tea.Cmd, bool)
	// lines renders the panel at the model's width, and where its cursor
	// is (nil hides it).
	lines(m *Model) ([]string, *term.Cursor)
	// modal says the session waits on the panel: queued messages wait too.
	modal() bool
}

// baseOverlay has no text input and waits on nothing.
type baseOverlay struct{}

func (baseOverlay) paste(*Model, string) tea.Cmd            { return nil }
func (baseOverlay) message(*Model, tea.Msg) (tea.Cmd, bool) { return nil, false }
func (baseOverlay) modal() bool                             { return false }

// newInput returns a one-line text input using the terminal's cursor.
func newInput(placeholder string) textinput.Model {
	in := textinput.New()
	in.Prompt = ""
	in.Placeholder = placeholder
	in.SetVirtualCursor(false)
	in.Focus()
	return in
}

// inputLine renders a text input at width and the cursor's column.
func inputLine(in *textinput.Model, prefix string, width int) (string, int) {
	in.SetWidth(max(width-render.Width(prefix)-2, 4))
	x := render.Width(prefix)
	if c := in.Cursor(); c != nil {
		x += c.X
	}
	return prefix + in.View(), x
}

// choice is one row of a list.
type choice struct {
	label   string
	detail  string // dim, after the label
	current bool
	value   any
}

// list is a vertical list with a selection that wraps around.
type list struct {
	items []choice
	sel   int
	top   int
}

// move moves the selection by d, wrapping around.
func (l *list) move(d int) {
	if n := len(l.items); n > 0 {
		l.sel = ((l.sel+d)%n + n) % n
	}
}

// selected is the selected item, nil for an empty list.
func (l *list) selected() *choice {
	if l.sel < 0 || l.sel >= len(l.items) {
		return nil
	}
	return &l.items[l.sel]
}

// render renders at most rows items around the selection, numbered when
// numbered.
func (l *list) render(t render.Theme, width, rows int, numbered bool) []string {
	if l.sel < l.top {
		l.top = l.sel
	}
	if l.sel >= l.top+rows {
		l.top = l.sel - rows + 1
	}
	var out []string
	for i := l.top; i < len(l.items) && i < l.top+rows; i++ {
		it := l.items[i]
		ptr := "  "
		if i == l.sel {
			ptr = t.Primary.Render(render.Pointer) + " "
		}
		label := it.label
		if numbered && i < 9 {
			label = string(rune('1'+i)) + " " + label
		}
		if i == l.sel {
			label = t.Primary.Bold(true).Render(label)
		}
		line := ptr + label
		if it.detail != "" {
			line += "  " + t.Dim.Render(it.detail)
		}
		if it.current {
			line += "  " + t.Dim.Render(render.CurrentMark)
		}
		out = append(out, render.Truncate(line, width-1))
	}
	return out
}

// panelRule is the line above a panel.
func panelRule(t render.Theme, width int) string {
	return t.Border.Render(strings.Repeat("─", max(width-1, 1)))
}
