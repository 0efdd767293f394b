package agent_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/agent/compaction"
	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/llm/scripted"
)

// Bad summaries and a model that cannot summarise end in the documented
// step of the degradation ladder (spec 03 §6.10) with a clear event: a
// bounded number of summary requests, and either a compacted history or
// the history exactly as it was — never a lost one. The package tests
// pin the ladder's arithmetic (S44–S49); these run it over the wire.
func TestCompactionBadSummaries(t *testing.T) {
	truncated := llmtest.Reply{Response: scripted.Response{Parts: scripted.Text("I was reading a.go and").Parts,
		Finish: llm.FinishTruncated}}
	for _, tt := range []struct {
		name    string
		replies []llmtest.Reply
		// requests is the number of summary requests; failed says the
		// compaction fails, else it completes having dropped the oldest
		// input messages.
		requests int
		failed   bool
	}{
		{"empty every time", repeat(llmtest.Text("   "), 6), 6, true},
		{"a tool call every time", repeat(llmtest.ToolCall("s1", "Read", `{"path":"a.go"}`), 6), 6, true},
		{"thinking only every time", repeat(llmtest.Think("let me think", ""), 6), 6, true},
		{"truncated every time", repeat(truncated, 6), 6, true},
		{"empty, then a summary", []llmtest.Reply{llmtest.Text(""), llmtest.Text("a.go holds the parser")}, 2, false},
		{"truncated, then a summary", []llmtest.Reply{truncated, llmtest.Text("a.go holds the parser")}, 2, false},
		{"the model rejects every attempt", []llmtest.Reply{llmtest.Status(400,
			`{"error":{"message":"Invalid 'messages[3]': unsupported.","type":"invalid_request_error","param":null,"code":null}}`)}, 1, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv, h := wire(t, 0, 200_000, readToolOption())
			toolSession(t, srv, h, 10) // 22 messages: shrinking never empties the input
			a := agentOf(h)
			before := historyJSON(t, a.History())
			sent := len(srv.Requests())
			srv.Add(tt.replies...)
			err := a.Compact(t.Context(), "")
			if got := len(srv.Requests()) - sent; got != tt.requests {
				t.Errorf("%d summary requests; want %d", got, tt.requests)
			}
			if !tt.failed {
				if err != nil {
					t.Fatalf("Compact = %v; want it to complete", err)
				}
				var done event.CompactionCompleted
				for _, ev := range compactionEvents(h) {
					if c, ok := ev.(event.CompactionCompleted); ok {
						done = c
					}
				}
				if done.Result.DroppedCount == nil || *done.Result.DroppedCount < 1 || done.Result.CompactedCount != 22 {
					t.Errorf("completed %+v; want 22 compacted and the oldest dropped", done.Result)
				}
				h.ExpectResumeMatches()
				return
			}
			var ce *compaction.Error
			if !errors.As(err, &ce) || ce.Code() != compaction.CodeFailed {
				t.Fatalf("Compact = %v; want compaction.failed", err)
			}
			if got := historyJSON(t, a.History()); got != before {
				t.Errorf("a failed compaction changed history")
			}
			types := compactionTypes(h)
			if len(types) != 2 || types[0] != event.TypeCompactionStarted || types[1] != event.TypeCompactionCancelled {
				t.Errorf("compaction events %v; want started, cancelled", types)
			}
			errs := eventsOf[event.Error](h)
			if len(errs) != 1 || errs[0].Code != compaction.CodeFailed {
				t.Errorf("error events %+v; want one compaction.failed", errs)
			}
			if countType(h, typeApply) != 0 || countType(h, typeCancel) != 1 {
				t.Errorf("records: %d apply, %d cancel", countType(h, typeApply), countType(h, typeCancel))
			}
			h.ExpectResumeMatches()
		})
	}
}

func repeat(r llmtest.Reply, n int) []llmtest.Reply {
	out := make([]llmtest.Reply, n)
	for i := range out {
		out[i] = r
	}
	return out
}

// A summary larger than the history it replaces leaves the context over
// the trigger. The turn does not compact its compacted history again (the
// floor of spec 03 §6.5): it sends the step and finishes, and the next
// turn compacts once more (spec 03 §6.17). Every prompt survives and
// exactly one summary exists.
func TestCompactionSummaryLargerThanHistory(t *testing.T) {
	srv, h := s39(t)
	big := strings.Repeat("I keep every detail of this short chat. ", 140) // ~1,400 tokens
	srv.Respond(func(r *llmtest.Request) llmtest.Reply {
		if isSummary(r) {
			return llmtest.Text(big)
		}
		return llmtest.Text("answered").WithUsage(llm.TokenUsage{InputOther: r.Tokens(), Output: 5})
	})
	for i, p := range []string{prompt440, "again"} {
		res := h.Prompt(p)
		if res.Event.Reason != event.EndCompleted {
			t.Fatalf("turn %d ended %s: %+v", i, res.Event.Reason, res.Event.Error)
		}
		if n := countType(h, typeComplete); n != i+1 {
			t.Errorf("after turn %d: %d compactions; want one per turn", i, n)
		}
	}
	for _, r := range srv.Requests() {
		if r.Rejected != 0 {
			t.Errorf("a request was rejected: %s", r.RejectReason)
		}
	}
	var prompts []string
	summaries := 0
	for _, m := range agentOf(h).History() {
		switch {
		case m.Origin.Is(history.OriginCompactionSummary):
			summaries++
		case m.Role == llm.RoleUser:
			prompts = append(prompts, llm.ExtractText(m.Message, ""))
		}
	}
	if summaries != 1 || len(prompts) != 3 || prompts[0] != "hi" || prompts[2] != "again" {
		t.Errorf("history has %d summaries and prompts %q; want 1 and all three prompts", summaries, prompts)
	}
	h.ExpectResumeMatches()
}
