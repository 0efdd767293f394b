package agent_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent/agenttest"
	"github.com/kimigo/kimigo/agent/compaction"
	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/replay"
	"github.com/kimigo/kimigo/agent/turn"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/llmtest"
)

// toolSession runs one turn of n Read round trips and a final answer.
func toolSession(t *testing.T, srv *llmtest.Server, h interface{ Prompt(string) turn.Result }, n int) {
	t.Helper()
	for i := range n {
		srv.Add(llmtest.ToolCall("c"+strings.Repeat("i", i+1), "Read", `{"path":"a.go"}`))
	}
	srv.Add(llmtest.Text("a.go holds the parser"))
	if res := h.Prompt("what does a.go hold?"); res.Event.Reason != event.EndCompleted {
		t.Fatalf("turn ended %s: %+v", res.Event.Reason, res.Event.Error)
	}
}

// A manual compaction with a focus instruction rewrites history through
// its records; resume rebuilds the compacted history from them without
// calling the model, and the replay stream shows the compaction.
func TestCompactManualWithInstructionAndResume(t *testing.T) {
	hooks := &agenttest.Hooks{}
	srv, h := wire(t, 0, 200_000, readToolOption(), agenttest.HookRunner(hooks))
	toolSession(t, srv, h, 2)
	srv.Add(llmtest.Text("The parser lives in a.go; next I test it."))
	a := agentOf(h)
	if err := a.Compact(t.Context(), "  focus on the parser  "); err != nil {
		t.Fatalf("Compact: %v", err)
	}
	sum := wireMessages(t, srv.Request(len(srv.Requests())-1))
	if last := sum[len(sum)-1].Text; !strings.Contains(last, summaryMarker) || !strings.Contains(last, "focus on the parser") {
		t.Errorf("summary instruction lacks the focus: %q", last)
	}
	if d := cmp.Diff([]string{"user:what does a.go hold?", "user:" + prefixText(t, a.History()[1])}, summarize(a.History())); d != "" {
		t.Errorf("history (-want +got):\n%s", d)
	}
	var begin compaction.BeginRecord
	for _, r := range h.Records() {
		if r.Type == typeBegin {
			if err := decode(r, &begin); err != nil {
				t.Fatal(err)
			}
		}
	}
	if begin.Source != compaction.SourceManual || begin.Instruction != "  focus on the parser  " {
		t.Errorf("begin record %+v", begin)
	}
	if d := cmp.Diff([]event.Type{event.TypeCompactionStarted, event.TypeCompactionCompleted}, compactionTypes(h)); d != "" {
		t.Errorf("events (-want +got):\n%s", d)
	}
	// PreCompact is awaited before the summary request, PostCompact fired
	// after the rewrite; both match on the trigger.
	calls := hooks.Calls(turn.HookPreCompact, turn.HookPostCompact)
	if len(calls) != 2 || !calls[0].Awaited || calls[0].Matcher != "manual" || calls[0].Input["trigger"] != "manual" ||
		calls[0].Input["tokenCount"].(int) <= 0 || calls[1].Awaited || calls[1].Event != turn.HookPostCompact ||
		calls[1].Input["estimatedTokenCount"].(int) <= 0 {
		t.Errorf("compaction hooks = %+v", calls)
	}
	r := h.ExpectResumeMatches() // its model fails the test when called
	var card *replay.Card
	for i := range r.Cards {
		if r.Cards[i].Type == replay.CardCompaction {
			card = &r.Cards[i]
		}
	}
	if card == nil || card.Result == nil || card.Cancelled || card.Result.Summary != "The parser lives in a.go; next I test it." {
		t.Errorf("replay compaction card = %+v", card)
	}
}

// prefixText is the text of the summary message m.
func prefixText(t *testing.T, m history.Message) string {
	t.Helper()
	if !m.Origin.Is(history.OriginCompactionSummary) {
		t.Fatalf("message %q is not a compaction summary", llm.ExtractText(m.Message, ""))
	}
	return llm.ExtractText(m.Message, "")
}

