package tui

import (
	"encoding/json"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/ui/render"
	"github.com/kimigo/kimigo/ui/term"
)

// approvalPreviewLines caps a command, a file's content or a diff in the
// panel (spec 06 §5.5).
const approvalPreviewLines = 10

// approvalChoice is one answer the panel offers.
type approvalChoice struct {
	label    string
	choice   event.Choice
	feedback bool // asks for a reason first
}

// approvalChoices are the panel's answers, in order (ERRATA 10: once,
// session, always, reject).
var approvalChoices = []approvalChoice{
	{"Approve once", event.ApproveOnce, false},
	{"Approve for this session", event.ApproveSession, false},
	{"Approve always (saved to config.toml)", event.ApproveAlways, false},
	{"Reject", event.Reject, false},
	{"Reject with feedback", event.Reject, true},
}

// approvalPanel asks whether a tool call may run (spec 06 §5.5).
type approvalPanel struct {
	req      event.ApprovalRequested
	sel      int
	feedback bool // the feedback input is focused
	input    textinput.Model
	answered bool
}

// openApproval opens the panel for a request, or queues it behind an
// open one.
func (m *Model) openApproval(e event.ApprovalRequested) tea.Cmd {
	if m.overlay != nil && m.overlay.modal() {
		m.pendingRequests = append(m.pendingRequests, e)
		return nil
	}
	m.overlay = &approvalPanel{req: e, input: newInput("why, and what to do instead")}
	m.menu = nil
	m.bell = true
	m.urgent = true
	m.touch()
	return nil
}

// closeRequest closes the panel or dialog of a request that is no
// longer open.
func (m *Model) closeRequest(id string) {
	switch o := m.overlay.(type) {
	case *approvalPanel:
		if o.req.RequestID == id {
			m.overlay = nil
		}
	case *questionDialog:
		if o.req.RequestID == id {
			m.overlay = nil
		}
	}
	kept := m.pendingRequests[:0]
	for _, r := range m.pendingRequests {
		if requestID(r) != id {
			kept = append(kept, r)
		}
	}
	m.pendingRequests = kept
	if m.overlay == nil {
		m.openPendingRequest()
	}
	m.urgent = true
	m.touch()
}

func requestID(e event.Event) string {
	switch r := e.(type) {
	case event.ApprovalRequested:
		return r.RequestID
	case event.QuestionRequested:
		return r.RequestID
	}
	return ""
}

// openPendingRequest opens the next request that waited.
func (m *Model) openPendingRequest() {
	if len(m.pendingRequests) == 0 {
		return
	}
	next := m.pendingRequests[0]
	m.pendingRequests = m.pendingRequests[1:]
	switch r := next.(type) {
	case event.ApprovalRequested:
		m.openApproval(r)
	case event.QuestionRequested:
		m.openQuestion(r)
	}
}

func (p *approvalPanel) modal() bool { return true }

func (p *approvalPanel) paste(m *Model, s string) tea.Cmd {
	if p.feedback {
		p.input.SetValue(p.input.Value() + strings.ReplaceAll(s, "\n", " "))
		p.input.CursorEnd()
	}
	return nil
}

func (p *approvalPanel) message(*Model, tea.Msg) (tea.Cmd, bool) { return nil, false }

func (p *approvalPanel) key(m *Model, k tea.KeyPressMsg) tea.Cmd {
	switch s := k.String(); s {
	case "esc", "ctrl+c", "ctrl+d":
		return p.answer(m, event.ApprovalAnswer{Choice: event.Reject})
	case "ctrl+o", "ctrl+e":
		m.openPager()
		return nil
	case "up":
		p.feedback = false
		p.sel = (p.sel + len(approvalChoices) - 1) % len(approvalChoices)
		return nil
	case "down", "tab":
		p.feedback = false
		p.sel = (p.sel + 1) % len(approvalChoices)
		return nil
	case "enter":
		c := approvalChoices[p.sel]
		if c.feedback && !p.feedback {
			p.feedback = true
			return nil
		}
		return p.answer(m, event.ApprovalAnswer{Choice: c.choice, Feedback: strings.TrimSpace(p.input.Value())})
	default:
		if p.feedback {
			var cmd tea.Cmd
			p.input, cmd = p.input.Update(k)
			return cmd
		}
		if len(s) == 1 && s[0] >= '1' && s[0] <= '0'+byte(len(approvalChoices)) {
			p.sel = int(s[0] - '1')
			if approvalChoices[p.sel].feedback {
				p.feedback = true
				return nil
			}
			return p.answer(m, event.ApprovalAnswer{Choice: approvalChoices[p.sel].choice})
		}
	}
	return nil
}

// answer sends the answer once and closes the panel.
func (p *approvalPanel) answer(m *Model, a event.ApprovalAnswer) tea.Cmd {
	if p.answered {
		return nil
	}
	p.answered = true
	m.overlay = nil
	m.openPendingRequest()
	m.touch()
	s, id := m.sess, p.req.RequestID
	if a.Choice == event.Reject && a.Feedback != "" {
		m.print(render.Status(m.theme, render.Warning, "↪ "+a.Feedback, m.width))
	}
	return tea.Batch(func() tea.Msg {
		if err := s.AnswerApproval(id, a); err != nil {
			return callDoneMsg{label: "approval", err: err}
		}
		return nil
	}, m.drainQueue())
}

