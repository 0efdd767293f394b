package tui

import (
	"fmt"

	"github.com/kimigo/kimigo/ui/render"
)

// keyHelp lists the keyboard shortcuts (spec 06 §5.3.1).
var keyHelp = [][2]string{
	{"enter", "send (queued while a turn runs)"},
	{"ctrl+j, alt+enter", "new line"},
	{"ctrl+s", "send the draft and the queue into the running turn"},
	{"esc", "dismiss the side answer (/btw); interrupt; twice when idle: withdraw prompts"},
	{"ctrl+c", "clear, interrupt; twice: exit"},
	{"ctrl+d", "twice on an empty editor: exit"},
	{"↑ ↓", "history of this directory"},
	{"/", "commands"},
	{"@", "complete a file path"},
	{"!", "shell command (on an empty editor)"},
	{"ctrl+o", "the last turns in full"},
	{"ctrl+t", "expand the todo list"},
	{"ctrl+g", "edit the draft in your editor (/editor)"},
	{"ctrl+-", "undo an edit"},
	{"shift+tab", "plan mode"},
}

// openHelp shows the shortcuts and every command in the pager.
func (m *Model) openHelp() {
	t := m.theme
	lines := []string{t.Bold.Render("Keys")}
	for _, k := range keyHelp {
		lines = append(lines, fmt.Sprintf("  %-20s %s", k[0], t.Dim.Render(k[1])))
	}
	lines = append(lines, "", t.Bold.Render("Commands"))
	for _, c := range m.reg.Commands() {
		if !m.offered(c) {
			continue
		}
		name := "/" + c.Name
		if c.Args != "" {
			name += " " + c.Args
		}
		help := c.Help
		if len(c.Aliases) > 0 {
			for i, a := range c.Aliases {
				if i == 0 {
					help += " (also"
				}
				help += " /" + a
			}
			help += ")"
		}
		if c.Idle {
			help += " · not while busy"
		}
		lines = append(lines, render.Truncate(fmt.Sprintf("  %-26s %s", name, t.Dim.Render(help)), m.width-2))
	}
	m.openPagerWith("Help", lines)
}
