package tui

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/ui/render"
	"github.com/kimigo/kimigo/ui/term"
)

// Spinner frames (spec 06 §5.6.2, §5.7).
var (
	brailleFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}
	moonFrames    = []string{"🌑", "🌒", "🌓", "🌔", "🌕", "🌖", "🌗", "🌘"}
)

func brailleFrame(d time.Duration) string {
	return brailleFrames[int(d/(80*time.Millisecond))%len(brailleFrames)]
}

func moonFrame(d time.Duration) string {
	return moonFrames[int(d/(120*time.Millisecond))%len(moonFrames)]
}

// editorRows caps the editor's height.
func (m *Model) editorRows() int { return max(3, min(10, m.height/3)) }

// View is the live region as a tea.View (the program draws Frame itself).
func (m *Model) View() tea.View {
	f := m.Frame()
	v := tea.NewView(strings.Join(f.Lines, "\n"))
	if f.Cursor != nil {
		v.Cursor = tea.NewCursor(f.Cursor.X, f.Cursor.Y)
	}
	return v
}

// Frame renders the live region, top to bottom: what the running turn
// has not printed yet, the activity line and the children a rate limit
// holds back, the todo panel, the queue,
// the completion menu, the editor or the open panel, and the footer.
// Only this region is drawn on each frame; the work is proportional to
// it, never to the transcript.
func (m *Model) Frame() term.Frame {
	if m.framed {
		return m.frame
	}
	var lines []string
	var cur *term.Cursor
	chrome := m.chrome()
	room := max(m.height-chrome-1, 3)

	side := m.sideLines(max(room/2, 4))
	room = max(room-len(side), 3)
	var live []string
	if m.compact != nil {
		live = append(live, "", m.theme.Dim.Render(brailleFrame(m.now().Sub(m.compact.started))+" Compacting the conversation…"))
	}
	for _, it := range m.live {
		l := m.liveLines(it)
		if len(l) > 0 {
			live = append(live, "")
			live = append(live, l...)
		}
	}
	if m.shell != nil {
		live = append(live, "")
		live = append(live, m.shell.lines(m)...)
	}
	if len(live) > room {
		live = live[len(live)-room:]
	}
	lines = append(lines, live...)
	lines = append(lines, side...)

	if m.overlay == nil {
		lines = append(lines, m.activity()...)
		lines = append(lines, m.suspendedLines()...)
	}
	lines = append(lines, render.TodoPanel(m.theme, m.todos, m.width, m.todoAll)...)
	lines = append(lines, m.queueLines()...)
	if m.overlay != nil {
		ol, oc := m.overlay.lines(m)
		if oc != nil {
			cur = &term.Cursor{X: oc.X, Y: len(lines) + oc.Y}
		}
		lines = append(lines, ol...)
	} else {
		if m.menu != nil {
			lines = append(lines, m.menu.lines(m)...)
		}
		el, ec := m.editorLines()
		cur = &term.Cursor{X: ec.X, Y: len(lines) + ec.Y}
		lines = append(lines, el...)
	}
	f := render.FooterLines(m.theme, m.footer(), m.width)
	lines = append(lines, f[0], f[1])
	m.frame = term.Frame{Lines: lines, Cursor: cur}
	m.framed = true
	return m.frame
}

// chrome estimates the rows below the live items: activity, suspended
// children, todo, queue, editor and footer.
func (m *Model) chrome() int {
	n := 2 + 1 + 2 + min(m.ed.Lines(), m.editorRows()) + min(len(m.suspended), maxSuspendedLines+1)
	if len(m.todos) > 0 {
		n += 8
	}
	return n + len(m.queue)
}

