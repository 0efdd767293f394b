package history_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent/history"
	ht "github.com/kimigo/kimigo/agent/history/historytest"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/plainjson"
	"github.com/kimigo/kimigo/loop"
)

// agent plays the agent's commit path: every change is a record, encoded
// as the log would store it, then applied; resume decodes the records into
// a fresh Memory.
type agent struct {
	t     *testing.T
	mem   *history.Memory
	recs  []record
	cards []history.Message // the replay stream's message cards
}

type record struct {
	typ  history.RecordType
	data []byte
}

func newAgent(t *testing.T) *agent {
	return &agent{t: t, mem: history.New(history.Options{})}
}

func (a *agent) commit(p history.Payload) history.Change {
	a.t.Helper()
	b, err := plainjson.Marshal(p)
	if err != nil {
		a.t.Fatalf("encode %s: %v", p.RecordType(), err)
	}
	a.recs = append(a.recs, record{p.RecordType(), b})
	ch, err := a.mem.Apply(p)
	if err != nil {
		a.t.Fatalf("apply %s: %v", p.RecordType(), err)
	}
	a.cards = applyCards(a.cards, ch)
	return ch
}

func applyCards(cards []history.Message, ch history.Change) []history.Message {
	cards = append(cards, ch.Pushed...)
	for _, u := range ch.Updated {
		for i := range cards {
			if cards[i].Seq == u.Seq {
				cards[i] = u
			}
		}
	}
	for _, r := range ch.Removed {
		cards = slices.DeleteFunc(cards, func(c history.Message) bool { return c.Seq == r.Seq })
	}
	return cards
}

func (a *agent) append(m history.Message) history.Change {
	return a.commit(history.AppendMessageRecord{Message: m})
}

func (a *agent) event(ev loop.RecordedEvent) history.Change {
	return a.commit(history.AppendLoopEventRecord{Event: ev})
}

func (a *agent) stepBegin(uuid string) {
	a.event(loop.StepBeginEvent{UUID: uuid, TurnID: "1", Step: 1})
}

func (a *agent) call(step, id, name string) {
	a.event(loop.ToolCallEvent{UUID: id, TurnID: "1", Step: 1, StepUUID: step, ToolCallID: id, Name: name,
		Args: json.RawMessage(`{"path": "a.go", "b": 1}`)})
}

func (a *agent) result(id, output string) history.Change {
	return a.event(loop.ToolResultEvent{ParentUUID: id, ToolCallID: id, Result: loop.TextResult(output)})
}

func (a *agent) stepEnd(uuid string, usage *llm.TokenUsage) {
	a.event(loop.StepEndEvent{UUID: uuid, TurnID: "1", Step: 1, Usage: usage})
}

// resume rebuilds a Memory from the records, as Agent.Resume does.
func (a *agent) resume() (*history.Memory, []history.Message) {
	a.t.Helper()
	mem := history.New(history.Options{})
	var cards []history.Message
	for _, r := range a.recs {
		p, err := history.DecodeRecord(r.typ, r.data)
		if err != nil {
			a.t.Fatalf("decode %s %s: %v", r.typ, r.data, err)
		}
		ch, err := mem.Apply(p)
		if err != nil {
			a.t.Fatalf("replay %s: %v", r.typ, err)
		}
		cards = applyCards(cards, ch)
	}
	return mem, cards
}

// expectResumeMatches checks that resume rebuilds the same history, token
// count and replay cards.
func (a *agent) expectResumeMatches() *history.Memory {
	a.t.Helper()
	mem, cards := a.resume()
	if d := cmp.Diff(a.mem.History(), mem.History()); d != "" {
		a.t.Errorf("resumed history differs (-live +resumed):\n%s", d)
	}
	if a.mem.TokenCount() != mem.TokenCount() {
		a.t.Errorf("resumed token count %d, live %d", mem.TokenCount(), a.mem.TokenCount())
	}
	if d := cmp.Diff(a.cards, cards); d != "" {
		a.t.Errorf("resumed replay cards differ (-live +resumed):\n%s", d)
	}
	if d := cmp.Diff(a.mem.Deferred(), mem.Deferred(), cmpEmpty); d != "" {
		a.t.Errorf("resumed deferred messages differ:\n%s", d)
	}
	return mem
}

func historyRoles(h []history.Message) []string {
	msgs := make([]llm.Message, len(h))
	for i, m := range h {
		msgs[i] = m.Message
	}
	return roles(msgs)
}