func (p *approvalPanel) lines(m *Model) ([]string, *term.Cursor) {
	t, w := m.theme, m.width
	out := []string{panelRule(t, w)}
	title := t.Bold.Render(toolTitle(p.req.ToolName))
	if p.req.AgentID != "" && p.req.AgentID != mainAgent { // a subagent's call: say whose
		title = t.Warning.Bold(true).Render(p.req.AgentID) + " wants to use " + title
	}
	if p.req.Action != "" {
		title += t.Dim.Render(" · ") + p.req.Action
	}
	out = append(out, render.Truncate(title, w-1))
	out = append(out, approvalBody(t, p.req.Display, w, approvalPreviewLines, m.o.WorkDir)...)
	out = append(out, "")
	for i, c := range approvalChoices {
		ptr := "  "
		label := fmt.Sprintf("%d %s", i+1, c.label)
		if i == p.sel {
			ptr = t.Primary.Render(render.Pointer) + " "
			label = t.Primary.Bold(true).Render(label)
		}
		out = append(out, ptr+label)
	}
	var cur *term.Cursor
	if p.feedback {
		line, x := inputLine(&p.input, "  reason: ", w)
		out = append(out, line)
		cur = &term.Cursor{X: x, Y: len(out) - 1}
	}
	out = append(out, t.Dim.Render("  ↑↓ choose · enter confirm · esc reject · ctrl+e full preview"))
	return out, cur
}

// toolTitle names a tool for the panel: an MCP tool by its own name.
func toolTitle(name string) string {
	if server, tool, ok := render.MCPName(name); ok {
		return tool + " (MCP/" + server + ")"
	}
	return name
}

// approvalFull is the display without caps (Ctrl-E).
func approvalFull(t render.Theme, d loop.Display, w int, workDir string) []string {
	return approvalBody(t, d, w, 0, workDir)
}

// approvalBody renders what the call will do from its display, each part
// capped at limit lines (0: no cap).
func approvalBody(t render.Theme, d loop.Display, w, limit int, workDir string) []string {
	inner := max(w-4, 10)
	var out []string
	cap10 := func(lines []string) []string {
		if limit > 0 && len(lines) > limit {
			n := len(lines) - limit
			lines = append(lines[:limit:limit],
				t.Dim.Render(fmt.Sprintf("… %d more %s (ctrl+e to see all)", n, plural(n, "line", "lines"))))
		}
		return lines
	}
	switch d := d.(type) {
	case *loop.CommandDisplay:
		if label := Danger(d.Command); label != "" {
			out = append(out, "  "+t.Warning.Bold(true).Render("⚠ "+label))
		}
		for _, l := range cap10(render.Wrap("$ "+d.Command, inner)) {
			out = append(out, "  "+l)
		}
		if d.Cwd != "" {
			out = append(out, "  "+t.Dim.Render("in "+d.Cwd))
		}
		if d.Description != "" {
			out = append(out, "  "+t.Dim.Render(render.Truncate(d.Description, inner)))
		}
	case *loop.FileIODisplay:
		switch d.Operation {
		case "edit":
			out = append(out, indentAll(render.Diff(t, render.RelPath(d.Path, workDir), d.Before, d.After, inner, render.DiffOptions{MaxRows: limit}))...)
		case "write":
			out = append(out, "  "+t.Bold.Render(render.RelPath(d.Path, workDir)))
			for _, l := range cap10(render.Wrap(d.Content, inner)) {
				out = append(out, "  "+t.Dim.Render(l))
			}
		default:
			out = append(out, "  "+d.Operation+" "+render.RelPath(d.Path, workDir))
			if d.Detail != "" {
				out = append(out, "  "+t.Dim.Render(render.Truncate(d.Detail, inner)))
			}
		}
	case *loop.DiffDisplay:
		out = append(out, indentAll(render.Diff(t, render.RelPath(d.Path, workDir), d.Before, d.After, inner, render.DiffOptions{MaxRows: limit}))...)
	case *loop.SearchDisplay:
		out = append(out, "  "+d.Query)
		if d.Scope != "" {
			out = append(out, "  "+t.Dim.Render("in "+d.Scope))
		}
	case *loop.URLFetchDisplay:
		out = append(out, "  "+strings.TrimSpace(d.Method+" "+d.URL))
	case *loop.GenericDisplay:
		out = append(out, "  "+render.Truncate(d.Summary, inner))
		if d.Detail != nil {
			if b, err := json.MarshalIndent(d.Detail, "", "  "); err == nil {
				for _, l := range cap10(strings.Split(string(b), "\n")) {
					out = append(out, "  "+t.Dim.Render(render.Truncate(l, inner)))
				}
			}
		}
	}
	return out
}

func indentAll(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = "  " + l
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
