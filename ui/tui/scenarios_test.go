package tui

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/ui/editor"
)

// startTurn sends a prompt and starts its turn on the bus.
func (r *rig) startTurn(prompt string) {
	r.t.Helper()
	r.typeText(prompt)
	r.key("enter")
	r.event(event.TurnStarted{Header: event.InTurn(1), Origin: "user"})
	r.event(event.StepStarted{Header: event.InTurn(1), Step: 1, StepID: "s1"})
}

func (r *rig) endTurn(reason event.EndReason) {
	r.t.Helper()
	r.event(event.TurnEnded{Header: event.InTurn(1), Reason: reason})
}

// TestScenario37CtrlCLadder is spec 06 §10 scenario 37 on the model.
func TestScenario37CtrlCLadder(t *testing.T) {
	t.Run("clear, then exit within 1500 ms", func(t *testing.T) {
		r := newRig(t)
		r.typeText("abc")
		r.key("ctrl+c")
		if !r.m.ed.Empty() {
			t.Errorf("the editor still holds %q", r.m.ed.Value())
		}
		r.contains(r.live(), "Press Ctrl+C again to exit")
		r.advance(time.Second)
		r.key("ctrl+c")
		if !r.quit {
			t.Error("a second Ctrl-C within 1500 ms did not exit")
		}
	})
	t.Run("after 1600 ms only re-arms", func(t *testing.T) {
		r := newRig(t)
		r.key("ctrl+c")
		r.advance(1600 * time.Millisecond)
		r.lacks(r.live(), "Press Ctrl+C again")
		r.key("ctrl+c")
		if r.quit {
			t.Error("Ctrl-C 1600 ms later exited")
		}
		r.contains(r.live(), "Press Ctrl+C again to exit")
	})
	t.Run("cancels a streaming turn and keeps running", func(t *testing.T) {
		r := newRig(t)
		r.startTurn("hello")
		r.sess.Calls()
		r.event(event.AssistantDelta{Header: event.InTurn(1), Delta: "Thinking about"})
		r.key("ctrl+c")
		r.expectCalls("cancel")
		if r.quit {
			t.Error("Ctrl-C during a turn exited")
		}
		r.endTurn(event.EndCancelled)
		r.contains(r.screen(), "Thinking about") // partial text stays
		r.contains(r.screen(), "Interrupted.")
	})
	t.Run("clears a draft before cancelling", func(t *testing.T) {
		r := newRig(t)
		r.startTurn("hello")
		r.sess.Calls()
		r.typeText("draft")
		r.key("ctrl+c")
		r.expectCalls()
		if !r.m.ed.Empty() {
			t.Error("the draft was not cleared")
		}
	})
}

// TestScenario38Esc is spec 06 §10 scenario 38.
func TestScenario38Esc(t *testing.T) {
	t.Run("cancels a streaming turn", func(t *testing.T) {
		r := newRig(t)
		r.startTurn("hi")
		r.sess.Calls()
		r.key("esc")
		r.expectCalls("cancel")
	})
	t.Run("two within 600 ms open the undo selector", func(t *testing.T) {
		r := newRig(t)
		r.startTurn("first prompt")
		r.endTurn(event.EndCompleted)
		r.key("esc")
		r.advance(500 * time.Millisecond)
		r.key("esc")
		if _, ok := r.m.overlay.(*picker); !ok {
			t.Fatalf("no undo selector; overlay %T", r.m.overlay)
		}
		r.contains(r.live(), "first prompt")
		r.sess.Calls()
		r.key("enter")
		r.expectCalls("undo 1")
		if r.m.ed.Value() != "first prompt" {
			t.Errorf("the withdrawn prompt is not back in the editor: %q", r.m.ed.Value())
		}
	})
	t.Run("two 700 ms apart do not", func(t *testing.T) {
		r := newRig(t)
		r.startTurn("first prompt")
		r.endTurn(event.EndCompleted)
		r.key("esc")
		r.advance(700 * time.Millisecond)
		r.key("esc")
		if r.m.overlay != nil {
			t.Errorf("overlay %T opened", r.m.overlay)
		}
	})
	t.Run("closes an open completion menu only", func(t *testing.T) {
		r := newRig(t)
		r.typeText("/he")
		if r.m.menu == nil {
			t.Fatal("no completion menu for /he")
		}
		r.contains(r.live(), "/help")
		r.key("esc")
		if r.m.menu != nil || r.m.ed.Value() != "/he" {
			t.Errorf("menu %v, editor %q", r.m.menu, r.m.ed.Value())
		}
		r.key("esc")
		r.advance(100 * time.Millisecond)
		r.key("esc") // a double Esc with nothing to undo: a notice, no selector
		if r.m.overlay != nil {
			t.Errorf("overlay %T", r.m.overlay)
		}
	})
}

