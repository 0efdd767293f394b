package tui

import (
	"encoding/json"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/tools"
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
	// needsFeedback: the answer is not sent without a reason.
	needsFeedback bool
	// selected is the answer's SelectedLabel.
	selected string
	// edit opens the plan under review in the editor; it answers nothing.
	edit bool
}

// approvalChoices are the panel's answers, in order (ERRATA 10: once,
// session, always, reject).
var approvalChoices = []approvalChoice{
	{label: "Approve once", choice: event.ApproveOnce},
	{label: "Approve for this session", choice: event.ApproveSession},
	{label: "Approve always (saved to config.toml)", choice: event.ApproveAlways},
	{label: "Reject", choice: event.Reject},
	{label: "Reject with feedback", choice: event.Reject, feedback: true},
}

// onceChoices answer a request that is never remembered (OnceOnly): no
// session or always choice.
var onceChoices = []approvalChoice{
	{label: "Approve once", choice: event.ApproveOnce},
	{label: "Reject", choice: event.Reject},
	{label: "Reject with feedback", choice: event.Reject, feedback: true},
}

// Labels of a plan review's answers (spec 04 §4.2).
const (
	labelApprove = "Approve"
	labelReject  = "Reject"
	labelRevise  = "Revise"
)

// choicesFor are the answers the panel offers for e (spec 04 §4.2): a
// plan review approves the plan (or one of its approaches), lets the user
// edit it first, rejects it, or sends it back with feedback while plan
// mode stays on; a goal start
// picks the mode the goal runs in; a request that is never remembered
// offers no session or always choice; everything else offers them all.
func choicesFor(e event.ApprovalRequested) []approvalChoice {
	switch d := e.Display.(type) {
	case *tools.PlanReviewDisplay:
		var out []approvalChoice
		for _, o := range d.Options {
			out = append(out, approvalChoice{label: "Approve: " + o.Label, choice: event.ApproveOnce, selected: o.Label})
		}
		if len(out) == 0 {
			out = append(out, approvalChoice{label: "Approve the plan", choice: event.ApproveOnce, selected: labelApprove})
		}
		return append(out,
			approvalChoice{label: "Edit the plan", edit: true},
			approvalChoice{label: "Revise: reject with feedback, keep planning", choice: event.Reject, feedback: true,
				needsFeedback: true, selected: labelRevise},
			approvalChoice{label: "Reject", choice: event.Reject, selected: labelReject})
	case *tools.GoalStartDisplay:
		start := func(label string, mode event.PermissionMode) approvalChoice {
			return approvalChoice{label: label, choice: event.ApproveOnce, selected: string(mode)}
		}
		out := []approvalChoice{start("Switch to Auto and start", event.ModeAuto)}
		if d.Mode == string(event.ModeYolo) {
			out = append(out, start("Keep YOLO and start", event.ModeYolo))
		} else {
			out = append(out, start("Switch to YOLO and start", event.ModeYolo), start("Start in Manual", event.ModeManual))
		}
		return append(out, approvalChoice{label: "Do not start", choice: event.Dismiss, selected: "cancel"})
	}
	if e.OnceOnly {
		return onceChoices
	}
	return approvalChoices
}

// approvalPanel asks whether a tool call may run (spec 06 §5.5).
type approvalPanel struct {
	req      event.ApprovalRequested
	choices  []approvalChoice
	sel      int
	feedback bool // the feedback input is focused
	input    textinput.Model
	answered bool
	// A plan review shows the plan above the choices, scrolled by top:
	// planText, as presented or as the user last edited it; plan is its
	// rendering at planWidth.
	top       int
	planText  string
	plan      []string
	planWidth int
}

// openApproval opens the panel for a request, or queues it behind an
// open one.
func (m *Model) openApproval(e event.ApprovalRequested) tea.Cmd {
	if m.overlay != nil && m.overlay.modal() {
		m.pendingRequests = append(m.pendingRequests, e)
		return nil
	}
	p := &approvalPanel{req: e, choices: choicesFor(e), input: newInput("why, and what to do instead")}
	if d, ok := e.Display.(*tools.PlanReviewDisplay); ok {
		p.planText = d.Plan
	}
	m.overlay = p
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
	case "pgup", "pgdown", "shift+up", "shift+down":
		p.scroll(m, s)
		return nil
	case "up":
		p.feedback = false
		p.sel = (p.sel + len(p.choices) - 1) % len(p.choices)
		return nil
	case "down", "tab":
		p.feedback = false
		p.sel = (p.sel + 1) % len(p.choices)
		return nil
	case "enter":
		c := p.choices[p.sel]
		if c.feedback && !p.feedback {
			p.feedback = true
			return nil
		}
		return p.choose(m, c)
	default:
		if p.feedback {
			var cmd tea.Cmd
			p.input, cmd = p.input.Update(k)
			return cmd
		}
		if s == "e" {
			for _, c := range p.choices {
				if c.edit {
					return p.choose(m, c)
				}
			}
		}
		if len(s) == 1 && s[0] >= '1' && s[0] <= '0'+byte(min(len(p.choices), 9)) {
			p.sel = int(s[0] - '1')
			if p.choices[p.sel].feedback {
				p.feedback = true
				return nil
			}
			return p.choose(m, p.choices[p.sel])
		}
	}
	return nil
}

