package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/ui/render"
	"github.com/kimigo/kimigo/ui/term"
)

// questionBodyLines caps a question's body (spec 06 §5.5).
const questionBodyLines = 12

// questionDialog asks the AskUserQuestion questions one at a time, with
// numbered options, an "Other" answer typed in, toggles for multi-select
// questions, and a review before the answers go (spec 06 §5.5).
type questionDialog struct {
	req      event.QuestionRequested
	q        int // the question shown; len(questions) is the review
	sel      int // the selected row
	picked   []map[int]bool
	other    []string
	typing   bool // the Other input is focused
	input    textinput.Model
	answered bool
}

func (m *Model) openQuestion(e event.QuestionRequested) tea.Cmd {
	if m.overlay != nil && m.overlay.modal() {
		m.pendingRequests = append(m.pendingRequests, e)
		return nil
	}
	d := &questionDialog{req: e, input: newInput("your answer")}
	for range e.Questions {
		d.picked = append(d.picked, map[int]bool{})
		d.other = append(d.other, "")
	}
	m.overlay = d
	m.menu = nil
	m.bell = true
	m.urgent = true
	m.touch()
	return nil
}

func (d *questionDialog) modal() bool { return true }

func (d *questionDialog) message(*Model, tea.Msg) (tea.Cmd, bool) { return nil, false }

func (d *questionDialog) paste(m *Model, s string) tea.Cmd {
	if d.typing {
		d.input.SetValue(d.input.Value() + strings.ReplaceAll(s, "\n", " "))
		d.input.CursorEnd()
	}
	return nil
}

// rows is how many rows the current step offers: the options and Other,
// or Submit and Cancel on the review.
func (d *questionDialog) rows() int {
	if d.q >= len(d.req.Questions) {
		return 2
	}
	return len(d.req.Questions[d.q].Options) + 1
}

func (d *questionDialog) key(m *Model, k tea.KeyPressMsg) tea.Cmd {
	s := k.String()
	if s == "esc" || s == "ctrl+c" {
		return d.answer(m, nil) // dismissed
	}
	if d.typing {
		switch s {
		case "enter":
			d.other[d.q] = strings.TrimSpace(d.input.Value())
			d.typing = false
			if d.other[d.q] != "" {
				return d.advance(m)
			}
			return nil
		case "up", "down":
			d.typing = false
		default:
			var cmd tea.Cmd
			d.input, cmd = d.input.Update(k)
			return cmd
		}
	}
	switch s {
	case "up":
		d.sel = (d.sel + d.rows() - 1) % d.rows()
	case "down", "tab":
		d.sel = (d.sel + 1) % d.rows()
	case "left":
		if d.q > 0 {
			d.q--
			d.sel = 0
		}
	case "space":
		d.choose(m, d.sel, true)
	case "enter":
		return d.enter(m)
	default:
		if len(s) == 1 && s[0] >= '1' && s[0] <= '9' && int(s[0]-'1') < d.rows() {
			d.sel = int(s[0] - '1')
			if d.q < len(d.req.Questions) && d.req.Questions[d.q].MultiSelect && d.sel < len(d.req.Questions[d.q].Options) {
				d.choose(m, d.sel, true)
				return nil
			}
			return d.enter(m)
		}
	}
	return nil
}

// choose toggles (multi-select) or picks option i.
func (d *questionDialog) choose(m *Model, i int, toggle bool) {
	if d.q >= len(d.req.Questions) {
		return
	}
	q := d.req.Questions[d.q]
	if i == len(q.Options) { // Other
		d.typing = true
		d.input.SetValue(d.other[d.q])
		d.input.CursorEnd()
		return
	}
	if q.MultiSelect && toggle {
		d.picked[d.q][i] = !d.picked[d.q][i]
		return
	}
	d.picked[d.q] = map[int]bool{i: true}
	d.other[d.q] = ""
}

func (d *questionDialog) enter(m *Model) tea.Cmd {
	if d.q >= len(d.req.Questions) { // the review
		if d.sel == 0 {
			return d.answer(m, d.answers())
		}
		return d.answer(m, nil)
	}
	q := d.req.Questions[d.q]
	if d.sel == len(q.Options) {
		d.choose(m, d.sel, false)
		return nil
	}
	if !q.MultiSelect {
		d.choose(m, d.sel, false)
	} else if len(d.picked[d.q]) == 0 || !anyTrue(d.picked[d.q]) {
		d.choose(m, d.sel, true)
	}
	return d.advance(m)
}