// TestScenario39NewlineAndSubmit is spec 06 §10 scenario 39.
func TestScenario39NewlineAndSubmit(t *testing.T) {
	r := newRig(t)
	r.typeText("a")
	r.key("ctrl+j")
	r.typeText("b")
	r.key("enter")
	r.expectCalls(`prompt "a\nb"`)
	r.endTurn(event.EndCompleted)

	r.send(tea.PasteMsg{Content: "x\ny"})
	if r.m.ed.Value() != "x\ny" || r.m.ed.Lines() != 2 {
		t.Errorf("paste: editor %q", r.m.ed.Value())
	}
	r.expectCalls()
	r.m.ed.SetValue("a\nb")
	r.key("enter")
	r.endTurn(event.EndCompleted)

	b, err := os.ReadFile(editor.HistoryFile(r.m.o.Home, r.m.o.WorkDir))
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != "{\"content\":\"a\\nb\"}\n" {
		t.Errorf("history file %q; want one entry", b)
	}
}

// TestScenario40BusyCommands is spec 06 §10 scenario 40.
func TestScenario40BusyCommands(t *testing.T) {
	r := newRig(t)
	r.startTurn("long job")
	r.sess.Calls()

	r.typeText("/new")
	r.key("esc") // close the menu
	r.key("enter")
	r.contains(r.screen(), "Cannot /new while streaming — press Esc or Ctrl-C first.")
	r.expectCalls()
	r.m.ed.SetValue("")

	r.typeText("/yolo")
	r.key("enter")
	r.expectCalls("mode yolo")
	if f := r.m.Frame().Lines; !strings.HasPrefix(stripANSI(f[len(f)-2]), " yolo") {
		t.Errorf("footer line 1 %q does not start with yolo", stripANSI(f[len(f)-2]))
	}

	r.typeText("next question")
	r.key("enter")
	r.expectCalls()
	r.contains(r.live(), "↳ next question")
	r.typeText("/usr/bin/ls")
	r.key("enter")
	r.expectCalls()
	r.endTurn(event.EndCompleted)
	r.expectCalls(`prompt "next question"`)
	r.endTurn(event.EndCompleted)
	r.expectCalls(`prompt "/usr/bin/ls"`)
}

func writeApproval(id string) event.ApprovalRequested {
	return event.ApprovalRequested{Header: event.InTurn(1), RequestID: id, ToolCallID: "c1", ToolName: "Write",
		Action: "Write a.txt", Display: &loop.FileIODisplay{Operation: "write", Path: "a.txt", Content: "hello\n"}}
}

// TestScenario41ApprovalPanel is spec 06 §10 scenario 41 on the model
// (the session's side — the tool runs, the second Write runs without a
// panel, the model reads the rejection — is TestSessionApprovals).
func TestScenario41ApprovalPanel(t *testing.T) {
	r := newRig(t)
	r.startTurn("write it")
	r.sess.Calls()
	r.event(writeApproval("r1"))
	live := r.live()
	for _, want := range []string{"1 Approve once", "2 Approve for this session", "3 Approve always", "4 Reject", "5 Reject with feedback", "hello"} {
		r.contains(live, want)
	}
	r.lacks(live, "Waiting for the model") // the activity pane hides
	r.key("2")
	r.expectCalls(`approval r1 approve_session ""`)
	if r.m.overlay != nil {
		t.Error("the panel stayed open")
	}

	r.event(event.ApprovalRequested{Header: event.InTurn(1), RequestID: "r2", ToolName: "Bash",
		Display: &loop.CommandDisplay{Command: "sudo rm -rf ./build", Cwd: "/home/u/proj"}})
	r.contains(r.live(), "recursive delete")
	r.contains(r.live(), "$ sudo rm -rf ./build")
	r.key("esc")
	r.expectCalls(`approval r2 reject ""`)

	r.event(writeApproval("r3"))
	r.key("5")
	r.typeText("use b.txt")
	r.key("enter")
	r.expectCalls(`approval r3 reject "use b.txt"`)

	// A request withdrawn by the session closes its panel.
	r.event(writeApproval("r4"))
	r.event(event.RequestClosed{Header: event.InTurn(1), RequestID: "r4", Outcome: event.OutcomeCancelled})
	if r.m.overlay != nil {
		t.Error("a closed request left its panel open")
	}
}

