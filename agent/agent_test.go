package agent_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent"
	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/scripted"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/loop/looptest"
)

func TestWaitForFirstRequest(t *testing.T) {
	h := newHarness(t)
	a := agentOf(h)
	hold := h.Held(scripted.Text("streaming"), 1)
	h.Start("go")
	if err := a.WaitForFirstRequest(t.Context()); err != nil {
		t.Errorf("WaitForFirstRequest = %v", err)
	}
	if len(eventsOf[event.AssistantDelta](h)) == 0 || len(eventsOf[event.StepCompleted](h)) != 0 {
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

// An OnEvent observer that panics never reaches the turn, and subscribers
// of the bus still get every event.
func TestEventObserverPanicIsContained(t *testing.T) {
	bus := event.NewBus(event.BusOptions{})
	sub := bus.Subscribe()
	a := agent.New(agent.Options{Model: agent.ModelBinding{Provider: scripted.New(scripted.Options{Responses: []scripted.Response{scripted.Text("fine")}})},
		Events: bus, OnEvent: func(event.Event) { panic("broken observer") }})
	defer a.Close(t.Context())
	if _, err := a.Prompt(t.Context(), text("hi"), nil); err != nil {
		t.Fatal(err)
	}
	res, err := a.WaitForCurrentTurn(t.Context())
	if err != nil || res.Event.Reason != event.EndCompleted {
		t.Fatalf("turn ended %+v, %v", res.Event, err)
	}
	var types []event.Type
	for len(types) == 0 || types[len(types)-1] != event.TypeTurnEnded {
		ev, err := sub.Next(t.Context())
		if err != nil {
			t.Fatalf("subscriber: %v after %v", err, types)
		}
		types = append(types, ev.EventType())
	}
	if types[0] != event.TypeTurnStarted {
		t.Errorf("subscriber got %v", types)
	}
}

// Every event an agent publishes names it, whatever produced it: the turn,
// the loop's deltas and tools, usage, compaction, errors.
func TestEveryEventCarriesTheAgentID(t *testing.T) {
	for _, id := range []string{"", "agent-3"} {
		bus := event.NewBus(event.BusOptions{})
		sub := bus.Subscribe()
		model := scripted.New(scripted.Options{Responses: []scripted.Response{
			withUsage(call("c1", "echo", `{"text":"x"}`), 10, 1), withUsage(scripted.Text("done"), 20, 2)}})
		a := agent.New(agent.Options{ID: id, Tools: []loop.ExecutableTool{looptest.Echo()}, Events: bus,
			Model: agent.ModelBinding{Provider: model, Capability: llm.Capability{ToolUse: true, MaxContextTokens: 1000}}})
		if _, err := a.Prompt(t.Context(), text("go"), nil); err != nil {
			t.Fatal(err)
		}
		if _, err := a.WaitForCurrentTurn(t.Context()); err != nil {
			t.Fatal(err)
		}
		if _, err := a.Prompt(t.Context(), nil, nil); err != nil { // refused? no: an empty prompt runs
			t.Fatal(err)
		}
		a.WaitForCurrentTurn(t.Context())
		if err := a.Compact(t.Context(), ""); err != nil {
			t.Logf("compact: %v", err)
		}
		if err := a.Close(t.Context()); err != nil {
			t.Fatal(err)
		}
		bus.Close()
		want := id
		if want == "" {
			want = agent.MainAgentID
		}
		seen := map[event.Type]bool{}
		var last uint64
		for {
			ev, err := sub.Next(t.Context())
			if err != nil {
				break
			}
			h := ev.EventHeader()
			if h.AgentID != want {
				t.Errorf("%s has agent id %q, want %q", ev.EventType(), h.AgentID, want)
			}
			if h.Seq <= last {
				t.Errorf("%s: seq %d after %d", ev.EventType(), h.Seq, last)
			}
			last = h.Seq
			seen[ev.EventType()] = true
		}
		for _, typ := range []event.Type{event.TypeTurnStarted, event.TypeStepStarted, event.TypeToolCallStarted,
			event.TypeToolResult, event.TypeAssistantDelta, event.TypeStepCompleted, event.TypeStatus, event.TypeTurnEnded} {
			if !seen[typ] {
				t.Errorf("agent %q published no %s", want, typ)
			}
		}
	}
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
	if err := a.Clear(t.Context()); !errors.As(err, &busy) || busy.Code() != event.CodeAgentBusy {
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
