package agent_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent/agenttest"
	"github.com/kimigo/kimigo/agent/compaction"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/llmtest"
)

// The turn-level scenarios of spec 03 §8 for §6, named by id, through a
// real agent, TurnFlow and the strict fake server. The package-level ones
// live in agent/compaction (see its doc.go).

func TestCompactionS38ThresholdInALongScriptedSession(t *testing.T) {
	srv, h := wire(t, 100_000, 0, agenttest.Tools(readTool(fixed("ok"))),
		agenttest.Compaction(compaction.StrategyOptions{ReservedContextSize: intp(0)}),
		agenttest.RefreshSystemPrompt(func(context.Context) (string, error) { return "refreshed system prompt", nil }))
	srv.Add(
		llmtest.ToolCall("c1", "Read", `{"path":"a"}`).WithUsage(llm.TokenUsage{InputOther: 40_000}),
		llmtest.ToolCall("c2", "Read", `{"path":"b"}`).WithUsage(llm.TokenUsage{InputOther: 84_990}),
		llmtest.ToolCall("c3", "Read", `{"path":"c"}`).WithUsage(llm.TokenUsage{InputOther: 86_000}),
		llmtest.Text("I read a, b and c; each said ok. Next I answer."),
		llmtest.Text("all three say ok"),
	)
	res := h.Prompt("read a, b and c")
	if res.Event.Reason != event.EndCompleted {
		t.Fatalf("turn ended %s: %+v", res.Event.Reason, res.Event.Error)
	}
	reqs := srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d requests; want 3 steps, 1 summary, 1 step", len(reqs))
	}
	for i, r := range reqs {
		if isSummary(r) != (i == 3) {
			t.Errorf("request %d: summary %v", i, isSummary(r))
		}
	}
	// The summary request: the loop's system prompt and tools, the
	// instruction last.
	step3, sum := reqs[2].JSON(t), reqs[3].JSON(t)
	if d := cmp.Diff(step3["tools"], sum["tools"]); d != "" {
		t.Errorf("summary request tools differ from the loop's (-loop +summary):\n%s", d)
	}
	sumMsgs := wireMessages(t, reqs[3])
	if sumMsgs[0] != wireMessages(t, reqs[2])[0] {
		t.Errorf("summary request system prompt %q; want the loop's", sumMsgs[0].Text)
	}
	if last := sumMsgs[len(sumMsgs)-1]; last.Role != "user" || !strings.Contains(last.Text, summaryMarker) {
		t.Errorf("summary request ends with %s %q; want the instruction", last.Role, last.Text)
	}
	// Step 4: refreshed system prompt, the kept prompt, the prefixed
	// summary, and no assistant or tool message.
	step4 := wireMessages(t, reqs[4])
	if d := cmp.Diff([]string{"system", "user", "user"}, roles(step4)); d != "" {
		t.Fatalf("step 4 roles (-want +got):\n%s", d)
	}
	if step4[0].Text != "refreshed system prompt" || step4[1].Text != "read a, b and c" ||
		!strings.HasPrefix(step4[2].Text, prefixMarker) || !strings.Contains(step4[2].Text, "each said ok") {
		t.Errorf("step 4 messages = %q", step4)
	}
	if d := cmp.Diff([]event.Type{event.TypeCompactionStarted, event.TypeCompactionBlocked, event.TypeCompactionCompleted},
		compactionTypes(h)); d != "" {
		t.Errorf("compaction events (-want +got):\n%s", d)
	}
	evs := compactionEvents(h)
	if s := evs[0].(event.CompactionStarted); s.Trigger != string(compaction.SourceAuto) {
		t.Errorf("started %+v; want trigger auto", s)
	}
	if b := evs[1].(event.CompactionBlocked); b.TurnID != res.Event.TurnID {
		t.Errorf("blocked turn %d; want %d", b.TurnID, res.Event.TurnID)
	}
	if countType(h, typeApply) != 1 || countType(h, typeComplete) != 1 || countType(h, typeCancel) != 0 {
		t.Errorf("records: %d apply, %d complete, %d cancel", countType(h, typeApply), countType(h, typeComplete),
			countType(h, typeCancel))
	}
	h.ExpectResumeMatches()
}

