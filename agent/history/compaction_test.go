package history_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
)

// compact runs a live compaction through the commit path.
func (a *agent) compact(in history.CompactionInput) history.ApplyCompactionRecord {
	a.t.Helper()
	rec := a.mem.CompactionRecord(in)
	ch := a.commit(rec)
	if !ch.Replaced || ch.Compacted == nil {
		a.t.Fatalf("compaction change = %+v", ch)
	}
	return *ch.Compacted
}

func estimate(h []history.Message) int {
	n := 0
	for _, m := range h {
		n += llm.EstimateMessage(m.Message)
	}
	return n
}

func TestS31CompactionKeepsPromptsAndMergesThem(t *testing.T) {
	a := newAgent(t)
	a.append(U("old"))
	a.append(U("recent"))
	res := a.compact(history.CompactionInput{Summary: "summary of old context", CompactedCount: 1, TokensBefore: 100})
	h := a.mem.History()
	if len(h) != 3 || !h[2].Origin.Is(history.OriginCompactionSummary) {
		t.Fatalf("history = %v", historyRoles(h))
	}
	if d := cmp.Diff([]string{"old\n\nrecent", "summary of old context"}, texts(a.mem.Messages())); d != "" {
		t.Errorf("next request (-want +got):\n%s", d)
	}
	if *res.KeptUserMessageCount != 2 || res.KeptHeadUserMessageCount != nil || *res.ContextSummary != "summary of old context" {
		t.Errorf("record = %+v", res)
	}
	if want := llm.EstimateTokens("summary of old context") + estimate(h[:2]); *res.TokensAfter != want || a.mem.TokenCount() != want {
		t.Errorf("tokensAfter = %d, TokenCount = %d, want %d", *res.TokensAfter, a.mem.TokenCount(), want)
	}
	if got := a.mem.TokenCountWithPending(); got != a.mem.TokenCount() {
		t.Errorf("TokenCountWithPending = %d, want everything covered", got)
	}
	a.expectResumeMatches()
}

func TestS32CompactionDropsEverythingButRealInput(t *testing.T) {
	a := newAgent(t)
	a.append(U("real prompt"))
	a.append(history.BashInput("ls"))
	a.append(history.BashOutput("a.go", "", false))
	a.append(history.LocalCommandStdout("cost: $0"))
	a.append(history.SystemReminder("remember", history.InjectionOrigin(history.VariantSystemReminder)))
	a.append(S("previous summary"))
	a.stepBegin("s")
	a.event(loop.ContentPartEvent{StepUUID: "s", Part: llm.TextPart("answer")})
	a.stepEnd("s", nil)
	res := a.compact(history.CompactionInput{Summary: "sum", ContextSummary: "prefix: sum", CompactedCount: 8})
	if *res.KeptUserMessageCount != 1 {
		t.Errorf("keptUserMessageCount = %d, want 1", *res.KeptUserMessageCount)
	}
	if d := cmp.Diff([]string{"real prompt", "prefix: sum"}, texts(a.mem.Messages())); d != "" {
		t.Errorf("history (-want +got):\n%s", d)
	}
	a.append(U("later"))
	if a.mem.Len() != 3 {
		t.Errorf("history has %d messages, want 3", a.mem.Len())
	}
	a.expectResumeMatches()
}

// prompts returns n prompts of about tokens estimated tokens each.
func prompts(n, tokens int) []history.Message {
	var out []history.Message
	for i := range n {
		body := strconv.Itoa(i) + ":" + strings.Repeat("x", (tokens-1)*4-len(strconv.Itoa(i))-1)
		out = append(out, U(body))
	}
	return out
}

// splitCompacted cuts a compacted history into head, marker, tail and
// summary.
func splitCompacted(t *testing.T, h []history.Message) (head []history.Message, marker *history.Message, tail []history.Message) {
	t.Helper()
	if len(h) == 0 || !h[len(h)-1].Origin.Is(history.OriginCompactionSummary) {
		t.Fatal("history does not end with the summary")
	}
	h = h[:len(h)-1]
	for i, m := range h {
		if m.Origin.Is(history.OriginInjection) && m.Origin.Variant == history.VariantCompactionElision {
			return h[:i], &h[i], h[i+1:]
		}
	}
	return nil, nil, h
}

func TestS33HeadAndTailWithElision(t *testing.T) {
	a := newAgent(t)
	pool := prompts(30, 1000)
	if got := estimate(pool[:1]); got != 1000 {
		t.Fatalf("prompt estimate %d, want 1000", got)
	}
	for _, m := range pool {
		a.append(m)
	}
	res := a.compact(history.CompactionInput{Summary: "sum", CompactedCount: 30})
	h := a.mem.History()
	head, marker, tail := splitCompacted(t, h)
	if marker == nil {
		t.Fatal("no elision marker")
	}
	if e := estimate(head); e > history.CompactUserMessageHeadTokens+1 {
		t.Errorf("head estimate %d > 2001", e)
	}
	if e := estimate(tail); e > history.CompactUserMessageMaxTokens-history.CompactUserMessageHeadTokens+1 {
		t.Errorf("tail estimate %d > 18001", e)
	}
	if *res.KeptHeadUserMessageCount != len(head) || *res.KeptUserMessageCount != len(head)+len(tail) {
		t.Errorf("record counts %d/%d, head %d tail %d", *res.KeptHeadUserMessageCount, *res.KeptUserMessageCount, len(head), len(tail))
	}
	if len(h) != *res.KeptUserMessageCount+2 {
		t.Errorf("len(history) = %d, want keptUserMessageCount+2 = %d", len(h), *res.KeptUserMessageCount+2)
	}
	omitted := estimate(pool) - estimate(head) - estimate(tail)
	if text := llm.ExtractText(marker.Message, ""); !strings.Contains(text, strconv.Itoa(omitted)) ||
		!strings.HasPrefix(text, "<system-reminder>\n") {
		t.Errorf("marker %q does not state %d omitted tokens", text, omitted)
	}
	if llm.ExtractText(head[0].Message, "") != llm.ExtractText(pool[0].Message, "") ||
		llm.ExtractText(tail[len(tail)-1].Message, "") != llm.ExtractText(pool[29].Message, "") {
		t.Error("head does not start with the oldest prompt or tail does not end with the newest")
	}
	a.expectResumeMatches()
}

