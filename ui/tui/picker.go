package tui

import (
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/kimigo/kimigo/ui/render"
	"github.com/kimigo/kimigo/ui/term"
)

// pickerRows is how many rows a picker shows at once.
const pickerRows = 10

// picker is a titled list to choose from, optionally filtered by typing.
type picker struct {
	baseOverlay
	title  string
	detail string // a line under the title
	hint   string
	all    []choice // every item; list holds the ones the filter keeps
	list   list
	filter bool
	query  textinput.Model
	empty  string // shown when nothing is listed
	// choose is called with the chosen item; close when the picker closes
	// without a choice (nil: just close).
	choose func(m *Model, c choice) tea.Cmd
	close  func(m *Model) tea.Cmd
	// keys handles extra keys (the session picker's Ctrl-A); true when
	// it took the key.
	keys func(m *Model, p *picker, k tea.KeyPressMsg) (tea.Cmd, bool)
}

func newPicker(title string, items []choice) *picker {
	p := &picker{title: title, all: items, query: newInput("type to search"), empty: "Nothing to choose from."}
	p.apply()
	for i, it := range p.list.items {
		if it.current {
			p.list.sel = i
		}
	}
	return p
}

// setItems replaces the items, keeping the query.
func (p *picker) setItems(items []choice) {
	p.all = items
	p.apply()
}

// apply filters the items by the query (case-insensitive, every word).
func (p *picker) apply() {
	q := strings.Fields(strings.ToLower(p.query.Value()))
	p.list.items = p.list.items[:0]
	for _, it := range p.all {
		text := strings.ToLower(it.label + " " + it.detail)
		ok := true
		for _, w := range q {
			if !strings.Contains(text, w) {
				ok = false
				break
			}
		}
		if ok {
			p.list.items = append(p.list.items, it)
		}
	}
	if p.list.sel >= len(p.list.items) {
		p.list.sel = max(0, len(p.list.items)-1)
	}
}

func (p *picker) paste(m *Model, s string) tea.Cmd {
	if p.filter {
		p.query.SetValue(p.query.Value() + strings.ReplaceAll(s, "\n", " "))
		p.query.CursorEnd()
		p.apply()
	}
	return nil
}

func (p *picker) key(m *Model, k tea.KeyPressMsg) tea.Cmd {
	if p.keys != nil {
		if cmd, ok := p.keys(m, p, k); ok {
			return cmd
		}
	}
	switch s := k.String(); s {
	case "esc", "ctrl+c":
		if p.filter && p.query.Value() != "" && s == "esc" {
			p.query.SetValue("")
			p.apply()
			return nil
		}
		m.overlay = nil
		m.touch()
		if p.close != nil {
			return p.close(m)
		}
		return m.drainQueue()
	case "up", "ctrl+p":
		p.list.move(-1)
	case "down", "ctrl+n", "tab":
		p.list.move(1)
	case "pgup":
		p.list.move(-pickerRows)
	case "pgdown":
		p.list.move(pickerRows)
	case "enter":
		c := p.list.selected()
		if c == nil {
			return nil
		}
		m.overlay = nil
		m.touch()
		return tea.Batch(p.choose(m, *c), m.drainQueue())
	default:
		if !p.filter {
			if len(s) == 1 && s[0] >= '1' && s[0] <= '9' && int(s[0]-'1') < len(p.list.items) {
				p.list.sel = int(s[0] - '1')
				return p.key(m, tea.KeyPressMsg{Code: tea.KeyEnter})
			}
			return nil
		}
		var cmd tea.Cmd
		p.query, cmd = p.query.Update(k)
		p.apply()
		return cmd
	}
	return nil
}

func (p *picker) lines(m *Model) ([]string, *term.Cursor) {
	t, w := m.theme, m.width
	out := []string{panelRule(t, w), t.Bold.Render(p.title)}
	for _, l := range render.Wrap(p.detail, w-3) {
		if l != "" {
			out = append(out, "  "+l)
		}
	}
	var cur *term.Cursor
	if p.filter {
		line, x := inputLine(&p.query, "  search: ", w)
		out = append(out, line)
		cur = &term.Cursor{X: x, Y: len(out) - 1}
	}
	if len(p.list.items) == 0 {
		out = append(out, t.Dim.Render("  "+p.empty))
	} else {
		out = append(out, p.list.render(t, w, pickerRows, !p.filter)...)
	}
	hint := "  ↑↓ choose · enter confirm · esc close"
	if p.hint != "" {
		hint = "  " + p.hint
	}
	return append(out, t.Dim.Render(render.Truncate(hint, w-1))), cur
}