// Cancelling a manual compaction during its round leaves history
// byte-identical to before it started (the cancel acceptance test).
func TestCompactCancelLeavesHistoryByteIdentical(t *testing.T) {
	srv, h := wire(t, 0, 200_000, readToolOption())
	toolSession(t, srv, h, 3)
	a := agentOf(h)
	before := historyJSON(t, a.History())
	tokens := a.TokenCount()
	held := newHold(t)
	srv.Respond(func(*llmtest.Request) llmtest.Reply { held.wait(); return llmtest.Text("too late") })
	done := make(chan error, 1)
	go func() { done <- a.Compact(context.WithoutCancel(t.Context()), "") }()
	<-held.arrived
	if !a.IsCompacting() {
		t.Error("IsCompacting is false during the round")
	}
	if err := a.CancelCompaction(t.Context()); err != nil {
		t.Fatalf("CancelCompaction: %v", err)
	}
	held.Release()
	if err := <-done; err != nil {
		t.Errorf("Compact of a cancelled compaction = %v; want nil", err)
	}
	if got := historyJSON(t, a.History()); got != before || a.TokenCount() != tokens {
		t.Errorf("history changed:\n%s\nwant\n%s", got, before)
	}
	if countType(h, typeApply) != 0 || countType(h, typeCancel) != 1 || countType(h, typeComplete) != 0 {
		t.Errorf("records: %d apply, %d cancel, %d complete", countType(h, typeApply), countType(h, typeCancel),
			countType(h, typeComplete))
	}
	if d := cmp.Diff([]event.Type{event.TypeCompactionStarted, event.TypeCompactionCancelled}, compactionTypes(h)); d != "" {
		t.Errorf("events (-want +got):\n%s", d)
	}
	h.ExpectResumeMatches()
}

// Cancelling Compact's context cancels the compaction it started.
func TestCompactContextCancelStopsTheRound(t *testing.T) {
	srv, h := wire(t, 0, 200_000, readToolOption())
	toolSession(t, srv, h, 1)
	a := agentOf(h)
	before := historyJSON(t, a.History())
	held := newHold(t)
	srv.Respond(func(*llmtest.Request) llmtest.Reply { held.wait(); return llmtest.Text("too late") })
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- a.Compact(ctx, "") }()
	<-held.arrived
	cancel()
	if err := <-done; err != context.Canceled {
		t.Errorf("Compact after its context ended = %v; want context.Canceled", err)
	}
	held.Release()
	if a.IsCompacting() || historyJSON(t, a.History()) != before || countType(h, typeCancel) != 1 {
		t.Errorf("the compaction was not cancelled cleanly")
	}
	h.ExpectResumeMatches()
}