// choose answers with c; a choice that needs a reason waits for one.
func (p *approvalPanel) choose(m *Model, c approvalChoice) tea.Cmd {
	if c.edit {
		return m.editPlan(p)
	}
	a := event.ApprovalAnswer{Choice: c.choice, SelectedLabel: c.selected}
	if c.feedback {
		a.Feedback = strings.TrimSpace(p.input.Value())
		if a.Feedback == "" && c.needsFeedback {
			return nil
		}
	}
	return p.answer(m, a)
}

// scroll moves the plan a page (pgup, pgdown) or a line (shift+arrows).
func (p *approvalPanel) scroll(m *Model, key string) {
	rows := p.planRows(m)
	switch key {
	case "pgup":
		p.top -= rows
	case "pgdown":
		p.top += rows
	case "shift+up":
		p.top--
	case "shift+down":
		p.top++
	}
	p.top = max(min(p.top, len(p.planLines(m))-rows), 0)
}

// planLines is the plan under review rendered as Markdown for the
// panel's width; nil for any other request.
func (p *approvalPanel) planLines(m *Model) []string {
	if _, ok := p.req.Display.(*tools.PlanReviewDisplay); !ok {
		return nil
	}
	w := max(m.width-5, 10)
	if p.plan == nil || p.planWidth != w {
		p.plan, p.planWidth = m.md.Render(p.planText, w), w
	}
	return p.plan
}

// setPlan shows text, the plan as the user edited it, from its top.
func (p *approvalPanel) setPlan(text string) {
	p.planText, p.plan, p.top = text, nil, 0
}

// display is what the request shows: a plan review with the plan as the
// panel shows it.
func (p *approvalPanel) display() loop.Display {
	if d, ok := p.req.Display.(*tools.PlanReviewDisplay); ok {
		edited := *d
		edited.Plan = p.planText
		return &edited
	}
	return p.req.Display
}

// planRows is how many plan lines the panel shows at once: what the
// terminal has left beside the choices, the panel's frame and the footer.
func (p *approvalPanel) planRows(m *Model) int {
	return max(m.height-len(p.choices)-10, 3)
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
	hint := "  ↑↓ choose · enter confirm · esc reject · ctrl+e full preview"
	if plan := p.planLines(m); plan != nil {
		out = append(out, p.planBody(m, plan)...)
		hint = "  enter confirm · e edit · pgup/pgdn scroll · esc reject · ctrl+e full plan"
	} else {
		out = append(out, approvalBody(t, p.req.Display, w, approvalPreviewLines, m.o.WorkDir)...)
	}
	out = append(out, "")
	for i, c := range p.choices {
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
	out = append(out, t.Dim.Render(render.Truncate(hint, w-1)))
	return out, cur
}

// planBody is the visible window of the plan with where it is in the
// plan file, and what lies above and below the window.
func (p *approvalPanel) planBody(m *Model, plan []string) []string {
	t, d := m.theme, p.req.Display.(*tools.PlanReviewDisplay)
	var out []string
	if d.Path != "" {
		out = append(out, "  "+t.Dim.Render(render.Truncate(render.RelPath(d.Path, m.o.WorkDir), max(m.width-3, 10))))
	}
	rows := p.planRows(m)
	p.top = max(min(p.top, len(plan)-rows), 0)
	end := min(p.top+rows, len(plan))
	if p.top > 0 {
		out = append(out, "  "+t.Dim.Render(fmt.Sprintf("↑ %d more %s", p.top, plural(p.top, "line", "lines"))))
	}
	for _, l := range plan[p.top:end] {
		out = append(out, "  "+l)
	}
	if n := len(plan) - end; n > 0 {
		out = append(out, "  "+t.Dim.Render(fmt.Sprintf("↓ %d more %s (pgdn)", n, plural(n, "line", "lines"))))
	}
	if len(d.Options) > 0 {
		out = append(out, "  "+t.Dim.Render("Approaches:"))
	}
	for _, o := range d.Options {
		line := "    " + t.Bold.Render(o.Label)
		if o.Description != "" {
			line += t.Dim.Render(" — " + o.Description)
		}
		out = append(out, render.Truncate(line, m.width-1))
	}
	return out
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
	case *tools.GoalStartDisplay:
		for _, l := range cap10(render.Wrap(d.Objective, inner)) {
			out = append(out, "  "+l)
		}
		if d.CompletionCriterion != "" {
			out = append(out, "  "+t.Dim.Render(render.Truncate("done when: "+d.CompletionCriterion, inner)))
		}
	case *tools.PlanReviewDisplay: // the full preview; the panel scrolls its own
		out = append(out, indentAll(render.NewMarkdown(t).Render(d.Plan, inner))...)
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
