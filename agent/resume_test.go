package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent"
	"github.com/kimigo/kimigo/agent/agenttest"
	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/permission"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/agent/replay"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/scripted"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/loop/looptest"
	"github.com/kimigo/kimigo/tools"
)

// Spec 02 §8.8 scenarios 51–60, as far as the subsystems exist.

func TestResumeS51NTurnsWithEverything(t *testing.T) {
	gate := looptest.NewGate()
	flaky := &looptest.Tool{Name: "Flaky", Accesses: loop.None(),
		Run: func(context.Context, json.RawMessage, loop.ExecCtx) (loop.ToolResult, error) {
			return loop.ToolResult{Output: loop.TextOutput("boom"), IsError: true,
				Note: "<system>Retry with a smaller input.</system>"}, nil
		}}
	approver := agenttest.AnswerAll(event.ApproveOnce)
	h := newHarness(t, agenttest.BuiltinTools(), agenttest.Permission(permission.Options{Approver: approver}),
		agenttest.Tools(looptest.Echo(), looptest.Gated("Wait", gate, loop.None()), flaky))
	a := agentOf(h)

	// Turn 0: two parallel calls, one of which writes the tool store.
	h.Model(scripted.ToolCalls(
		scripted.Call{ID: "c1", Name: tools.NameTodoList, Arguments: `{"todos":[{"title":"write tests","status":"in_progress"}]}`},
		scripted.Call{ID: "c2", Name: "echo", Arguments: `{"text":"hi"}`}),
		scripted.Text("Planned."))
	h.Prompt("plan the work")
	asked := len(approver.Requests()) // manual mode: echo asks
	if err := a.SetPermissionMode(t.Context(), permission.ModeYolo); err != nil {
		t.Fatal(err)
	}
	// Turn 1: text only.
	h.Model(scripted.Text("Nothing else."))
	h.Prompt("anything else?")
	// Turn 2: a tool error with a note, and a notification steered in
	// while the tools run.
	h.Model(scripted.ToolCalls(scripted.Call{ID: "c3", Name: "Flaky", Arguments: `{}`},
		scripted.Call{ID: "c4", Name: "Wait", Arguments: `{}`}), scripted.Text("Handled."))
	h.Start("try the flaky tool")
	<-gate.Started
	h.Steer(`<notification id="n1">build finished</notification>`, &history.Origin{Kind: history.OriginBackgroundTask,
		TaskID: "bg1", Status: "completed", NotificationID: "task:bg1:completed"})
	gate.Release()
	h.Wait()
	// Turn 3, then undo it.
	h.Model(scripted.Text("Bye."))
	h.Prompt("wrap up")
	if err := a.Undo(t.Context(), 1); err != nil {
		t.Fatal(err)
	}

	if asked != 1 || len(approver.Requests()) != asked {
		t.Errorf("approval requests: %d in manual mode (want 1), %d more in yolo (want 0)", asked, len(approver.Requests())-asked)
	}

	r := h.ExpectResumeMatches()
	if got := r.Agent.(host).Permission().Mode(); got != permission.ModeYolo {
		t.Errorf("resumed permission mode = %q, want yolo", got)
	}
	if got := r.Agent.CurrentTurnID(); got != 3 {
		t.Errorf("resumed turn counter = %d, want 3 (the next prompt starts turn 4)", got)
	}
	if _, ok := a.State(t.Context()).ToolStore[tools.StoreKeyTodo]; !ok {
		t.Error("the todo list never reached the tool store")
	}
	if d := cmp.Diff(summarize(r.Agent.History()), cardSummary(r.Cards)); d != "" {
		t.Errorf("replay cards differ from history (-history +cards):\n%s", d)
	}
	hist := summarize(a.History())
	if hist[len(hist)-1] != "assistant:Handled." {
		t.Errorf("undo left %q at the end", hist[len(hist)-1])
	}
}