// advance goes to the next question, or the review.
func (d *questionDialog) advance(m *Model) tea.Cmd {
	d.q++
	d.sel = 0
	return nil
}

func anyTrue(m map[int]bool) bool {
	for _, v := range m {
		if v {
			return true
		}
	}
	return false
}

// answers are the chosen labels by question text; several for a
// multi-select question are joined with ", ".
func (d *questionDialog) answers() map[string]string {
	out := map[string]string{}
	for i, q := range d.req.Questions {
		if a := d.answerOf(i); a != "" {
			out[q.Question] = a
		}
	}
	return out
}

func (d *questionDialog) answerOf(i int) string {
	q := d.req.Questions[i]
	var labels []string
	for j, o := range q.Options {
		if d.picked[i][j] {
			labels = append(labels, o.Label)
		}
	}
	if d.other[i] != "" {
		labels = append(labels, d.other[i])
	}
	return strings.Join(labels, ", ")
}

// answer sends the answers once (nil: dismissed) and closes the dialog.
func (d *questionDialog) answer(m *Model, answers map[string]string) tea.Cmd {
	if d.answered {
		return nil
	}
	d.answered = true
	m.overlay = nil
	m.openPendingRequest()
	m.touch()
	s, id := m.sess, d.req.RequestID
	return tea.Batch(func() tea.Msg {
		if err := s.AnswerQuestion(id, answers); err != nil {
			return callDoneMsg{label: "question", err: err}
		}
		return nil
	}, m.drainQueue())
}

func (d *questionDialog) lines(m *Model) ([]string, *term.Cursor) {
	t, w := m.theme, m.width
	inner := max(w-4, 10)
	out := []string{panelRule(t, w)}
	if id := d.req.AgentID; id != "" && id != mainAgent { // a subagent asks: say which
		out = append(out, t.Warning.Bold(true).Render(id)+" asks:")
	}
	if d.q >= len(d.req.Questions) {
		out = append(out, t.Bold.Render("Review your answer before submit"))
		for i, q := range d.req.Questions {
			out = append(out, render.Truncate("  "+q.Question, w-1))
			a := d.answerOf(i)
			if a == "" {
				a = "(no answer)"
			}
			out = append(out, render.Truncate("    → "+t.Primary.Render(a), w-1))
		}
		out = append(out, "", "Ready to submit your answers?")
		for i, l := range []string{"Submit", "Cancel"} {
			out = append(out, optionRow(t, i, d.sel, l, "", false, false))
		}
		return append(out, t.Dim.Render("  ↑↓ choose · enter confirm · ← back · esc dismiss")), nil
	}
	q := d.req.Questions[d.q]
	head := fmt.Sprintf("Question %d of %d", d.q+1, len(d.req.Questions))
	if q.Header != "" {
		head += " · " + q.Header
	}
	out = append(out, t.Dim.Render(head))
	body := render.Wrap(q.Question, inner)
	if len(body) > questionBodyLines {
		body = append(body[:questionBodyLines-1], "…")
	}
	for _, l := range body {
		out = append(out, t.Bold.Render(l))
	}
	out = append(out, "")
	for i, o := range q.Options {
		out = append(out, optionRow(t, i, d.sel, o.Label, o.Description, q.MultiSelect, d.picked[d.q][i]))
	}
	other := "Other"
	if d.other[d.q] != "" {
		other += ": " + d.other[d.q]
	}
	out = append(out, optionRow(t, len(q.Options), d.sel, other, "", false, false))
	var cur *term.Cursor
	if d.typing {
		line, x := inputLine(&d.input, "    ", w)
		out = append(out, line)
		cur = &term.Cursor{X: x, Y: len(out) - 1}
	}
	hint := "  ↑↓ choose · enter confirm · esc dismiss"
	if q.MultiSelect {
		hint = "  ↑↓ choose · space toggles · enter next · esc dismiss"
	}
	return append(out, t.Dim.Render(hint)), cur
}

func optionRow(t render.Theme, i, sel int, label, desc string, multi, on bool) string {
	ptr := "  "
	if i == sel {
		ptr = t.Primary.Render(render.Pointer) + " "
	}
	box := ""
	if multi {
		box = "[ ] "
		if on {
			box = "[x] "
		}
	}
	text := fmt.Sprintf("%d %s%s", i+1, box, label)
	if i == sel {
		text = t.Primary.Bold(true).Render(text)
	}
	if desc != "" {
		text += "  " + t.Dim.Render(desc)
	}
	return ptr + text
}