// TestScenario43Footer is spec 06 §10 scenario 43.
func TestScenario43Footer(t *testing.T) {
	r := newRig(t, func(o *Options) {
		o.WorkDir = "/home/u/a/b/c/d"
		o.Effort = "high"
		o.Session = &planned{recorder: newRecorder(), on: true}
	})
	r.sess = r.m.sess.(*planned).recorder
	r.m.status.Permission = event.ModeYolo
	r.m.status.ContextTokens, r.m.status.MaxContextTokens = 30000, 131072
	r.m.touch()
	f := r.m.Frame().Lines
	l1, l2 := stripANSI(f[len(f)-2]), strings.TrimRight(stripANSI(f[len(f)-1]), " ")
	if !strings.HasPrefix(l1, " yolo plan  fake thinking: high") || !strings.Contains(l1, "…/b/c/d") {
		t.Errorf("line 1 %q", l1)
	}
	if !strings.HasSuffix(l2, "context: 23% (30k/131.1k)") {
		t.Errorf("line 2 %q", l2)
	}
}

// planned is a recorder in plan mode.
type planned struct {
	*recorder
	on bool
}

func (p *planned) PlanMode() bool { return p.on }
func (p *planned) SetPlanMode(_ context.Context, on bool) error {
	p.on = on
	p.log("plan %v", on)
	return nil
}

func TestQuestionDialog(t *testing.T) {
	r := newRig(t)
	r.startTurn("ask me")
	r.sess.Calls()
	r.event(event.QuestionRequested{Header: event.InTurn(1), RequestID: "q1", Questions: []event.Question{
		{Question: "Which database?", Header: "DB", Options: []event.QuestionOption{{Label: "Postgres"}, {Label: "SQLite"}}},
		{Question: "Which extras?", MultiSelect: true, Options: []event.QuestionOption{{Label: "Cache"}, {Label: "Queue"}, {Label: "Search"}}},
	}})
	r.contains(r.live(), "Which database?")
	r.key("2") // SQLite, next question
	r.contains(r.live(), "Which extras?")
	r.key("1")
	r.key("3")
	r.key("enter")
	r.contains(r.live(), "Review your answer before submit")
	r.contains(r.live(), "Cache, Search")
	r.key("enter")
	r.expectCalls(`question q1 [Which database?=SQLite Which extras?=Cache, Search]`)

	r.event(event.QuestionRequested{Header: event.InTurn(1), RequestID: "q2", Questions: []event.Question{
		{Question: "Name?", Options: []event.QuestionOption{{Label: "a"}, {Label: "b"}}}}})
	r.key("3") // Other
	r.typeText("mine")
	r.key("enter")
	r.key("enter") // submit
	r.expectCalls(`question q2 [Name?=mine]`)

	r.event(event.QuestionRequested{Header: event.InTurn(1), RequestID: "q3", Questions: []event.Question{
		{Question: "X?", Options: []event.QuestionOption{{Label: "a"}, {Label: "b"}}}}})
	r.key("esc")
	r.expectCalls(`question q3 []`)
}