func TestS23Deferral(t *testing.T) {
	a := newAgent(t)
	a.append(U("write and load the skill"))
	a.stepBegin("s")
	a.call("s", "write", "Write")
	a.call("s", "skill", "Skill")
	if ch := a.append(history.SystemReminder("skill loaded", history.InjectionOrigin("skill"))); !ch.Deferred {
		t.Error("reminder was not deferred behind the open exchange")
	}
	a.stepEnd("s", nil)
	a.result("write", "ok")
	if d := cmp.Diff([]string{"user", "assistant", "tool:write"}, historyRoles(a.mem.History())); d != "" {
		t.Errorf("history after the first result (-want +got):\n%s", d)
	}
	ch := a.result("skill", "loaded")
	if len(ch.Pushed) != 2 || ch.Pushed[1].Role != llm.RoleUser {
		t.Errorf("closing result pushed %v, want the result and the reminder", historyRoles(ch.Pushed))
	}
	if d := cmp.Diff([]string{"user", "assistant", "tool:write", "tool:skill", "user"}, roles(a.mem.Messages())); d != "" {
		t.Errorf("projection (-want +got):\n%s", d)
	}
	a.expectResumeMatches()
}

func TestS23ResumeWithReminderStillDeferred(t *testing.T) {
	a := newAgent(t)
	a.append(U("go"))
	a.stepBegin("s")
	a.call("s", "c1", "Write")
	a.append(I("later"))
	mem := a.expectResumeMatches()
	if got := len(mem.Deferred()); got != 1 {
		t.Errorf("resumed memory has %d deferred messages, want 1", got)
	}
}

func TestS24EarlyInsertion(t *testing.T) {
	a := newAgent(t)
	a.append(U("go"))
	a.stepBegin("s")
	if ch := a.append(N("task done")); ch.Deferred {
		t.Error("a message before the first call was deferred")
	}
	a.call("s", "c1", "Read")
	a.stepEnd("s", nil)
	a.result("c1", "body")
	if d := cmp.Diff([]string{"user", "assistant", "user", "tool:c1"}, historyRoles(a.mem.History())); d != "" {
		t.Errorf("history (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"user", "assistant", "tool:c1", "user"}, roles(a.mem.Messages())); d != "" {
		t.Errorf("projection (-want +got):\n%s", d)
	}
	a.expectResumeMatches()
}

func TestS25BadEvents(t *testing.T) {
	mem := history.New(history.Options{})
	for _, ev := range []loop.RecordedEvent{
		loop.ContentPartEvent{StepUUID: "nope", Part: llm.TextPart("x")},
		loop.ToolCallEvent{StepUUID: "nope", ToolCallID: "c"},
	} {
		_, err := mem.AppendLoopEvent(ev)
		var unknown *history.UnknownStepError
		if !errors.As(err, &unknown) || unknown.StepUUID != "nope" || !strings.Contains(err.Error(), "unknown step_uuid 'nope'") {
			t.Errorf("%T: err = %v, want an unknown-step error", ev, err)
		}
	}

	a := newAgent(t)
	a.append(U("u"))
	before := a.mem.History()
	n := len(a.recs)
	if ch := a.result("never-called", "late"); len(ch.Pushed) != 0 {
		t.Errorf("a result for a call that is not pending pushed %v", ch.Pushed)
	}
	if len(a.recs) != n+1 {
		t.Error("the ignored result was not recorded")
	}
	if d := cmp.Diff(before, a.mem.History()); d != "" {
		t.Errorf("history changed:\n%s", d)
	}
}

func TestS26TokenAccounting(t *testing.T) {
	a := newAgent(t)
	a.append(U("count"))
	a.stepBegin("s1")
	a.call("s1", "c1", "Read")
	a.result("c1", "some output text")
	a.stepEnd("s1", &llm.TokenUsage{InputOther: 1200, Output: 80})
	if got := a.mem.TokenCount(); got != 1280 {
		t.Errorf("TokenCount = %d, want 1280", got)
	}
	toolEstimate := llm.EstimateMessage(a.mem.History()[2].Message)
	if got := a.mem.TokenCountWithPending(); got != 1280+toolEstimate {
		t.Errorf("TokenCountWithPending = %d, want %d", got, 1280+toolEstimate)
	}
	a.stepBegin("s2")
	a.event(loop.ContentPartEvent{StepUUID: "s2", Part: llm.TextPart("done")})
	a.stepEnd("s2", &llm.TokenUsage{})
	h := a.mem.History()
	want := 1280 + llm.EstimateMessage(h[2].Message) + llm.EstimateMessage(h[3].Message)
	if got := a.mem.TokenCount(); got != want {
		t.Errorf("after a zero-usage step TokenCount = %d, want %d", got, want)
	}
	if got := a.mem.TokenCountWithPending(); got != want {
		t.Errorf("TokenCountWithPending = %d, want %d (everything covered)", got, want)
	}
	a.commit(history.UpdateTokenCountRecord{TokenCount: 42})
	if a.mem.TokenCount() != 42 || a.mem.TokenCountWithPending() != 42 {
		t.Errorf("after UpdateTokenCount: %d / %d", a.mem.TokenCount(), a.mem.TokenCountWithPending())
	}
	a.expectResumeMatches()
}

func TestS27UndoCounting(t *testing.T) {
	for _, tt := range []struct {
		name  string
		h     []history.Message
		count int
		want  []string
	}{
		{"notification and answer go with the prompt", []history.Message{U("1"), A("a1"), U("2"), A("a2"), N("n")}, 1, []string{"1", "a1"}},
		{"injection stays in place", []history.Message{U("do the work"), I("plan mode"), A("work done")}, 1, []string{"plan mode"}},
		{"two prompts", []history.Message{U("1"), A("a1"), U("2"), A("a2")}, 2, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := newAgent(t)
			for _, m := range tt.h {
				a.append(m)
			}
			rec, ok := a.mem.UndoRecord(tt.count)
			if !ok {
				t.Fatal("UndoRecord refused")
			}
			ch := a.commit(rec)
			if ch.Undone == nil || ch.Undone.Err() != nil {
				t.Errorf("undo result %+v", ch.Undone)
			}
			if d := cmp.Diff(tt.want, texts(a.mem.Messages()), cmpEmpty); d != "" {
				t.Errorf("history (-want +got):\n%s", d)
			}
			var cardTexts []string
			for _, c := range a.cards {
				cardTexts = append(cardTexts, llm.ExtractText(c.Message, ""))
			}
			if d := cmp.Diff(tt.want, cardTexts, cmpEmpty); d != "" {
				t.Errorf("replay cards (-want +got):\n%s", d)
			}
			a.expectResumeMatches()
		})
	}
	if _, ok := history.New(history.Options{}).UndoRecord(1); ok {
		t.Error("UndoRecord on an empty history asked for a record")
	}
	if _, ok := memoryWith(t, history.Options{}, U("x")).UndoRecord(0); ok {
		t.Error("UndoRecord(0) asked for a record")
	}
}