func TestResumeS52TrailingInterruption(t *testing.T) {
	b := newLog(t).prompt("Read both", intp(0)).user("Read both").
		stepBegin("s0", 0).call("s0", "c1", 0).call("s0", "c2", 0).result("c1", "one", false)
	h := newHarness(t)
	r := h.Resume(b.records())
	appended := r.Store.Records()[len(b.recs):]
	if len(appended) != 1 {
		t.Fatalf("resume appended %d records, want 1: %v", len(appended), appended)
	}
	s := appended[0].String()
	if !strings.Contains(s, `"toolCallId":"c2"`) || !strings.Contains(s, `"isError":true`) ||
		!strings.Contains(s, "Tool execution was interrupted before its result was recorded") {
		t.Errorf("appended %s", s)
	}
	req, err := r.Agent.(host).Agent.NextRequest(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	last := req.Messages[len(req.Messages)-1]
	if last.ToolCallID != "c2" || !strings.HasPrefix(llm.ExtractText(last, ""), history.ToolErrorStatus+"\n") {
		t.Errorf("next request ends with %+v", last)
	}
	again := h.Resume(r.Store.Records())
	if n := len(again.Store.Records()) - len(r.Store.Records()); n != 0 {
		t.Errorf("a second resume appended %d records", n)
	}
}

// midHistoryLog is S53's log: a call interrupted by a crash, then the
// conversation went on.
func midHistoryLog(t *testing.T) *logBuilder {
	return newLog(t).prompt("Run the lookup", intp(0)).user("Run the lookup").
		stepBegin("s0", 0).call("s0", "c", 0).
		prompt("keep going", intp(1)).user("keep going").stepBegin("s1", 1).text("s1", "Done.", 1).stepEnd("s1", 1)
}

func TestResumeS53MidHistoryInterruption(t *testing.T) {
	b := midHistoryLog(t)
	r := newHarness(t).Resume(b.records())
	want := []string{"user:Run the lookup", "assistant:[c]", "tool:c:" + history.InterruptedOnResumeText(),
		"user:keep going", "assistant:Done."}
	hist := r.Agent.History()
	if d := cmp.Diff(want, summarize(hist)); d != "" {
		t.Errorf("history (-want +got):\n%s", d)
	}
	if !hist[2].IsError {
		t.Error("the close is not an error")
	}
	if n := len(r.Store.Records()) - len(b.recs); n != 0 {
		t.Errorf("resume appended %d records", n)
	}
	if d := cmp.Diff(want, cardSummary(r.Cards)); d != "" {
		t.Errorf("replay cards (-want +got):\n%s", d)
	}
}

func TestResumeS54StaleTailDuplicate(t *testing.T) {
	b := midHistoryLog(t).result("c", history.InterruptedOnResumeText(), true)
	hist := newHarness(t).Resume(b.records()).Agent.History()
	var at []int
	for i, m := range hist {
		if m.Role == llm.RoleTool && m.ToolCallID == "c" {
			at = append(at, i)
		}
	}
	if d := cmp.Diff([]int{2}, at); d != "" {
		t.Errorf("results for c at (-want +got):\n%s", d)
	}
}

func TestResumeS55ConsecutiveInterruptions(t *testing.T) {
	b := newLog(t).prompt("go", intp(0)).user("go").
		stepBegin("s0", 0).call("s0", "a", 0).
		stepBegin("s1", 1).call("s1", "b", 1).
		stepBegin("s2", 2).text("s2", "Recovered.", 2).stepEnd("s2", 2)
	hist := newHarness(t).Resume(b.records()).Agent.History()
	var roles []string
	for _, m := range hist {
		roles = append(roles, string(m.Role))
	}
	want := []string{"user", "assistant", "tool", "assistant", "tool", "assistant"}
	if d := cmp.Diff(want, roles); d != "" {
		t.Errorf("roles (-want +got):\n%s", d)
	}
	if hist[2].ToolCallID != "a" || hist[4].ToolCallID != "b" {
		t.Errorf("closes out of place: %q", summarize(hist))
	}
}

func TestResumeS56TurnCounter(t *testing.T) {
	goal := history.SystemTriggerOrigin(history.TriggerNameGoalContinue)
	b := newLog(t).prompt("reach the goal", nil).user("reach the goal").
		stepBegin("s0", 0).text("s0", "Step one.", 0).stepEnd("s0", 0)
	for _, id := range []int{1, 2} { // goal continuations write no turn.prompt
		step := "g" + string(rune('0'+id))
		b.message(history.Message{Message: llm.UserMessage("continue"), Origin: goal}).
			stepBegin(step, id).text(step, "More.", id).stepEnd(step, id)
	}
	model := scripted.New(scripted.Options{Responses: []scripted.Response{scripted.Text("three"), scripted.Text("four")}})
	resumeAndPrompt := func(recs []records.Record, wantTurn int) []records.Record {
		t.Helper()
		p := records.NewMemory(records.MemoryOptions{Records: recs})
		a := agent.New(agent.Options{Model: agent.ModelBinding{Provider: model}, Persistence: p})
		defer a.Close(context.WithoutCancel(t.Context()))
		if _, err := a.Resume(t.Context(), agent.ResumeOptions{}); err != nil {
			t.Fatal(err)
		}
		l, err := a.Prompt(t.Context(), text("next"), nil)
		if err != nil || l.TurnID != wantTurn {
			t.Errorf("next prompt = %+v, %v; want turn %d", l, err, wantTurn)
		}
		if _, err := a.WaitForCurrentTurn(t.Context()); err != nil {
			t.Fatal(err)
		}
		return p.Records()
	}
	recs := resumeAndPrompt(b.records(), 3)
	resumeAndPrompt(recs, 4)
}

func TestResumeS58OrphanResult(t *testing.T) {
	b := newLog(t).turn(0, "hi", "hello").result("ghost", "boo", false)
	hist := newHarness(t).Resume(b.records()).Agent.History()
	if d := cmp.Diff([]string{"user:hi", "assistant:hello"}, summarize(hist)); d != "" {
		t.Errorf("history (-want +got):\n%s", d)
	}
}

func TestResumeS59UndoReplay(t *testing.T) {
	b := newLog(t).turn(0, "one", "first").turn(1, "two", "second").
		add(records.Type(history.TypeUndo), history.UndoRecord{Count: 1})
	r := newHarness(t).Resume(b.records())
	want := []string{"user:one", "assistant:first"}
	if d := cmp.Diff(want, summarize(r.Agent.History())); d != "" {
		t.Errorf("history (-want +got):\n%s", d)
	}
	if d := cmp.Diff(want, cardSummary(r.Cards)); d != "" {
		t.Errorf("replay cards (-want +got):\n%s", d)
	}
}

func TestResumeS60ForkWithoutGoalAddsNothing(t *testing.T) {
	b := newLog(t).turn(0, "one", "first").add(records.TypeForked, nil)
	r := newHarness(t).Resume(b.records())
	if d := cmp.Diff([]string{"user:one", "assistant:first"}, summarize(r.Agent.History())); d != "" {
		t.Errorf("history (-want +got):\n%s", d)
	}
	if n := len(r.Store.Records()) - len(b.recs); n != 0 {
		t.Errorf("resume appended %d records", n)
	}
}

// cardSummary renders the message cards like summarize renders history.
func cardSummary(cards []replay.Card) []string {
	var msgs []history.Message
	for _, c := range cards {
		if c.Type == replay.CardMessage {
			msgs = append(msgs, *c.Message)
		}
	}
	return summarize(msgs)
}
