package tui

import (
	"strings"
	"testing"

	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/loop"
)

// agentEvent publishes ev as agent id's and delivers it as the program
// would.
func (r *rig) agentEvent(id string, ev event.Event) {
	r.t.Helper()
	r.sess.bus.Publish(event.WithAgent(ev, id))
	got, err := r.m.Subscription().Next(r.t.Context())
	if err != nil {
		r.t.Fatal(err)
	}
	r.send(eventMsg{sub: r.m.Subscription(), ev: got})
}

// /btw while the main turn runs: the session starts a side conversation
// and asks it; its answer streams into the side panel, never into the
// transcript or the main turn's state; the main turn keeps streaming;
// a follow-up goes to the same child; Esc dismisses the panel and closes
// the child, and only the next Esc reaches the main turn.
func TestBtwSidePanel(t *testing.T) {
	r := newRig(t)
	r.startTurn("refactor the parser")
	r.event(event.AssistantDelta{Header: event.InTurn(1), Delta: "Working on the parser. "})
	r.sess.Calls()

	r.typeText("/btw which file holds the lexer?")
	r.key("enter")
	r.expectCalls("btw start btw-1", `btw ask btw-1 "which file holds the lexer?"`)
	live := r.live()
	r.contains(live, "btw · side question")
	r.contains(live, "? which file holds the lexer?")
	r.contains(live, "answering")

	r.agentEvent("btw-1", event.TurnStarted{Header: event.InTurn(0), Origin: "user"})
	r.agentEvent("btw-1", event.ToolCallStarted{Header: event.InTurn(0), ToolCallID: "b1", Name: "Read"})
	r.agentEvent("btw-1", event.ToolResult{Header: event.InTurn(0), ToolCallID: "b1", IsError: true})
	r.agentEvent("btw-1", event.AssistantDelta{Header: event.InTurn(0), Delta: "It is lexer.go, "})
	r.event(event.AssistantDelta{Header: event.InTurn(1), Delta: "Still parsing."}) // the main turn goes on
	r.agentEvent("btw-1", event.AssistantDelta{Header: event.InTurn(0), Delta: "next to parser.go."})
	r.agentEvent("btw-1", event.TurnEnded{Header: event.InTurn(0), Reason: event.EndCompleted})
	r.advance(frameInterval)
	live = r.live()
	r.contains(live, "It is lexer.go, next to parser.go.")
	r.contains(live, "esc dismisses")
	r.lacks(live, "answering")
	r.lacks(live, "Read") // the refused call is not shown
	if r.m.turn == nil {
		t.Fatal("the side answer ended the main turn")
	}
	if strings.Contains(r.m.lastAnswer, "lexer.go") || !strings.Contains(r.m.lastAnswer, "Still parsing.") {
		t.Errorf("the main turn's answer = %q", r.m.lastAnswer)
	}

	r.typeText("/btw and the tests?")
	r.key("enter")
	r.expectCalls(`btw ask btw-1 "and the tests?"`)
	r.contains(r.live(), "? and the tests?")
	r.lacks(r.live(), "It is lexer.go")
	r.typeText("/btw one more?") // refused while it answers
	r.key("enter")
	r.expectCalls()
	r.contains(r.screen(), "still being answered")
	r.agentEvent("btw-1", event.TurnEnded{Header: event.InTurn(1), Reason: event.EndCancelled})
	r.contains(r.live(), "The answer was cancelled.")

	r.key("esc")
	r.expectCalls("btw close btw-1")
	r.lacks(r.live(), "side question")
	r.lacks(r.screen(), "It is lexer.go") // never printed into the transcript
	if r.m.turn == nil || r.m.turn.cancelling {
		t.Error("the esc that dismissed the panel reached the main turn")
	}
	r.key("esc")
	r.expectCalls("cancel")

	// Events of a dismissed side conversation change nothing.
	r.agentEvent("btw-1", event.AssistantDelta{Header: event.InTurn(1), Delta: "late words"})
	r.lacks(r.live(), "late words")
}

// /btw without a question says how to use it and calls nothing.
func TestBtwUsage(t *testing.T) {
	r := newRig(t)
	r.sess.Calls()
	r.typeText("/btw")
	r.key("enter")
	r.expectCalls()
	r.contains(r.screen(), "Usage: /btw <question>")
	if r.m.side != nil {
		t.Error("a panel opened without a question")
	}
}

// A child's approval request names the child ("agent-2 wants to use
// Bash"), and so does its question; the main agent's do not. The footer counts the children whose
// turn runs, and side conversations are not among them.
func TestChildApprovalAndFooterCount(t *testing.T) {
	r := newRig(t)
	r.startTurn("delegate it")
	r.agentEvent("agent-2", event.TurnStarted{Header: event.InTurn(0), Origin: "user"})
	r.agentEvent("btw-1", event.TurnStarted{Header: event.InTurn(0), Origin: "user"})
	footer := r.m.Frame().Lines
	r.contains(stripANSI(strings.Join(footer[len(footer)-2:], "\n")), "[1 agent running]")

	r.agentEvent("agent-2", event.ApprovalRequested{Header: event.InTurn(0), RequestID: "r1", ToolCallID: "c1",
		ToolName: "Bash", Action: "Running: make", Display: &loop.CommandDisplay{Command: "make"}})
	live := r.live()
	r.contains(live, "agent-2 wants to use Bash · Running: make")
	r.key("1")
	r.expectCalls(`prompt "delegate it"`, `approval r1 approve_once ""`)

	r.event(writeApproval("r2"))
	r.lacks(r.live(), "wants to use")
	r.key("4")
	r.sess.Calls()

	r.agentEvent("agent-2", event.QuestionRequested{Header: event.InTurn(0), RequestID: "q1", Questions: []event.Question{
		{Question: "Which branch?", Options: []event.QuestionOption{{Label: "main"}, {Label: "dev"}}}}})
	r.contains(r.live(), "agent-2 asks:")
	r.contains(r.live(), "Which branch?")
	r.key("esc")
	r.expectCalls(`question q1 []`)

	r.agentEvent("agent-2", event.TurnEnded{Header: event.InTurn(0), Reason: event.EndCompleted})
	footer = r.m.Frame().Lines
	r.lacks(stripANSI(strings.Join(footer[len(footer)-2:], "\n")), "agent running")
}

// The side answer is Markdown, rendered like the main answer; a long one
// shows its first rows and says how many more there are.
func TestBtwAnswerIsMarkdown(t *testing.T) {
	r := newRig(t)
	r.typeText("/btw list the steps")
	r.key("enter")
	r.agentEvent("btw-1", event.TurnStarted{Header: event.InTurn(0), Origin: "user"})
	var b strings.Builder
	b.WriteString("**Steps**\n\n")
	for i := range 30 {
		b.WriteString("- step " + string(rune('a'+i%26)) + "\n")
	}
	r.agentEvent("btw-1", event.AssistantDelta{Header: event.InTurn(0), Delta: b.String()})
	r.agentEvent("btw-1", event.TurnEnded{Header: event.InTurn(0), Reason: event.EndCompleted})
	live := r.live()
	r.contains(live, "Steps")
	r.lacks(live, "**Steps**")
	r.contains(live, "step a")
	r.contains(live, "more lines")
	r.lacks(live, "answering")
}