// TestTurnTranscript renders a whole turn — thinking, text, a tool call
// with its result, the todo panel — and checks what lands in the
// scrollback, in order, printed once.
func TestTurnTranscript(t *testing.T) {
	r := newRig(t)
	r.startTurn("read a.go")
	r.event(event.ThinkingDelta{Header: event.InTurn(1), Delta: "I should read the file."})
	r.advance(frameInterval)
	r.contains(r.live(), "thinking...")
	r.event(event.AssistantDelta{Header: event.InTurn(1), Delta: "Let me read it.\n\nFirst paragraph done.\n\nSecond"})
	r.advance(frameInterval)
	r.contains(r.screen(), "Let me read it.")
	r.event(event.ToolCallDelta{Header: event.InTurn(1), ToolCallID: "c1", Name: "Read", ArgumentsPart: `{"path":"/home/u/proj/a.go"}`})
	r.event(event.ToolCallStarted{Header: event.InTurn(1), ToolCallID: "c1", Name: "Read", Args: json.RawMessage(`{"path":"/home/u/proj/a.go"}`)})
	r.contains(r.live(), "Using Read (a.go)")
	r.event(event.ToolResult{Header: event.InTurn(1), ToolCallID: "c1", Output: loop.TextOutput("package a\n\nfunc A() {}\n\nfunc B() {}\n")})
	r.event(event.ToolCallStarted{Header: event.InTurn(1), ToolCallID: "c2", Name: "TodoList",
		Args: json.RawMessage(`{"todos":[{"title":"read","status":"done"},{"title":"fix","status":"in_progress"}]}`)})
	r.event(event.ToolResult{Header: event.InTurn(1), ToolCallID: "c2", Output: loop.TextOutput("ok")})
	r.event(event.AssistantDelta{Header: event.InTurn(1), Delta: "It defines A and B."})
	r.endTurn(event.EndCompleted)
	screen := r.screen()
	order := []string{"✨ read a.go", "● I should read the file.", "● Let me read it.", "First paragraph done.", "Second",
		"● Used Read (a.go)", "package a", "... (2 more lines, ctrl+o to expand)", "● Used TodoList", "It defines A and B.", " Todo", "✓ read", "● fix"}
	pos := 0
	for _, s := range order {
		i := strings.Index(screen[pos:], s)
		if i < 0 {
			t.Fatalf("%q missing or out of order in:\n%s", s, screen)
		}
		pos += i + len(s)
	}
	if strings.Count(screen, "Let me read it.") != 1 {
		t.Errorf("text printed twice:\n%s", screen)
	}
}

// Ctrl-O opens the last turns in full; Ctrl-S steers the queue and the
// draft into the running turn; ↑ on an empty editor while a turn runs
// takes the last queued message back.
func TestExpandSteerAndRecall(t *testing.T) {
	r := newRig(t)
	r.startTurn("go")
	r.event(event.ThinkingDelta{Header: event.InTurn(1), Delta: "one\ntwo\nthree\nfour"})
	r.event(event.ToolCallStarted{Header: event.InTurn(1), ToolCallID: "c1", Name: "Bash", Args: json.RawMessage(`{"command":"seq 5"}`)})
	r.event(event.ToolResult{Header: event.InTurn(1), ToolCallID: "c1", Output: loop.TextOutput("1\n2\n3\n4\n5\n")})
	r.sess.Calls()
	r.typeText("first")
	r.key("enter")
	r.typeText("second")
	r.key("enter")
	r.contains(r.live(), "↳ first")
	r.key("up")
	if r.m.ed.Value() != "second" || len(r.m.queue) != 1 {
		t.Errorf("↑ recalled %q, queue %v", r.m.ed.Value(), r.m.queue)
	}
	r.key("ctrl+s")
	r.expectCalls(`steer "first"`, `steer "second"`)
	if len(r.m.queue) != 0 || !r.m.ed.Empty() {
		t.Errorf("after ctrl+s: queue %v, editor %q", r.m.queue, r.m.ed.Value())
	}
	r.endTurn(event.EndCompleted)
	r.key("ctrl+o")
	live := r.live()
	for _, want := range []string{"The last turns in full", "four", "  5"} {
		r.contains(live, want)
	}
	r.key("esc")
	if r.m.overlay != nil {
		t.Error("the expanded view stayed open")
	}
}
