package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/session"
)

const sideDenied = "Tool calls are disabled for side questions. Answer with text only."

// agentEvents reads sub until agent id's turn.ended and returns that
// agent's events in order; events of other agents are skipped.
func agentEvents(t *testing.T, sub *event.Subscription, id string) []event.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a deadlock guard, not a measurement
	defer cancel()
	var out []event.Event
	for {
		ev, err := sub.Next(ctx)
		if err != nil {
			t.Fatalf("waiting for %s's turn.ended: %v", id, err)
		}
		if ev.EventHeader().AgentID != id {
			continue
		}
		out = append(out, ev)
		if _, ok := ev.(event.TurnEnded); ok {
			return out
		}
	}
}

// wireRequest is the decoded body of the fake server's request i.
type wireRequest struct {
	Messages []json.RawMessage `json:"messages"`
	Tools    json.RawMessage   `json:"tools"`
}

func (r *rig) wire(i int) wireRequest {
	r.t.Helper()
	var w wireRequest
	if err := json.Unmarshal(r.srv.Request(i).Body, &w); err != nil {
		r.t.Fatal(err)
	}
	return w
}

// TestScenario57SideChannel: spec 05 §12 scenario 57. The main agent read
// a file in its first turn; in its second it runs a command that waits on
// a FIFO, so the main turn is running and the tail of its history is an
// exchange still waiting for its result. A side conversation started then
// sends the main agent's system prompt, tool table and projected history
// (without the open exchange) byte for byte, then the btw reminder and the
// question; its Read is refused with the side-question message even in
// yolo mode; it answers; nothing of it reaches the session's files or the
// main history; and the main turn, released afterwards, completes with a
// request that carries nothing of the side conversation.
func TestScenario57SideChannel(t *testing.T) {
	r := newRig(t)
	if err := os.WriteFile(filepath.Join(r.workDir, "notes.txt"), []byte("the build uses make\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(r.workDir, "gate.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	r.srv.Add(
		llmtest.ToolCall("c1", "Read", `{"path":"notes.txt"}`),        // 0: main, turn 1
		llmtest.Text("The notes say the build uses make."),            // 1
		llmtest.ToolCall("c2", "Bash", `{"command":"cat gate.fifo"}`), // 2: main, turn 2: waits on the FIFO
		llmtest.ToolCall("b1", "Read", `{"path":"notes.txt"}`),        // 3: the side conversation
		llmtest.Text("It uses make, as the notes said."),              // 4
		llmtest.Text("The check passed."),                             // 5: main, turn 2 once the command ended
	)
	o := r.opts("")
	o.Mode = event.PermissionMode("yolo") // nothing asks: the side conversation is refused all the same
	s, err := session.Open(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeSession(t, s) })
	prompt(t, s, "read notes.txt")

	sub := s.Subscribe()
	defer sub.Close()
	if err := s.Prompt(t.Context(), textParts("run the check")); err != nil {
		t.Fatal(err)
	}
	gate, err := os.OpenFile(fifo, os.O_WRONLY, 0) // returns once the command opened it: the main turn runs c2
	if err != nil {
		t.Fatal(err)
	}
	mainHistory := s.History()
	if last := mainHistory[len(mainHistory)-1]; last.Role != "assistant" || len(last.ToolCalls) != 1 || last.ToolCalls[0].ID != "c2" {
		t.Fatalf("the main history does not end with the open exchange of c2: %+v", last)
	}
	before := snapshot(t, s.Dir())

	id, err := s.StartBtw(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(id, session.BtwIDPrefix) || id == "main" {
		t.Errorf("side conversation id = %q", id)
	}
	if err := s.AskBtw(t.Context(), id, textParts("which build tool does this project use?")); err != nil {
		t.Fatal(err)
	}
	evs := agentEvents(t, sub, id)
	answer, err := s.WaitBtw(t.Context(), id)
	if err != nil || answer != "It uses make, as the notes said." {
		t.Fatalf("answer = %q, %v", answer, err)
	}

	// The child's first request: the main agent's request 2 byte for byte
	// (system prompt, projected history, tools), then the reminder and the
	// question. The open exchange of c2 is not in it.
	main2, side := r.wire(2), r.wire(3)
	if len(side.Messages) != len(main2.Messages)+2 {
		t.Fatalf("side request has %d messages, main request %d (want 2 more):\n%s", len(side.Messages),
			len(main2.Messages), r.srv.Request(3).Body)
	}
	for i, m := range main2.Messages {
		if string(side.Messages[i]) != string(m) {
			t.Errorf("side message %d = %s\nwant the main agent's %s", i, side.Messages[i], m)
		}
	}
	if string(side.Tools) != string(main2.Tools) || len(side.Tools) < 10 {
		t.Errorf("side tools differ from the main agent's:\n%s\nwant\n%s", side.Tools, main2.Tools)
	}
	// Everything else of the request is the main agent's too: the model,
	// its completion cap, the prompt-cache key, the stream options.
	mainRest, sideRest := r.srv.Request(2).JSON(t), r.srv.Request(3).JSON(t)
	delete(mainRest, "messages")
	delete(sideRest, "messages")
	if d := cmp.Diff(mainRest, sideRest); d != "" || mainRest["model"] != "fake-model" {
		t.Errorf("the side request's settings differ from the main agent's (-main +side):\n%s", d)
	}
	var reminder, question struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	_ = json.Unmarshal(side.Messages[len(side.Messages)-2], &reminder)
	_ = json.Unmarshal(side.Messages[len(side.Messages)-1], &question)
	if reminder.Role != "user" || !strings.Contains(reminder.Content, "<system-reminder>") ||
		!strings.Contains(reminder.Content, "side conversation") || !strings.Contains(reminder.Content, "do not know") {
		t.Errorf("reminder = %+v", reminder)
	}
	if question.Role != "user" || question.Content != "which build tool does this project use?" {
		t.Errorf("question = %+v", question)
	}
	if strings.Contains(string(r.srv.Request(3).Body), `"c2"`) {
		t.Errorf("the open exchange reached the side request:\n%s", r.srv.Request(3).Body)
	}

	// Its Read was refused with the side-question message, without asking.
	var results []event.ToolResult
	for _, ev := range evs {
		switch e := ev.(type) {
		case event.ToolResult:
			results = append(results, e)
		case event.ApprovalRequested:
			t.Errorf("the side conversation asked for approval: %+v", e)
		}
	}
	if len(results) != 1 || !results[0].IsError || results[0].Output.Text() != sideDenied {
		t.Errorf("side tool results = %+v, want one error %q", results, sideDenied)
	}
	if !strings.Contains(string(r.srv.Request(4).Body), sideDenied) {
		t.Errorf("the side conversation's second request lacks the refusal:\n%s", r.srv.Request(4).Body)
	}
	if ended := evs[len(evs)-1].(event.TurnEnded); ended.Reason != event.EndCompleted {
		t.Errorf("side turn ended %+v", ended)
	}

	// Nothing of it reached the session's files or the main history.
	if d := cmp.Diff(before, snapshot(t, s.Dir())); d != "" {
		t.Errorf("the side conversation changed the session's files (-before +after):\n%s", d)
	}
	if _, err := os.Stat(filepath.Join(s.Dir(), "agents", id)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the side conversation has a home on disk: %v", err)
	}
	if d := cmp.Diff(mainHistory, s.History()); d != "" {
		t.Errorf("the main history changed (-before +after):\n%s", d)
	}

	// The main turn goes on: its command ends, the turn completes, and
	// its next request carries nothing of the side conversation.
	if _, err := gate.WriteString("ok\n"); err != nil {
		t.Fatal(err)
	}
	if err := gate.Close(); err != nil {
		t.Fatal(err)
	}
	mainEvs := agentEvents(t, sub, "main")
	if ended := mainEvs[len(mainEvs)-1].(event.TurnEnded); ended.Reason != event.EndCompleted {
		t.Fatalf("main turn ended %+v", ended)
	}
	last := string(r.srv.Request(5).Body)
	if strings.Contains(last, "side conversation") || strings.Contains(last, "which build tool") ||
		strings.Contains(last, sideDenied) {
		t.Errorf("the main agent's request carries the side conversation:\n%s", last)
	}
	if err := s.CloseBtw(t.Context(), id); err != nil {
		t.Fatal(err)
	}
	if err := s.AskBtw(t.Context(), id, textParts("again?")); !errors.Is(err, session.ErrNoBtw) || !strings.Contains(err.Error(), id) {
		t.Errorf("AskBtw after CloseBtw = %v, want ErrNoBtw naming %s", err, id)
	}
	if err := s.CancelBtw(t.Context(), "agent-1"); !errors.Is(err, session.ErrNoBtw) || !strings.Contains(err.Error(), `"agent-1"`) {
		t.Errorf("CancelBtw of an unknown id = %v, want ErrNoBtw naming it", err)
	}
	if st := readState(t, s.Dir()); strings.Contains(st["lastPrompt"].(string), "build tool") {
		t.Errorf("state.json's lastPrompt is the side question: %v", st["lastPrompt"])
	}
}

// A side conversation takes follow-ups: the second question's request
// carries the first question and its answer. A question while one is
// being answered is refused as busy; Cancel stops the answer and Wait says
// so; the session's Close closes what is still open, and no side
// conversation starts on a closed session. Nothing of it is in the main
// history.
func TestBtwFollowUpsCancelAndClose(t *testing.T) {
	r := newRig(t)
	gate := llmtest.NewGate()
	r.srv.Add(
		llmtest.Text("Hello."), // 0: main
		llmtest.Text("You said hi."),
		llmtest.Text("never sent").WithFault(llmtest.Fault{Hold: gate}), // 2: cancelled while held
		llmtest.Text("Still hi."),
	)
	s, err := session.Open(t.Context(), r.opts(""))
	if err != nil {
		t.Fatal(err)
	}
	prompt(t, s, "hi")
	id, err := s.StartBtw(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AskBtw(t.Context(), id, textParts("what did I say?")); err != nil {
		t.Fatal(err)
	}
	if a, err := s.WaitBtw(t.Context(), id); err != nil || a != "You said hi." {
		t.Fatalf("first answer = %q, %v", a, err)
	}

	if err := s.AskBtw(t.Context(), id, textParts("are you sure?")); err != nil {
		t.Fatal(err)
	}
	<-gate.Reached()
	var busy *agent.BusyError
	if err := s.AskBtw(t.Context(), id, textParts("hello?")); !errors.As(err, &busy) {
		t.Errorf("Ask while answering = %v, want a BusyError", err)
	}
	if err := s.CancelBtw(t.Context(), id); err != nil {
		t.Fatal(err)
	}
	if _, err := s.WaitBtw(t.Context(), id); err == nil || !strings.Contains(err.Error(), "cancelled") {
		t.Errorf("Wait after Cancel = %v, want an error saying it was cancelled", err)
	}
	gate.Release()

	if err := s.AskBtw(t.Context(), id, textParts("and now?")); err != nil {
		t.Fatal(err)
	}
	if a, err := s.WaitBtw(t.Context(), id); err != nil || a != "Still hi." {
		t.Fatalf("follow-up answer = %q, %v", a, err)
	}
	body := string(r.srv.Request(3).Body)
	for _, want := range []string{"what did I say?", "You said hi.", "and now?"} {
		if !strings.Contains(body, want) {
			t.Errorf("the follow-up request lacks %q:\n%s", want, body)
		}
	}
	for _, m := range s.History() {
		if strings.Contains(textOf(m.Message), "said") {
			t.Errorf("the main history holds the side conversation: %+v", m)
		}
	}
	closeSession(t, s)
	if err := s.AskBtw(t.Context(), id, textParts("after close")); !errors.Is(err, session.ErrBtwClosed) {
		t.Errorf("AskBtw after the session closed = %v, want ErrBtwClosed", err)
	}
	if _, err := s.StartBtw(t.Context()); !errors.Is(err, session.ErrBtwClosed) {
		t.Errorf("StartBtw on a closed session = %v, want ErrBtwClosed", err)
	}
}
