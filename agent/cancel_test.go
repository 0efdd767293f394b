package agent_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent/agenttest"
	"github.com/kimigo/kimigo/agent/permission"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/agent/turn"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/scripted"
	"github.com/kimigo/kimigo/loop"
)

// Spec 03 §8 scenarios 6–9: cancellation.

func TestTurnS6CancelMidStream(t *testing.T) {
	hooks := &agenttest.Hooks{}
	h := newHarness(t, agenttest.HookRunner(hooks))
	a := agentOf(h)
	hold := h.Held(scripted.Response{Parts: []llm.StreamPart{
		llm.ContentStreamPart(llm.TextPart("Hel")), llm.ContentStreamPart(llm.TextPart("lo")),
	}}, 1)
	h.Start("greet me")
	<-hold.Reached()
	if err := a.Cancel(t.Context(), nil, nil); err != nil {
		t.Fatal(err)
	}
	if a.HasActiveTurn() {
		t.Error("HasActiveTurn() = true when Cancel returned")
	}
	res := h.Wait()
	if res.Event.Reason != event.EndCancelled {
		t.Errorf("turn ended %+v", res.Event)
	}
	if !hold.Cancelled() {
		t.Error("the provider request was not cancelled")
	}
	types := h.EventTypes()
	if d := cmp.Diff([]event.Type{event.TypeStepInterrupted, event.TypeTurnEnded}, types[len(types)-2:]); d != "" {
		t.Errorf("last events (-want +got):\n%s", d)
	}
	if si := eventsOf[event.StepInterrupted](h); len(si) != 1 || si[0].Step != 1 || si[0].Reason != loop.InterruptAborted {
		t.Errorf("turn.step.interrupted = %+v", si)
	}
	for _, r := range h.Records() {
		if s := r.String(); strings.Contains(s, `"type":"content.part"`) || strings.Contains(s, `"type":"step.end"`) {
			t.Errorf("cancelled step recorded %s", s)
		}
	}
	for _, m := range a.History() {
		if strings.Contains(llm.ExtractText(m.Message, ""), "Hel") {
			t.Errorf("history holds the partial text: %+v", m)
		}
	}
	interrupts := hooks.Calls(turn.HookInterrupt)
	if len(interrupts) != 1 || interrupts[0].Input["turnId"] != 0 || interrupts[0].Input["reason"] != "cancelled" {
		t.Errorf("Interrupt hooks = %+v", interrupts)
	}
	h.Model(scripted.Text("Hello!"))
	if l := h.Start("again"); l.TurnID != 1 || !l.Launched {
		t.Errorf("next prompt = %+v, want turn 1", l)
	}
	if res := h.Wait(); res.Event.Reason != event.EndCompleted {
		t.Errorf("next turn ended %+v", res.Event)
	}
	h.ExpectResumeMatches()
}

// With the real chain, this is also spec 04 §10 scenario 55: cancelling
// the turn cancels the pending approval request; the call gets the
// user-interrupted wording, nothing is recorded for the request, and the
// observer hooks report the error.
func TestTurnS7CancelDuringApproval(t *testing.T) {
	approver := agenttest.NewApprover()
	hooks := &agenttest.Hooks{}
	bash := bashTool()
	h := newHarness(t, agenttest.Permission(permission.Options{Approver: approver}), agenttest.Tools(bash),
		agenttest.HookRunner(hooks))
	h.Model(call("c1", "Bash", `{"command":"rm -rf build"}`))
	h.Start("clean up")
	approver.Next(t)
	if err := agentOf(h).Cancel(t.Context(), nil, nil); err != nil {
		t.Fatal(err)
	}
	if res := h.Wait(); res.Event.Reason != event.EndCancelled {
		t.Errorf("turn ended %+v", res.Event)
	}
	results := eventsOf[event.ToolResult](h)
	if len(results) != 1 || !results[0].IsError ||
		!strings.Contains(results[0].Output.Text(), `The user deliberately interrupted tool "Bash"`) {
		t.Errorf("tool.result = %+v", results)
	}
	types := h.EventTypes()
	want := []event.Type{event.TypeToolResult, event.TypeStepInterrupted, event.TypeTurnEnded}
	if d := cmp.Diff(want, types[len(types)-3:]); d != "" {
		t.Errorf("last events (-want +got):\n%s", d)
	}
	if n := len(bash.Executions()); n != 0 {
		t.Errorf("the command ran %d times", n)
	}
	if d := cmp.Diff([]string{"c1"}, approver.Cancelled()); d != "" {
		t.Errorf("cancelled approval requests (-want +got):\n%s", d)
	}
	if got := recordStrings(h, records.Type(permission.TypeApprovalResult)); len(got) != 0 {
		t.Errorf("approval records = %q, want none for a cancelled request", got)
	}
	req := hooks.Calls(turn.HookEvent(permission.HookPermissionRequest))
	if len(req) != 1 || req[0].Input["toolName"] != "Bash" || req[0].Awaited {
		t.Errorf("PermissionRequest hooks = %+v", req)
	}
	res := hooks.Calls(turn.HookEvent(permission.HookPermissionResult))
	if len(res) != 1 || res[0].Input["decision"] != "error" {
		t.Errorf("PermissionResult hooks = %+v, want one with decision error", res)
	}
	h.ExpectResumeMatches()
}

func TestTurnS8CancelOfAnotherTurnIsIgnored(t *testing.T) {
	h := newHarness(t)
	for range 3 {
		h.Model(scripted.Text("ok"))
		h.Prompt("warm up")
	}
	hold := h.Held(scripted.Text("still going"), 1)
	if l := h.Start("turn three"); l.TurnID != 3 {
		t.Fatalf("prompt got turn %d, want 3", l.TurnID)
	}
	<-hold.Reached()
	two := 2
	if err := agentOf(h).Cancel(t.Context(), &two, nil); err != nil {
		t.Fatal(err)
	}
	if !agentOf(h).HasActiveTurn() {
		t.Error("turn 3 stopped")
	}
	if !slicesContain(recordStrings(h, turn.TypeCancel), `{"type":"turn.cancel","turnId":2,"time":1767323045000}`) {
		t.Errorf("turn.cancel records = %q", recordStrings(h, turn.TypeCancel))
	}
	hold.Release()
	if res := h.Wait(); res.Event.Reason != event.EndCompleted || res.Event.TurnID != 3 {
		t.Errorf("turn 3 ended %+v", res.Event)
	}
	h.ExpectResumeMatches()
}

func TestTurnS9ProgrammaticCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hooks := &agenttest.Hooks{}
		h := newHarness(t, agenttest.HookRunner(hooks))
		h.Held(scripted.Text("never finishes"), 0)
		h.Start("wait for me")
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		start := time.Now()
		if _, err := h.Agent().WaitForCurrentTurn(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("WaitForCurrentTurn = %v, want the deadline", err)
		}
		if waited := time.Since(start); waited != time.Second {
			t.Errorf("waited %v, want 1s", waited)
		}
		if res := h.Wait(); res.Event.Reason != event.EndCancelled {
			t.Errorf("turn ended %+v", res.Event)
		}
		if n := len(hooks.Calls(turn.HookInterrupt)); n != 0 {
			t.Errorf("Interrupt fired %d times for a programmatic cancel", n)
		}
		h.ExpectResumeMatches()
	})
}