// A process that dies during the round leaves a begin without complete:
// resume restores the history from before it, usable as it was.
func TestCompactCrashDuringRoundKeepsHistory(t *testing.T) {
	srv, h := wire(t, 0, 200_000, readToolOption())
	toolSession(t, srv, h, 2)
	a := agentOf(h)
	held := newHold(t)
	srv.Respond(func(*llmtest.Request) llmtest.Reply { held.wait(); return llmtest.Text("summary") })
	done := make(chan error, 1)
	go func() { done <- a.Compact(context.WithoutCancel(t.Context()), "") }()
	<-held.arrived
	crashed := h.Records() // what a crash now leaves on disk
	if countType(h, typeBegin) != 1 {
		t.Fatalf("no begin record before the summary request")
	}
	r := h.Resume(crashed)
	if d := cmp.Diff(summarize(a.History()), summarize(r.Agent.History())); d != "" {
		t.Errorf("resumed history (-live +resumed):\n%s", d)
	}
	live, err := h.Agent().NextRequest(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	resumed, err := r.Agent.NextRequest(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if string(live) != string(resumed) {
		t.Errorf("resumed next request differs:\nlive:    %s\nresumed: %s", live, resumed)
	}
	held.Release()
	if err := <-done; err != nil {
		t.Fatalf("Compact: %v", err)
	}
}

// Input that arrives during a manual compaction waits, then starts a turn
// on the compacted history (spec 03 §6.15).
func TestCompactDefersInput(t *testing.T) {
	srv, h := wire(t, 0, 200_000, readToolOption())
	toolSession(t, srv, h, 1)
	a := agentOf(h)
	held := newHold(t)
	replies := []llmtest.Reply{llmtest.Text("The parser is in a.go."), llmtest.Text("tests next")}
	srv.Respond(func(r *llmtest.Request) llmtest.Reply {
		if isSummary(r) {
			held.wait()
		}
		next := replies[0]
		replies = replies[1:]
		return next
	})
	done := make(chan error, 1)
	go func() { done <- a.Compact(context.WithoutCancel(t.Context()), "") }()
	<-held.arrived
	l := h.Start("and now?")
	if l.Launched || !l.Buffered {
		t.Errorf("prompt during compaction = %+v; want buffered", l)
	}
	held.Release()
	if err := <-done; err != nil {
		t.Fatalf("Compact: %v", err)
	}
	res := h.Wait()
	if res.Event.Reason != event.EndCompleted {
		t.Fatalf("deferred turn ended %s: %+v", res.Event.Reason, res.Event.Error)
	}
	msgs := wireMessages(t, srv.Request(len(srv.Requests())-1))
	if d := cmp.Diff([]string{"system", "user", "user", "user"}, roles(msgs)); d != "" {
		t.Fatalf("deferred turn request roles (-want +got):\n%s", d)
	}
	if !strings.HasPrefix(msgs[2].Text, prefixMarker) || msgs[3].Text != "and now?" {
		t.Errorf("deferred turn request = %q", msgs)
	}
	h.ExpectResumeMatches()
}

// Close stops a running compaction and leaves history as it was.
func TestCloseStopsARunningCompaction(t *testing.T) {
	srv, h := wire(t, 0, 200_000, readToolOption())
	toolSession(t, srv, h, 1)
	a := agentOf(h)
	before := historyJSON(t, a.History())
	held := newHold(t)
	srv.Respond(func(*llmtest.Request) llmtest.Reply { held.wait(); return llmtest.Text("too late") })
	done := make(chan error, 1)
	go func() { done <- a.Compact(context.WithoutCancel(t.Context()), "") }()
	<-held.arrived
	recs := h.Records()
	if err := a.Close(t.Context()); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := <-done; err != nil && !errors.Is(err, turn.ErrClosed) {
		t.Errorf("Compact ended by Close = %v; want nil or turn.ErrClosed", err)
	}
	held.Release()
	if historyJSON(t, a.History()) != before || countType(h, typeApply) != 0 {
		t.Error("Close let the compaction rewrite history")
	}
	r := h.Resume(h.Records())
	if d := cmp.Diff(summarize(a.History()), summarize(r.Agent.History())); d != "" || len(h.Records()) < len(recs) {
		t.Errorf("resumed after Close (-live +resumed):\n%s", d)
	}
}

// A prompt deferred by a compaction and then blocked by its
// UserPromptSubmit hook leaves no loop event; resume still counts its turn.
func TestCompactDeferredPromptBlockedByHookKeepsTheTurnCount(t *testing.T) {
	hooks := &agenttest.Hooks{OnBlock: func(ev turn.HookEvent, in map[string]any) []turn.HookResult {
		if ev == turn.HookUserPromptSubmit && strings.Contains(fmt.Sprint(in), "blocked") {
			return []turn.HookResult{{Block: true, Message: "not now"}}
		}
		return nil
	}}
	srv, h := wire(t, 0, 200_000, readToolOption(), agenttest.HookRunner(hooks))
	toolSession(t, srv, h, 1)
	a := agentOf(h)
	held := newHold(t)
	srv.Respond(func(*llmtest.Request) llmtest.Reply { held.wait(); return llmtest.Text("summary") })
	done := make(chan error, 1)
	go func() { done <- a.Compact(context.WithoutCancel(t.Context()), "") }()
	<-held.arrived
	if l := h.Start("blocked prompt"); !l.Buffered {
		t.Fatalf("prompt during compaction = %+v; want buffered", l)
	}
	held.Release()
	if err := <-done; err != nil {
		t.Fatalf("Compact: %v", err)
	}
	if res := h.Wait(); res.Event.Reason != event.EndBlocked {
		t.Fatalf("deferred turn ended %s; want blocked", res.Event.Reason)
	}
	h.ExpectResumeMatches()
}