func TestS28UndoStopsAtCompaction(t *testing.T) {
	a := newAgent(t)
	for _, m := range []history.Message{U("old"), S("summary"), U("recent"), A("answer")} {
		a.append(m)
	}
	ch := a.commit(history.UndoRecord{Count: 2})
	err := ch.Undone.Err()
	const want = "Cannot undo 2 prompts; only 1 prompt can be undone in the active context after the last compaction."
	var herr *history.Error
	if !errors.As(err, &herr) || herr.Message != want || herr.Code != history.CodeRequestInvalid || herr.Reason != history.ReasonUndoLimit {
		t.Fatalf("err = %v, want %q", err, want)
	}
	if herr.Details["undoableCount"] != 1 || herr.Details["stoppedAtCompaction"] != true {
		t.Errorf("details = %v", herr.Details)
	}
	if d := cmp.Diff([]string{"old", "summary"}, texts(a.mem.Messages())); d != "" {
		t.Errorf("history (-want +got):\n%s", d)
	}
	last := a.recs[len(a.recs)-1]
	if last.typ != history.TypeUndo || string(last.data) != `{"count":2}` {
		t.Errorf("last record %s %s", last.typ, last.data)
	}
	a.expectResumeMatches() // replaying the record never fails
}

func TestS29Clear(t *testing.T) {
	a := newAgent(t)
	a.append(U("before"))
	a.stepBegin("s")
	a.stepEnd("s", &llm.TokenUsage{InputOther: 500})
	cleared := 0
	a.mem = history.New(history.Options{Hooks: history.Hooks{Cleared: func() { cleared++ }}})
	for _, r := range a.recs { // rebuild with the hook installed
		p, _ := history.DecodeRecord(r.typ, r.data)
		if _, err := a.mem.Apply(p); err != nil {
			t.Fatal(err)
		}
	}
	ch := a.commit(history.ClearRecord{})
	if !ch.Replaced || cleared != 1 {
		t.Errorf("Clear: replaced=%v, hook ran %d times", ch.Replaced, cleared)
	}
	if a.recs[len(a.recs)-1].typ != history.TypeClear {
		t.Error("no context.clear record")
	}
	if a.mem.TokenCount() != 0 || a.mem.Len() != 0 {
		t.Errorf("after Clear: %d tokens, %d messages", a.mem.TokenCount(), a.mem.Len())
	}
	a.append(U("after"))
	if d := cmp.Diff([]string{"after"}, texts(a.mem.Messages())); d != "" {
		t.Errorf("next request (-want +got):\n%s", d)
	}
	mem, _ := a.resume()
	if d := cmp.Diff([]string{"after"}, texts(mem.Messages())); d != "" {
		t.Errorf("resumed (-want +got):\n%s", d)
	}
}