// s39 is the setup of S39: window 2,000, reserve 500, and a first turn
// that leaves a reported context of 1,400 tokens.
func s39(t *testing.T, opts ...agenttest.Option) (*llmtest.Server, *agenttest.Harness) {
	t.Helper()
	srv, h := wire(t, 2_000, 0, append([]agenttest.Option{
		agenttest.Compaction(compaction.StrategyOptions{ReservedContextSize: intp(500)})}, opts...)...)
	srv.Add(llmtest.Text("hello").WithUsage(llm.TokenUsage{InputOther: 1_390, Output: 10}))
	if res := h.Prompt("hi"); res.Event.Reason != event.EndCompleted {
		t.Fatalf("first turn ended %s", res.Event.Reason)
	}
	return srv, h
}

var prompt440 = strings.Repeat("word ", 88)

func TestCompactionS39ReserveTrigger(t *testing.T) {
	srv, h := s39(t)
	srv.Add(llmtest.Text("We greeted each other; now a long prompt arrives."), llmtest.Text("answer"))
	res := h.Prompt(prompt440)
	if res.Event.Reason != event.EndCompleted {
		t.Fatalf("turn ended %s: %+v", res.Event.Reason, res.Event.Error)
	}
	reqs := srv.Requests()[1:]
	if len(reqs) != 2 || !isSummary(reqs[0]) || isSummary(reqs[1]) {
		t.Fatalf("second turn made %d requests; want a summary, then the answer", len(reqs))
	}
	msgs := wireMessages(t, reqs[1])
	if last := msgs[len(msgs)-1]; !strings.HasPrefix(last.Text, prefixMarker) {
		t.Errorf("answer request ends with %q; want the summary", last.Text)
	}
	h.ExpectResumeMatches()
}

// The first step overflows the provider's real window, which is smaller
// than the declared one: the turn compacts, retries and finishes (the
// overflow acceptance test; spec 03 §6.6).
func TestCompactionS50ProviderOverflowInTurn(t *testing.T) {
	const window = 5_000
	srv, h := wire(t, window, 64_000, agenttest.Tools(readTool(fixed(strings.Repeat("line of a big file\n", 320)))),
		agenttest.Compaction(compaction.StrategyOptions{ReservedContextSize: intp(0)}))
	loopReplies := []llmtest.Reply{
		llmtest.ToolCall("c1", "Read", `{"path":"a"}`), llmtest.ToolCall("c2", "Read", `{"path":"b"}`),
		llmtest.ToolCall("c3", "Read", `{"path":"c"}`), llmtest.ToolCall("c4", "Read", `{"path":"d"}`),
		llmtest.Text("read them all"),
	}
	srv.Respond(func(r *llmtest.Request) llmtest.Reply {
		if isSummary(r) {
			return llmtest.Text("I read a, b, c and d, all lines of a big file; next I report.")
		}
		next := loopReplies[0]
		loopReplies = loopReplies[1:]
		return next
	})
	res := h.Prompt("read a, b, c and d")
	if res.Event.Reason != event.EndCompleted {
		t.Fatalf("turn ended %s: %+v", res.Event.Reason, res.Event.Error)
	}
	var rejected, summaries int
	for _, r := range srv.Requests() {
		if r.Rejected != 0 {
			rejected++
			if r.Rejected != 400 || !strings.Contains(r.RejectReason, "context_length_exceeded") {
				t.Errorf("rejected %d %s; want the context-length 400", r.Rejected, r.RejectReason)
			}
		}
		if isSummary(r) && r.Rejected == 0 {
			summaries++
		}
	}
	if rejected == 0 || summaries != 1 {
		t.Errorf("%d rejected requests, %d summaries; want an overflow, then one summary", rejected, summaries)
	}
	starts := 0
	for _, ev := range compactionEvents(h) {
		if s, ok := ev.(event.CompactionStarted); ok {
			starts++
			if s.Trigger != string(compaction.SourceAuto) {
				t.Errorf("started %+v; want auto", s)
			}
		}
	}
	if starts != 1 {
		t.Errorf("%d compactions started; want 1", starts)
	}
	a := agentOf(h)
	if last := srv.Requests()[len(srv.Requests())-1]; last.Rejected != 0 || last.Tokens() > window {
		t.Errorf("the retried step was rejected or over the window")
	}
	if got := summarize(a.History()); got[len(got)-1] != "assistant:read them all" {
		t.Errorf("history ends %q", got[len(got)-1])
	}
	h.ExpectResumeMatches()
}