func TestS34OneHugePrompt(t *testing.T) {
	a := newAgent(t)
	text := "BEGIN" + strings.Repeat("a", 200_000) + "END"
	a.append(userParts(llm.TextPart(text), llm.ImagePart("https://x/i.png")))
	a.compact(history.CompactionInput{Summary: "sum", CompactedCount: 1})
	head, marker, tail := splitCompacted(t, a.mem.History())
	if marker == nil || len(head) != 1 || len(tail) != 1 {
		t.Fatalf("head %d, marker %v, tail %d", len(head), marker != nil, len(tail))
	}
	h, tl := llm.ExtractText(head[0].Message, ""), llm.ExtractText(tail[0].Message, "")
	if !strings.HasPrefix(h, "BEGIN") || !strings.HasSuffix(tl, "END") {
		t.Errorf("head starts %q, tail ends %q", h[:10], tl[len(tl)-10:])
	}
	for _, m := range []history.Message{head[0], tail[0]} {
		if len(m.Content) != 1 || m.Content[0].Type != llm.PartText || !m.Origin.Is(history.OriginUser) {
			t.Errorf("boundary message is not text-only with its origin: %+v", m)
		}
	}
	a.expectResumeMatches()
}

func TestS35LegacyTailOnlySelection(t *testing.T) {
	mem := memoryWith(t, history.Options{}, prompts(30, 1000)...)
	kept := 20
	res, _ := mem.ApplyCompaction(history.ApplyCompactionRecord{Summary: "sum", CompactedCount: 30, KeptUserMessageCount: &kept})
	head, marker, tail := splitCompacted(t, mem.History())
	if marker != nil || len(head) != 0 {
		t.Errorf("tail-only selection made a marker or a head")
	}
	if e := estimate(tail); e > history.CompactUserMessageMaxTokens+1 {
		t.Errorf("tail estimate %d > 20001", e)
	}
	if res.KeptHeadUserMessageCount != nil {
		t.Errorf("keptHeadUserMessageCount = %d, want absent", *res.KeptHeadUserMessageCount)
	}
}

func TestS36LegacyCut(t *testing.T) {
	a := newAgent(t)
	a.append(U("first"))
	a.stepBegin("s")
	a.call("s", "call_orphaned", "Read")
	a.result("call_orphaned", "body")
	a.stepEnd("s", nil)
	a.append(U("second"))
	a.commit(history.ApplyCompactionRecord{Summary: "sum", CompactedCount: 2})
	if d := cmp.Diff([]string{"user", "tool:call_orphaned", "user"}, historyRoles(a.mem.History())); d != "" {
		t.Errorf("history (-want +got):\n%s", d)
	}
	if !a.mem.History()[0].Origin.Is(history.OriginCompactionSummary) {
		t.Error("history does not start with the summary")
	}
	for _, m := range a.mem.Messages() {
		if m.Role == llm.RoleTool {
			t.Errorf("Messages() has an orphan result %q", m.ToolCallID)
		}
	}
	a.expectResumeMatches()
}

func TestS37DeferredDroppedByCompaction(t *testing.T) {
	a := newAgent(t)
	a.append(U("go"))
	a.stepBegin("s")
	a.call("s", "c1", "Read")
	a.call("s", "c2", "Read")
	a.result("c1", "one")
	a.append(I("deferred reminder"))
	a.compact(history.CompactionInput{Summary: "sum", CompactedCount: 3})
	if n := len(a.mem.Deferred()); n != 0 {
		t.Errorf("%d deferred messages survived compaction", n)
	}
	a.append(I("fresh reminder"))
	if ch := a.result("c2", "late"); len(ch.Pushed) != 0 {
		t.Errorf("a late result for the compacted exchange was pushed: %v", ch.Pushed)
	}
	if d := cmp.Diff([]string{"go", "sum", "fresh reminder"}, texts(a.mem.Messages())); d != "" {
		t.Errorf("history (-want +got):\n%s", d)
	}
	a.expectResumeMatches()
}

func TestCompactionHooks(t *testing.T) {
	var calls []string
	mem := memoryWith(t, history.Options{Hooks: history.Hooks{
		Compacted:            func() { calls = append(calls, "compacted") },
		LimitMicroCompaction: func(n int) { calls = append(calls, "limit "+strconv.Itoa(n)) },
	}}, U("a"))
	mem.ApplyCompaction(mem.CompactionRecord(history.CompactionInput{Summary: "s", CompactedCount: 1}))
	if d := cmp.Diff([]string{"limit 0", "compacted"}, calls); d != "" {
		t.Errorf("hooks (-want +got):\n%s", d)
	}
}
