package agent_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent"
	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/agent/turn"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/scripted"
)

func TestWaitForFirstRequest(t *testing.T) {
	h := newHarness(t)
	a := agentOf(h)
	hold := h.Held(scripted.Text("streaming"), 1)
	h.Start("go")
	if err := a.WaitForFirstRequest(t.Context()); err != nil {
		t.Errorf("WaitForFirstRequest = %v", err)
	}
	if len(eventsOf[turn.AssistantDeltaEvent](h)) == 0 || len(eventsOf[turn.StepCompletedEvent](h)) != 0 {
		t.Errorf("WaitForFirstRequest returned at the wrong time: %v", h.EventTypes())
	}
	<-hold.Reached()
	hold.Release()
	h.Wait()

	h.Model(scripted.Response{Err: &llm.Error{Kind: llm.KindStatus, StatusCode: 400, Message: "400 no"}})
	h.Start("fails")
	if err := a.WaitForFirstRequest(t.Context()); err == nil {
		h.Wait()
		t.Error("WaitForFirstRequest succeeded for a turn that never got a response")
	}
	h.Wait()
	h.ExpectResumeMatches()
}

func TestEventSinkPanicIsContained(t *testing.T) {
	h := newHarness(t)
	a := agentOf(h)
	a.Subscribe(turn.EventFunc(func(turn.Event) { panic("broken UI") }))
	var after int
	unsubscribe := a.Subscribe(turn.EventFunc(func(turn.Event) { after++ }))
	h.Model(scripted.Text("fine"))
	if res := h.Prompt("hi"); res.Event.Reason != turn.EndCompleted {
		t.Errorf("turn ended %+v", res.Event)
	}
	if after == 0 {
		t.Error("a sink after the panicking one got nothing")
	}
	unsubscribe()
	seen := after
	h.Model(scripted.Text("again"))
	h.Prompt("hi")
	if after != seen {
		t.Error("an unsubscribed sink still gets events")
	}
	h.ExpectResumeMatches()
}

// Spec 02 §8.4 scenario 29 through the agent's commit path.
func TestHistoryS29ClearThroughAgent(t *testing.T) {
	h := newHarness(t)
	a := agentOf(h)
	h.Model(withUsage(scripted.Text("one"), 10, 2), scripted.Text("two"))
	h.Prompt("first")
	if err := a.Clear(t.Context()); err != nil {
		t.Fatal(err)
	}
	if a.TokenCount() != 0 || len(recordStrings(h, records.Type(history.TypeClear))) != 1 {
		t.Errorf("after Clear: tokens %d, clear records %q", a.TokenCount(), recordStrings(h, records.Type(history.TypeClear)))
	}
	h.Prompt("second")
	if d := cmp.Diff([]string{"second"}, texts(h.Requests()[1].Messages)); d != "" {
		t.Errorf("request after clear (-want +got):\n%s", d)
	}
	h.ExpectResumeMatches()
}

func TestUndoAndClearRefuseDuringATurn(t *testing.T) {
	h := newHarness(t)
	a := agentOf(h)
	hold := h.Held(scripted.Text("busy"), 0)
	h.Start("work")
	<-hold.Reached()
	var busy *agent.BusyError
	if err := a.Undo(t.Context(), 1); !errors.As(err, &busy) {
		t.Errorf("Undo during a turn = %v, want a BusyError", err)
	}
	if err := a.Clear(t.Context()); !errors.As(err, &busy) || busy.Code() != turn.CodeAgentBusy {
		t.Errorf("Clear during a turn = %v, want a BusyError", err)
	}
	hold.Release()
	h.Wait()
	if err := a.Undo(t.Context(), 2); err == nil || !strings.Contains(err.Error(), "only 1 prompt") {
		t.Errorf("Undo(2) of one prompt = %v", err)
	}
	h.ExpectResumeMatches()
}

func texts(msgs []llm.Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, llm.ExtractText(m, ""))
	}
	return out
}