func TestS30AbandonedExchange(t *testing.T) {
	a := newAgent(t)
	a.append(U("go"))
	a.stepBegin("s")
	a.call("s", "c1", "Bash")
	a.call("s", "c2", "Read")
	a.result("c1", "ran")
	const cause = "The tool call did not complete because the turn was cancelled before its result was recorded."
	evs := a.mem.CloseEvents(cause) // end of the live turn
	if len(evs) != 1 || evs[0].ToolCallID != "c2" || !evs[0].Result.IsError {
		t.Fatalf("CloseEvents = %+v", evs)
	}
	for _, ev := range evs {
		a.event(ev)
	}
	last := a.recs[len(a.recs)-1]
	if last.typ != history.TypeAppendLoopEvent || !strings.Contains(string(last.data), `"type":"tool.result"`) {
		t.Errorf("close record = %s %s", last.typ, last.data)
	}
	if ch := a.append(U("next")); ch.Deferred || len(ch.Pushed) != 1 {
		t.Errorf("message after the close: %+v", ch)
	}
	got := a.mem.Messages()
	if d := cmp.Diff([]string{"user", "assistant", "tool:c1", "tool:c2", "user"}, roles(got)); d != "" {
		t.Errorf("projection (-want +got):\n%s", d)
	}
	if text := llm.ExtractText(got[3], ""); text != history.ToolErrorStatus+"\n"+cause {
		t.Errorf("closed result = %q", text)
	}
	a.expectResumeMatches()
}

func TestResumeClosesMidHistoryGapInPlace(t *testing.T) {
	// A process died mid-tool, and a later turn ran: the next step.begin
	// closes the gap without a record, the same way on every resume.
	var rec logRecorder
	a := newAgent(t)
	a.mem = history.New(history.Options{Logger: rec.logger()})
	a.append(U("Run the lookup"))
	a.stepBegin("s1")
	a.call("s1", "c", "Lookup")
	a.append(U("keep going")) // deferred behind c
	a.stepBegin("s2")
	a.event(loop.ContentPartEvent{StepUUID: "s2", Part: llm.TextPart("ok")})
	a.stepEnd("s2", nil)
	h := a.mem.History()
	if d := cmp.Diff([]string{"user", "assistant", "tool:c", "user", "assistant"}, historyRoles(h)); d != "" {
		t.Errorf("history (-want +got):\n%s", d)
	}
	if !h[2].IsError || !strings.Contains(llm.ExtractText(h[2].Message, ""), "Tool execution was interrupted before its result was recorded") {
		t.Errorf("closed result = %+v", h[2])
	}
	if lines := rec.lines(); len(lines) != 1 || !strings.Contains(lines[0], "closed unresolved tool calls at a step boundary") {
		t.Errorf("log = %q", lines)
	}
	a.expectResumeMatches()
}

func TestFinishResumeClosesTrailingCalls(t *testing.T) {
	a := newAgent(t)
	a.append(U("go"))
	a.stepBegin("s")
	a.call("s", "c1", "Read")
	a.call("s", "c2", "Read")
	a.result("c1", "done")
	mem, _ := a.resume()
	evs := mem.CloseEvents(history.InterruptedOnResumeText())
	if len(evs) != 1 || evs[0].ToolCallID != "c2" {
		t.Fatalf("CloseEvents = %+v", evs)
	}
	mem.ForgetOpenSteps()
	if _, err := mem.AppendLoopEvent(loop.ContentPartEvent{StepUUID: "s"}); err == nil {
		t.Error("the open step survived ForgetOpenSteps")
	}
	for _, ev := range evs {
		if _, err := mem.AppendLoopEvent(ev); err != nil {
			t.Fatal(err)
		}
	}
	got := mem.Messages()
	if text := llm.ExtractText(got[len(got)-1], ""); !strings.HasPrefix(text, history.ToolErrorStatus+"\nTool execution was interrupted") {
		t.Errorf("closed result renders as %q", text)
	}
	if len(mem.Pending()) != 0 {
		t.Errorf("still pending: %v", mem.Pending())
	}
}