func TestCompactionS51OverflowGuard(t *testing.T) {
	srv, h := wire(t, 0, 200_000)
	srv.Respond(func(r *llmtest.Request) llmtest.Reply {
		if isSummary(r) {
			return llmtest.Text("still the same short conversation")
		}
		return llmtest.Status(400, openAIOverflowBody)
	})
	res := h.Prompt("hello")
	if res.Event.Reason != event.EndFailed || res.Event.Error == nil || res.Event.Error.Code != compaction.CodeContextOverflow ||
		res.Event.Error.Message != "Compaction failed to bring the context under the model window after 3 attempts." {
		t.Fatalf("turn ended %s %+v; want failed context.overflow after 3 attempts", res.Event.Reason, res.Event.Error)
	}
	if n := len(srv.Requests()); n != 7 {
		t.Errorf("%d requests; want 7", n)
	}
	starts := 0
	for _, ty := range compactionTypes(h) {
		if ty == event.TypeCompactionStarted {
			starts++
		}
	}
	if starts != 3 {
		t.Errorf("%d compactions started; want 3", starts)
	}
	h.ExpectResumeMatches()
}

func TestCompactionS52SmallRequestTooLargeIsNotOverflow(t *testing.T) {
	srv, h := wire(t, 0, 200_000)
	srv.Add(llmtest.ChatTooLarge())
	res := h.Prompt("hi")
	if res.Event.Reason != event.EndFailed {
		t.Fatalf("turn ended %s; want failed", res.Event.Reason)
	}
	if got := compactionTypes(h); len(got) != 0 {
		t.Errorf("compaction events %v; want none", got)
	}
	for _, r := range srv.Requests() {
		if isSummary(r) {
			t.Errorf("a summary was requested")
		}
	}
	h.ExpectResumeMatches()
}

func TestCompactionS56ManualRefusedThroughTheAgent(t *testing.T) {
	srv, h := wire(t, 0, 200_000)
	a := agentOf(h)
	err := a.Compact(t.Context(), "")
	var ce *compaction.Error
	if !errors.As(err, &ce) || ce.Code() != compaction.CodeUnable || ce.Error() != "No messages to compact in current history." {
		t.Errorf("Compact on an empty history = %v; want compaction.unable", err)
	}
	held := newHold(t)
	srv.Respond(func(*llmtest.Request) llmtest.Reply { held.wait(); return llmtest.Text("done") })
	h.Start("work")
	<-held.arrived
	err = a.Compact(t.Context(), "")
	if !errors.As(err, &ce) || ce.Code() != compaction.CodeUnable || !strings.HasPrefix(ce.Error(), "Cannot compact while a turn is active") {
		t.Errorf("Compact during a turn = %v; want compaction.unable", err)
	}
	held.Release()
	h.Wait()
	if n := countType(h, typeBegin); n != 0 {
		t.Errorf("%d begin records for refused compactions", n)
	}
	h.ExpectResumeMatches()
}