// editorLines renders the editor: a rule, the prompt and the text, a
// rule; a shell command gets the shell colour and a "!" prompt.
func (m *Model) editorLines() ([]string, term.Cursor) {
	t, w := m.theme, m.width
	border, prompt := t.Border, t.Primary.Render("> ")
	if m.ed.Shell {
		border, prompt = t.Shell, t.Shell.Bold(true).Render("! ")
	}
	rule := border.Render(strings.Repeat("─", max(w-1, 1)))
	out := []string{rule}
	rows, x, y := m.ed.View(max(w-3, 4), m.editorRows())
	if m.ed.Empty() {
		ph := "Type a message · / commands · @ files · ! shell"
		if m.ed.Shell {
			ph = "Type a shell command · esc leaves shell mode"
		} else if m.side != nil {
			ph = "Type a message · esc dismisses the side answer"
		} else if m.busy() {
			ph = "Type a message to queue it · esc interrupts"
		}
		rows = []string{t.Dim.Render(render.Truncate(ph, w-3))}
	}
	for i, r := range rows {
		if i == 0 {
			out = append(out, prompt+r)
		} else {
			out = append(out, "  "+r)
		}
	}
	out = append(out, rule)
	return out, term.Cursor{X: 2 + x, Y: 1 + y}
}

// activity renders the activity pane (spec 06 §5.7): while a turn runs,
// a spinner, what happens, the elapsed time and a tip; idle, one blank
// row so the screen does not jump.
func (m *Model) activity() []string {
	if m.compact != nil {
		return []string{""}
	}
	if o := cmp.Or(m.opening, m.reopening); o != nil {
		d := m.now().Sub(o.started)
		return []string{m.theme.Dim.Render(brailleFrame(d) + " Opening the session…")}
	}
	if m.shell != nil {
		return []string{m.theme.Dim.Render(render.Truncate(moonFrame(m.now().Sub(m.shell.started))+
			" Running your command · "+elapsed(m.now().Sub(m.shell.started))+" · ctrl+c cancels", m.width-1))}
	}
	tr := m.turn
	if tr == nil {
		return []string{""}
	}
	d := m.now().Sub(tr.started)
	var spin, label string
	switch tr.phase {
	case phaseThinking:
		return []string{""}
	case phaseComposing:
		spin, label = brailleFrame(d), "working..."
	case phaseTool:
		spin, label = moonFrame(d), tr.tool
	default:
		spin, label = moonFrame(d), "Waiting for the model"
	}
	if tr.retry != "" {
		label = tr.retry
	}
	line := spin + " " + label + " · " + elapsed(d)
	if m.tip != "" {
		line += " · Tip: " + m.tip
	}
	out := []string{m.theme.Dim.Render(render.Truncate(line, m.width-1))}
	if tr.detail != "" {
		out = append(out, m.theme.Dim.Render(render.Truncate("  "+tr.detail, m.width-1)))
	}
	return out
}

// elapsed formats a duration for the activity line: 7s, 2m05s, 1h03m.
func elapsed(d time.Duration) string {
	s := int(d.Seconds())
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	return fmt.Sprintf("%dh%02dm", s/3600, s/60%60)
}

// footer assembles what the footer shows.
func (m *Model) footer() render.Footer {
	f := render.Footer{Items: m.o.TUI.StatusItems, Model: m.modelDisplay(), Effort: m.effort, Thinking: m.thinking,
		Cwd: m.o.WorkDir, Home: m.o.UserHome, Git: m.git, Hint: m.hint, Tasks: m.tasksBadge(),
		ContextUsed: m.status.ContextTokens, ContextMax: m.status.MaxContextTokens, Usage: m.status.ContextUsage}
	if u := m.status.Usage; u != nil && u.Total != nil {
		f.SessionIn, f.SessionOut = u.Total.InputTotal(), u.Total.Output
	}
	switch m.status.Permission {
	case event.ModeAuto, event.ModeYolo:
		f.Modes = append(f.Modes, string(m.status.Permission))
	}
	if p, ok := m.sess.(planner); ok && p.PlanMode() {
		f.Modes = append(f.Modes, "plan")
	}
	if sw, ok := m.sess.(swarmer); ok && sw.SwarmMode() {
		f.Modes = append(f.Modes, "swarm")
	}
	return f
}