func TestToolCallArgumentsKeepKeyOrder(t *testing.T) {
	a := newAgent(t)
	a.append(U("u"))
	a.stepBegin("s")
	a.call("s", "c1", "Read")
	a.event(loop.ToolCallEvent{StepUUID: "s", ToolCallID: "c2", Name: "Ls"})
	calls := a.mem.History()[1].ToolCalls
	if calls[0].Arguments != `{"path":"a.go","b":1}` || calls[1].Arguments != "" {
		t.Errorf("arguments = %q, %q", calls[0].Arguments, calls[1].Arguments)
	}
	a.expectResumeMatches()
}

func TestToolCallDisplaysAndExtras(t *testing.T) {
	a := newAgent(t)
	a.append(U("u"))
	a.stepBegin("s")
	a.event(loop.ToolCallEvent{StepUUID: "s", ToolCallID: "c1", Name: "Write", Args: json.RawMessage(`{}`),
		Display: &loop.DiffDisplay{Path: "a.go", Before: "x", After: "y"}, Extras: json.RawMessage(`{"sig":"s"}`)})
	msg := a.mem.History()[1]
	if d, ok := msg.ToolCallDisplays["c1"].(*loop.DiffDisplay); !ok || d.Path != "a.go" {
		t.Errorf("display = %#v", msg.ToolCallDisplays["c1"])
	}
	if string(msg.ToolCalls[0].Extras) != `{"sig":"s"}` {
		t.Errorf("extras = %s", msg.ToolCalls[0].Extras)
	}
	if projected := a.mem.Messages()[1]; string(projected.ToolCalls[0].Extras) != `{"sig":"s"}` {
		t.Error("extras did not reach the wire view")
	}
	a.expectResumeMatches()
}

func TestPopMatchedMessage(t *testing.T) {
	isSwarm := func(o *history.Origin) bool { return o.Is(history.OriginInjection) && o.Variant == "swarm_mode" }
	swarm := history.SystemReminder("swarm on", history.InjectionOrigin("swarm_mode"))
	mem := memoryWith(t, history.Options{}, U("u"), swarm)
	if ok, ch := mem.PopMatchedMessage(isSwarm); !ok || len(ch.Removed) != 1 || mem.Len() != 1 {
		t.Errorf("pop from history: ok=%v removed=%d len=%d", ok, len(ch.Removed), mem.Len())
	}
	if ok, _ := mem.PopMatchedMessage(isSwarm); ok {
		t.Error("popped a message that does not match")
	}
	// A deferred message is looked at first.
	mem.AppendLoopEvent(loop.StepBeginEvent{UUID: "s"})
	mem.AppendLoopEvent(loop.ToolCallEvent{StepUUID: "s", ToolCallID: "c"})
	mem.AppendMessage(swarm)
	if ok, _ := mem.PopMatchedMessage(isSwarm); !ok || len(mem.Deferred()) != 0 {
		t.Errorf("pop from deferred: ok=%v deferred=%d", ok, len(mem.Deferred()))
	}
}

func TestSnapshotsNeverChange(t *testing.T) {
	mem := history.New(history.Options{})
	mem.AppendMessage(U("u"))
	mem.AppendLoopEvent(loop.StepBeginEvent{UUID: "s"})
	snap := mem.History()
	want := ht.Clone(snap)

	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // a request builder projects the snapshot meanwhile
		defer wg.Done()
		for range 50 {
			_ = history.Project(snap, history.StrictOptions())
		}
	}()
	for i := range 20 {
		mem.AppendLoopEvent(loop.ContentPartEvent{StepUUID: "s", Part: llm.TextPart("part")})
		mem.AppendLoopEvent(loop.ToolCallEvent{StepUUID: "s", ToolCallID: string(rune('a' + i)),
			Display: &loop.SearchDisplay{Query: "q"}})
		mem.AppendLoopEvent(loop.ToolResultEvent{ToolCallID: string(rune('a' + i)), Result: loop.TextResult("r")})
	}
	mem.Undo(1)
	mem.AppendMessage(U("again"))
	wg.Wait()
	if d := cmp.Diff(want, snap); d != "" {
		t.Errorf("snapshot changed (-before +after):\n%s", d)
	}
}