func TestCompactionS58FailureWhileBlocked(t *testing.T) {
	srv, h := s39(t)
	srv.Add(llmtest.Status(400, `{"error":{"message":"Invalid 'messages': unsupported content.","type":"invalid_request_error","param":"messages","code":null}}`))
	before := historyJSON(t, agentOf(h).History())
	res := h.Prompt(prompt440)
	if res.Event.Reason != event.EndFailed || res.Event.Error == nil || res.Event.Error.Code != compaction.CodeFailed {
		t.Fatalf("turn ended %s %+v; want failed compaction.failed", res.Event.Reason, res.Event.Error)
	}
	if d := cmp.Diff([]event.Type{event.TypeCompactionStarted, event.TypeCompactionBlocked, event.TypeCompactionCancelled},
		compactionTypes(h)); d != "" {
		t.Errorf("compaction events (-want +got):\n%s", d)
	}
	if countType(h, typeApply) != 0 || countType(h, typeCancel) != 1 {
		t.Errorf("records: %d apply, %d cancel; want 0, 1", countType(h, typeApply), countType(h, typeCancel))
	}
	after := agentOf(h).History()
	if got := historyJSON(t, after[:len(after)-1]); got != before {
		t.Errorf("history before the new prompt changed:\n%s\nwant\n%s", got, before)
	}
	h.ExpectResumeMatches()
}

// Cancelling the turn while it waits on its compaction cancels the
// compaction: history is byte-identical to what it was when the
// compaction started.
func TestCompactionS59CancelWhileBlocked(t *testing.T) {
	srv, h := s39(t)
	held := newHold(t)
	srv.Respond(func(*llmtest.Request) llmtest.Reply { held.wait(); return llmtest.Text("too late") })
	var atStart string
	a := agentOf(h)
	unsubscribe := h.Observe(func(ev event.Event) {
		if _, ok := ev.(event.CompactionStarted); ok {
			atStart = historyJSON(t, a.History())
		}
	})
	defer unsubscribe()
	h.Start(prompt440)
	<-held.arrived
	if err := a.Cancel(t.Context(), nil, nil); err != nil {
		t.Fatal(err)
	}
	res := h.Wait()
	if res.Event.Reason != event.EndCancelled {
		t.Errorf("turn ended %s; want cancelled", res.Event.Reason)
	}
	if got := compactionTypes(h); !slices.Contains(got, event.TypeCompactionCancelled) || slices.Contains(got, event.TypeCompactionCompleted) {
		t.Errorf("compaction events %v; want cancelled", got)
	}
	if countType(h, typeApply) != 0 {
		t.Errorf("a cancelled compaction rewrote history")
	}
	if got := historyJSON(t, a.History()); got != atStart {
		t.Errorf("history changed by the cancelled compaction:\n%s\nwant\n%s", got, atStart)
	}
	held.Release()
	h.ExpectResumeMatches()
}

// Micro-compaction is off: two hours later every large tool result goes
// out unchanged and no micro_compaction.apply is written.
func TestCompactionS61MicroCompactionOff(t *testing.T) {
	big := strings.Repeat("tool output that stays ", 40)
	var mu sync.Mutex
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	srv, h := wire(t, 0, 256_000, agenttest.Tools(readTool(fixed(big))), agenttest.Clock(clock))
	for i := range 30 {
		srv.Add(llmtest.ToolCall(fmt.Sprintf("c%d", i), "Read", fmt.Sprintf(`{"path":"f%d"}`, i)))
	}
	srv.Add(llmtest.Text("read 30"), llmtest.Text("still here"))
	h.Prompt("read f thirty times")
	mu.Lock()
	now = now.Add(2 * time.Hour)
	mu.Unlock()
	h.Prompt("two hours later")
	last := wireMessages(t, srv.Request(len(srv.Requests())-1))
	n := 0
	for _, m := range last {
		if m.Role == "tool" {
			n++
			if m.Text != big {
				t.Fatalf("a tool result changed: %q", m.Text)
			}
		}
	}
	if n != 30 {
		t.Errorf("%d tool results in the request; want 30", n)
	}
	if countType(h, "micro_compaction.apply") != 0 {
		t.Error("micro_compaction.apply was written")
	}
	h.ExpectResumeMatches()
}
