package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"github.com/kimigo/kimigo/ui/render"
	"github.com/kimigo/kimigo/ui/term"
)

// pager shows long content in the live region, scrollable: /help, the
// expanded output of the last turns (Ctrl-O) and an approval's full
// preview (Ctrl-E). Closing it returns to what was open before.
type pager struct {
	baseOverlay
	title string
	vp    viewport.Model
	back  overlay
}

// openPagerWith opens a pager on lines.
func (m *Model) openPagerWith(title string, lines []string) {
	vp := viewport.New(viewport.WithWidth(max(m.width-1, 10)), viewport.WithHeight(max(m.height-4, 3)))
	vp.SetContentLines(lines)
	m.overlay = &pager{title: title, vp: vp, back: m.overlay}
	m.menu = nil
	m.touch()
}

func (p *pager) modal() bool { return p.back != nil && p.back.modal() }

func (p *pager) key(m *Model, k tea.KeyPressMsg) tea.Cmd {
	switch k.String() {
	case "esc", "q", "enter", "ctrl+o", "ctrl+e", "ctrl+c":
		m.overlay = p.back
		m.touch()
		if p.back == nil {
			return m.drainQueue()
		}
		return nil
	case "up", "k":
		p.vp.ScrollUp(1)
	case "down", "j":
		p.vp.ScrollDown(1)
	case "pgup", "b":
		p.vp.ScrollUp(10)
	case "pgdown", "space", "f":
		p.vp.ScrollDown(10)
	case "home", "g":
		p.vp.GotoTop()
	case "end", "G":
		p.vp.GotoBottom()
	}
	return nil
}

func (p *pager) lines(m *Model) ([]string, *term.Cursor) {
	p.vp.SetWidth(max(m.width-1, 10))
	p.vp.SetHeight(max(m.height-4, 3))
	t := m.theme
	out := []string{panelRule(t, m.width), t.Bold.Render(p.title)}
	out = append(out, strings.Split(p.vp.View(), "\n")...)
	pos := fmt.Sprintf("  %d%% · ↑↓ scroll · pgup/pgdn page · esc close", int(p.vp.ScrollPercent()*100))
	return append(out, t.Dim.Render(render.Truncate(pos, m.width-1))), nil
}

// openPager shows the last three turns' tool output, thinking and
// compaction summaries in full (Ctrl-O). Printed scrollback cannot be
// redrawn, so the expanded view opens below it; the approval panel's
// Ctrl-E shows its request's display in full.
func (m *Model) openPager() {
	if p, ok := m.overlay.(*approvalPanel); ok {
		m.openPagerWith("Full preview", approvalFull(m.theme, p.display(), m.width, m.o.WorkDir))
		return
	}
	var lines []string
	for _, e := range m.expand {
		lines = append(lines, "")
		switch e.kind {
		case itemCompaction:
			lines = append(lines, m.theme.Bold.Render("Compaction summary"))
			lines = append(lines, render.Wrap(e.text, m.width-3)...)
		case itemThinking:
			lines = append(lines, render.Thinking(m.theme, e.text, m.width-1, true)...)
		default:
			lines = append(lines, render.ToolCall(m.theme, e.tool, m.width-1, true)...)
		}
	}
	for _, it := range m.live {
		lines = append(lines, "")
		lines = append(lines, m.liveLines(it)...)
	}
	if len(lines) == 0 {
		m.notice(render.Info, "Nothing to expand yet.")
		return
	}
	m.openPagerWith("The last turns in full", lines)
}
