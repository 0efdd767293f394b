package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/ui/render"
)

// btwer answers side questions (/btw, spec 05 §5.12) in a child that sees
// the conversation, may call no tool and leaves no trace in it;
// *session.Session has it.
type btwer interface {
	StartBtw(ctx context.Context) (string, error)
	AskBtw(ctx context.Context, id string, input []llm.ContentPart) error
	CancelBtw(ctx context.Context, id string) error
	CloseBtw(ctx context.Context, id string) error
}

// sidePanel is the open side conversation: the latest question and its
// answer, shown above the activity line while the main turn goes on. Esc
// dismisses it (and closes the child); /btw again asks a follow-up of the
// same child.
type sidePanel struct {
	id       string // "" until StartBtw answered
	question string
	answer   strings.Builder
	running  bool
	started  time.Time
	failure  string // how the last answer ended when it did not complete
}

// Messages of the side conversation's calls.
type (
	btwStartedMsg struct {
		id  string
		err error
	}
	btwAskedMsg struct {
		id  string
		err error
	}
)

// btwHelp is the hint under the panel.
const btwHelp = "esc dismisses · /btw <question> asks a follow-up"

// cmdBtw is /btw <question>: a side question answered in a panel while
// the main turn keeps running; with a panel open, a follow-up.
func cmdBtw(c *Ctx, args string) tea.Cmd {
	m := c.m
	b, _ := m.sess.(btwer)
	q := strings.TrimSpace(args)
	switch {
	case b == nil:
		c.Warn("This session cannot answer side questions.")
		return nil
	case q == "":
		c.Warn("Usage: /btw <question> — asks about the conversation without interrupting it.")
		return nil
	case m.side != nil && (m.side.running || m.side.id == ""):
		c.Warn("The side question is still being answered; wait for it, or press esc to dismiss it.")
		return nil
	}
	if m.side != nil { // a follow-up of the open side conversation
		return m.askSide(q)
	}
	m.side = &sidePanel{question: q, running: true, started: m.now()}
	m.touch()
	return tea.Batch(m.calls.Run(func(ctx context.Context) tea.Msg {
		id, err := b.StartBtw(ctx)
		return btwStartedMsg{id: id, err: err}
	}), m.animate())
}

// askSide asks the open side conversation q.
func (m *Model) askSide(q string) tea.Cmd {
	s := m.side
	b, _ := m.sess.(btwer)
	s.question, s.running, s.started, s.failure = q, true, m.now(), ""
	s.answer.Reset()
	m.touch()
	id := s.id
	return tea.Batch(m.calls.Run(func(ctx context.Context) tea.Msg {
		return btwAskedMsg{id: id, err: b.AskBtw(ctx, id, []llm.ContentPart{llm.TextPart(q)})}
	}), m.animate())
}

// btwStarted learns the child's id and asks it the question; only then
// does its turn start, so none of its events arrive before the id is
// known.
func (m *Model) btwStarted(msg btwStartedMsg) tea.Cmd {
	m.urgent = true
	if msg.err != nil {
		m.side = nil
		m.notice(render.Error, "Side question: "+msg.err.Error())
		return nil
	}
	if m.side == nil || m.side.id != "" { // dismissed meanwhile
		return m.closeSide(msg.id)
	}
	m.side.id = msg.id
	return m.askSide(m.side.question)
}

// btwAsked reports a question the child refused (busy, closed).
func (m *Model) btwAsked(msg btwAskedMsg) tea.Cmd {
	if msg.err == nil || m.side == nil || m.side.id != msg.id {
		return nil
	}
	m.side.running = false
	m.side.failure = msg.err.Error()
	m.urgent = true
	m.touch()
	return nil
}

// dismissSide closes the panel and the child (Esc).
func (m *Model) dismissSide() tea.Cmd {
	id := m.side.id
	m.side = nil
	m.touch()
	if id == "" { // btwStarted closes it when the id arrives
		return nil
	}
	return m.closeSide(id)
}

func (m *Model) closeSide(id string) tea.Cmd {
	b, ok := m.sess.(btwer)
	if !ok {
		return nil
	}
	return m.call("btw", func(ctx context.Context) error { return b.CloseBtw(ctx, id) })
}

// sideEvent folds an event of the open side conversation into the
// panel. Its tool calls are refused by the session; the panel shows only
// the text.
func (m *Model) sideEvent(ev event.Event) tea.Cmd {
	s := m.side
	switch e := ev.(type) {
	case event.TurnStarted:
		s.running = true
	case event.AssistantDelta:
		s.answer.WriteString(e.Delta)
		m.streamDirty = true
	case event.Error:
		s.failure = e.Message
	case event.TurnEnded:
		s.running = false
		switch {
		case e.Reason == event.EndCompleted:
		case e.Error != nil:
			s.failure = e.Error.Message
		default:
			s.failure = "The answer was " + string(e.Reason) + "."
		}
		m.urgent = true
	default:
		return nil
	}
	m.touch()
	return m.animate()
}

// sideLines renders the panel: a titled rule, the question, the answer
// as Markdown (its last rows while it streams, its first ones when it is
// longer than rows), and the hint.
func (m *Model) sideLines(rows int) []string {
	s := m.side
	if s == nil {
		return nil
	}
	t, w := m.theme, m.width
	title := "─ btw · side question "
	out := []string{"", t.Border.Render(title + strings.Repeat("─", max(w-1-render.Width(title), 1)))}
	for _, l := range render.Wrap(s.question, max(w-5, 10)) {
		out = append(out, t.Bold.Render("  ? "+l))
	}
	answer := m.md.Render(s.answer.String(), max(w-5, 10)) // Markdown, like the main answer
	rows = max(rows, 3)
	if len(answer) > rows {
		if s.running {
			answer = answer[len(answer)-rows:]
		} else {
			n := len(answer) - rows
			answer = append(answer[:rows:rows], t.Dim.Render(fmt.Sprintf("… %d more %s", n, plural(n, "line", "lines"))))
		}
	}
	for _, l := range answer {
		out = append(out, "    "+l)
	}
	switch {
	case s.running:
		out = append(out, t.Dim.Render("    "+brailleFrame(m.now().Sub(s.started))+" answering · "+elapsed(m.now().Sub(s.started))))
	case s.failure != "":
		out = append(out, t.Warning.Render(render.Truncate("    "+s.failure, w-1)))
	}
	return append(out, t.Dim.Render(render.Truncate("  "+btwHelp, w-1)))
}

// sideRunning reports an answer being written.
func (m *Model) sideRunning() bool { return m.side != nil && m.side.running }

// childEvent counts the children (subagents, not side conversations)
// whose turn runs, for the footer.
func (m *Model) childEvent(ev event.Event) {
	id := ev.EventHeader().AgentID
	if strings.HasPrefix(id, "btw-") {
		return
	}
	switch ev.(type) {
	case event.TurnStarted:
		if m.children == nil {
			m.children = map[string]bool{}
		}
		m.children[id] = true
		m.touch()
	case event.TurnEnded:
		if m.children[id] {
			delete(m.children, id)
			m.touch()
		}
	}
}
