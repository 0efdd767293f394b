package compaction

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
)

// compactNow runs a manual compaction to its end, letting fake time pass
// for its backoffs.
func compactNow(t *testing.T, r *rig, instruction string) {
	t.Helper()
	n := r.finished.Load()
	if err := r.c.Compact(t.Context(), instruction); err != nil {
		t.Fatalf("Compact: %v", err)
	}
	for i := 0; r.finished.Load() == n; i++ {
		if i == 600 {
			t.Fatal("the compaction did not finish within ten minutes of fake time")
		}
		time.Sleep(time.Second)
	}
	synctest.Wait()
}

// TestS42AbortWhenPrefixChanged: a history cleared or undone while the
// summariser runs makes the compaction yield: its usage is recorded, it is
// cancelled, and history is what the clear or undo left (S42).
func TestS42AbortWhenPrefixChanged(t *testing.T) {
	for _, tt := range []struct {
		name   string
		change history.Payload
	}{
		{"clear", history.ClearRecord{}},
		{"undo", history.UndoRecord{Count: 1}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t, Options{}, summaryReply("stale"))
				r.append(U("one"))
				r.append(A("answer one"))
				r.append(U("two"))
				r.append(A("answer two"))
				release := r.holdRequests()
				if err := r.c.Compact(t.Context(), ""); err != nil {
					t.Fatal(err)
				}
				synctest.Wait()
				if err := r.Commit(t.Context(), records.Type(tt.change.RecordType()), tt.change); err != nil {
					t.Fatal(err)
				}
				want := r.History()
				release()
				synctest.Wait()
				if len(r.usage) != 1 {
					t.Errorf("usage records = %d; want 1 (spent tokens count even when discarded)", len(r.usage))
				}
				if d := cmp.Diff([]event.Type{event.TypeCompactionStarted, event.TypeCompactionCancelled}, r.eventTypes()); d != "" {
					t.Errorf("events (-want +got):\n%s", d)
				}
				wantRecs := []records.Type{TypeBegin, records.Type(tt.change.RecordType()), "usage.record", TypeCancel}
				if d := cmp.Diff(wantRecs, r.recordTypes()); d != "" {
					t.Errorf("records (-want +got):\n%s", d)
				}
				if d := cmp.Diff(want, r.History()); d != "" {
					t.Errorf("history (-want +got):\n%s", d)
				}
				if r.refresh.Load() != 0 {
					t.Errorf("the system prompt was refreshed after a cancelled compaction")
				}
			})
		})
	}
}

// TestS43AbortOnDroppableTail: an assistant step or a notification
// appended while the summariser runs cancels the compaction and stays in
// history; a real user message is kept before the summary (S43).
func TestS43AbortOnDroppableTail(t *testing.T) {
	for _, tt := range []struct {
		name      string
		appended  history.Message
		completes bool
	}{
		{"assistant step", A("a live step"), false},
		{"background notification", N("task t1 finished"), false},
		{"real user message", U("and one more thing"), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t, Options{}, summaryReply("the summary"))
				r.append(U("start"))
				r.append(A("started"))
				release := r.holdRequests()
				if err := r.c.Compact(t.Context(), ""); err != nil {
					t.Fatal(err)
				}
				synctest.Wait()
				r.append(tt.appended)
				release()
				synctest.Wait()
				_, applied := r.appliedRecord()
				if applied != tt.completes {
					t.Fatalf("applied = %v; want %v (events %v)", applied, tt.completes, r.eventTypes())
				}
				var got []string
				for _, m := range r.History() {
					got = append(got, llm.ExtractText(m.Message, "|"))
				}
				var want []string
				if tt.completes {
					want = []string{"start", "and one more thing", ContextSummary("the summary")}
				} else {
					want = []string{"start", "started", llm.ExtractText(tt.appended.Message, "|")}
				}
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("history (-want +got):\n%s", d)
				}
			})
		})
	}
}

// TestS53NoStackedSummaries: a second compaction folds the first summary
// into its own; exactly one summary remains (S53).
func TestS53NoStackedSummaries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Options{}, summaryReply("first summary"), summaryReply("second summary"))
		r.append(U("one"))
		r.append(A("done one"))
		compactNow(t, r, "")
		r.append(U("two"))
		r.append(A("done two"))
		compactNow(t, r, "")
		var summaries []string
		for _, m := range r.History() {
			if m.Origin.Is(history.OriginCompactionSummary) {
				summaries = append(summaries, llm.ExtractText(m.Message, ""))
			}
		}
		if d := cmp.Diff([]string{ContextSummary("second summary")}, summaries); d != "" {
			t.Errorf("summaries (-want +got):\n%s", d)
		}
		second := r.requests()[1].req.Messages
		if !strings.Contains(strings.Join(texts(second), "\n"), "first summary") {
			t.Errorf("the second summary request does not carry the first summary")
		}
	})
}

// TestS54HeadTailRetention: a pool of user messages over the budget keeps
// a head, an elision marker, a tail and the summary; a second compaction
// has exactly one marker again (S54).
func TestS54HeadTailRetention(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Options{}, summaryReply("s1"), summaryReply("s2"))
		for i := range 30 {
			r.append(U(fmt.Sprintf("prompt %02d ", i) + strings.Repeat("w", 3_990)))
			r.append(A("ok"))
		}
		compactNow(t, r, "")
		rec, ok := r.appliedRecord()
		if !ok || rec.KeptHeadUserMessageCount == nil {
			t.Fatalf("no elided compaction record: %+v", rec)
		}
		h := r.History()
		head := *rec.KeptHeadUserMessageCount
		marker := h[head]
		if !marker.Origin.Is(history.OriginInjection) || marker.Origin.Variant != history.VariantCompactionElision {
			t.Fatalf("message %d is not the elision marker: %+v", head, marker)
		}
		omitted := llm.ExtractText(marker.Message, "")
		headTokens, tailTokens := estimateHistory(h[:head]), estimateHistory(h[head+1:len(h)-1])
		if headTokens > 2_001 || tailTokens > 18_001 {
			t.Errorf("head %d tokens, tail %d tokens; want ≤ 2,001 and ≤ 18,001", headTokens, tailTokens)
		}
		if !strings.Contains(llm.ExtractText(h[0].Message, ""), "prompt 00") {
			t.Errorf("the head does not start with the oldest prompt")
		}
		if !strings.Contains(omitted, "tokens") || len(h) != *rec.KeptUserMessageCount+2 {
			t.Errorf("marker %q, history %d for %d kept", omitted, len(h), *rec.KeptUserMessageCount)
		}
		r.append(U("next"))
		compactNow(t, r, "")
		markers := 0
		for _, m := range r.History() {
			if m.Origin.Is(history.OriginInjection) && m.Origin.Variant == history.VariantCompactionElision {
				markers++
			}
		}
		if markers != 1 {
			t.Errorf("markers after a second compaction = %d; want 1", markers)
		}
	})
}

// TestS55TodoAppended: the todo list follows the trimmed summary, and the
// model reads the summary after the prefix (S55).
func TestS55TodoAppended(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Options{}, summaryReply("  I fixed the parser.\n"))
		r.todos = []Todo{{Title: "fix parser", Status: "done"}, {Title: "write tests", Status: "pending"}}
		r.append(U("fix it"))
		compactNow(t, r, "")
		rec, _ := r.appliedRecord()
		want := "I fixed the parser.\n\n## TODO List\n  [done] fix parser\n  [pending] write tests"
		if rec.Summary != want {
			t.Errorf("summary = %q; want %q", rec.Summary, want)
		}
		if rec.ContextSummary == nil || *rec.ContextSummary != SummaryPrefix()+"\n"+want {
			t.Errorf("context summary = %v; want the prefix, a newline and the summary", rec.ContextSummary)
		}
		ev, _ := lastEvent[event.CompactionCompleted](r)
		if ev.Result.Summary != want {
			t.Errorf("compaction.completed shows %q; want the summary without prefix", ev.Result.Summary)
		}
	})
}

// TestS56ManualRefused: a manual compaction is refused while a turn runs
// and on an empty history (S56).
func TestS56ManualRefused(t *testing.T) {
	r := newRig(t, Options{})
	err := r.c.Compact(t.Context(), "")
	var e *Error
	if !errors.As(err, &e) || e.Code() != CodeUnable || e.Error() != "No messages to compact in current history." {
		t.Errorf("empty history: %v", err)
	}
	if r.finished.Load() != 1 {
		t.Errorf("an idle refusal did not hand waiting input back (finished %d)", r.finished.Load())
	}
	r.append(U("hi"))
	r.active.Store(true)
	err = r.c.Compact(t.Context(), "")
	if !errors.As(err, &e) || e.Code() != CodeUnable ||
		e.Error() != "Cannot compact while a turn is active. Wait for it to finish, then retry." {
		t.Errorf("active turn: %v", err)
	}
	if r.c.IsCompacting() || len(r.recordTypes()) != 0 || len(r.eventTypes()) != 0 {
		t.Errorf("a refused compaction left traces: compacting %v, records %v, events %v",
			r.c.IsCompacting(), r.recordTypes(), r.eventTypes())
	}
	if r.finished.Load() != 1 {
		t.Errorf("a refused compaction released input into a running turn")
	}
}

// TestS57SystemPromptRefresh: a successful compaction refreshes the system
// prompt before it completes; a cancelled one does not (S57).
func TestS57SystemPromptRefresh(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var r *rig
		refreshed := ""
		r = newRig(t, Options{RefreshSystemPrompt: func(context.Context) error {
			r.mu.Lock()
			r.model.SystemPrompt = "refreshed prompt"
			r.mu.Unlock()
			refreshed = "yes"
			return nil
		}}, summaryReply("s"), summaryReply("never"))
		r.append(U("hi"))
		release := r.holdRequests()
		if err := r.c.Compact(t.Context(), ""); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if err := r.c.Cancel(t.Context()); err != nil {
			t.Fatal(err)
		}
		release()
		synctest.Wait()
		if refreshed != "" {
			t.Fatalf("the prompt was refreshed after a cancelled compaction")
		}
		r.mu.Lock()
		r.hold = nil
		r.mu.Unlock()
		compactNow(t, r, "")
		m, _ := r.currentModel()
		if refreshed != "yes" || m.SystemPrompt != "refreshed prompt" {
			t.Errorf("the prompt was not refreshed after a compaction")
		}
	})
}

// TestS60CompactionCompletionCap: the summary's output cap is the window
// capped at 131,072, a configured output size, or the fallback (S60).
func TestS60CompactionCompletionCap(t *testing.T) {
	for _, tt := range []struct {
		name   string
		window int
		budget llm.BudgetInputs
		want   int
	}{
		{"known window", 256_000, llm.BudgetInputs{}, 131_072},
		{"small window", 100_000, llm.BudgetInputs{}, 100_000},
		{"configured output size", 256_000, llm.BudgetInputs{MaxOutputSize: 384_000}, 384_000},
		{"unknown window", 0, llm.BudgetInputs{}, 32_000},
		{"unknown window with a reserve", 0, llm.BudgetInputs{ReservedContextSize: 50_000}, 50_000},
		{"override", 256_000, llm.BudgetInputs{MaxCompletionTokensOverride: "8192"}, 8192},
		{"override disables the cap", 256_000, llm.BudgetInputs{MaxCompletionTokensOverride: "0"}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRigWith(t, Model{Budget: tt.budget}, summaryReply("s"))
				r.setCapability(llm.Capability{MaxContextTokens: tt.window})
				r.append(U("hi"))
				compactNow(t, r, "")
				if got := r.requests()[0].maxTokens; got != tt.want {
					t.Errorf("completion cap = %d; want %d", got, tt.want)
				}
			})
		})
	}
}

// TestCustomInstruction: the user's instruction closes the summary
// request and is recorded with the begin.
func TestCustomInstruction(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Options{}, summaryReply("s"))
		r.append(U("hi"))
		compactNow(t, r, "  keep the API names  ")
		msgs := r.requests()[0].req.Messages
		last := llm.ExtractText(msgs[len(msgs)-1], "")
		if !strings.HasSuffix(last, "\nkeep the API names") || !strings.HasPrefix(last, Instruction("")) {
			t.Errorf("instruction does not end with the user's text:\n%s", last)
		}
		var begin BeginRecord
		if err := records.Decode(r.log()[1], &begin); err != nil || begin != (BeginRecord{Source: SourceManual, Instruction: "  keep the API names  "}) {
			t.Errorf("begin record = %+v, %v", begin, err)
		}
		ev, _ := lastEvent[event.CompactionStarted](r)
		if ev.Trigger != string(SourceManual) || ev.Instruction != "  keep the API names  " {
			t.Errorf("started event = %+v", ev)
		}
		if got := r.hookLog; len(got) != 2 || got[0] != "PreCompact manual "+strconv.Itoa(estimateHistory([]history.Message{U("hi")})) ||
			!strings.HasPrefix(got[1], "PostCompact manual ") {
			t.Errorf("hooks = %v", got)
		}
	})
}

// TestReinjectedRemindersFollowTheSummary: reminders reinjected after the
// rewrite are part of the compacted history, and a failure to reinject
// does not turn a done compaction into a cancelled one (§6.17, fixed).
func TestReinjectedRemindersFollowTheSummary(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Options{}, summaryReply("s"))
		r.injected = []history.Message{history.SystemReminder("plan mode is on", history.InjectionOrigin("plan_mode"))}
		r.append(U("hi"))
		compactNow(t, r, "")
		h := r.History()
		if len(h) != 3 || !h[2].Origin.Is(history.OriginInjection) {
			t.Fatalf("history = %v; want prompt, summary, reminder", texts(history.Project(h, history.ProjectOptions{})))
		}
		// Nothing new since: the reminders count into the floor.
		if err := r.c.BeforeStep(t.Context(), 0); err != nil || len(r.requests()) != 1 {
			t.Errorf("BeforeStep after compaction: %v, %d requests", err, len(r.requests()))
		}

		failing := newRig(t, Options{Reinject: func(context.Context) error { return errors.New("disk full") }}, summaryReply("s"))
		failing.append(U("hi"))
		compactNow(t, failing, "")
		if d := cmp.Diff([]event.Type{event.TypeCompactionStarted, event.TypeCompactionCompleted}, failing.eventTypes()); d != "" {
			t.Errorf("events after a failed reinjection (-want +got):\n%s", d)
		}
		if d := cmp.Diff([]records.Type{TypeBegin, "usage.record", records.Type(history.TypeApplyCompaction), TypeComplete},
			failing.recordTypes()); d != "" {
			t.Errorf("records after a failed reinjection (-want +got):\n%s", d)
		}
	})
}

// TestSummaryRequestShape: the summariser sees the conversation the way a
// strict provider accepts it — open calls answered, stray results gone —
// without the dynamic tool protocol, and history keeps all of it.
func TestSummaryRequestShape(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Options{}, summaryReply("s"))
		r.append(U("hi"))
		r.append(history.Message{Message: llm.Message{Role: llm.RoleUser, Tools: []llm.Tool{{Name: "Grep"}}},
			Origin: history.InjectionOrigin(history.VariantDynamicToolSchema)})
		r.append(history.SystemReminder("<tools_added>\nGrep\n</tools_added>", history.SystemTriggerOrigin(history.TriggerNameLoadableTools)))
		r.append(T("stray", "a result without a call"))
		r.append(A("looking", "open"))
		before := r.History()
		compactNow(t, r, "")
		msgs := r.requests()[0].req.Messages
		var roles []string
		for _, m := range msgs {
			roles = append(roles, string(m.Role)+":"+m.ToolCallID)
			if len(m.Tools) > 0 || strings.Contains(llm.ExtractText(m, ""), "tools_added") {
				t.Errorf("the dynamic tool protocol reached the summariser: %+v", m)
			}
		}
		if d := cmp.Diff([]string{"user:", "assistant:", "tool:open", "user:"}, roles); d != "" {
			t.Errorf("summary request roles (-want +got):\n%s", d)
		}
		rec, _ := r.appliedRecord()
		if rec.CompactedCount != len(before) || rec.DroppedCount != nil {
			t.Errorf("compactedCount %d, droppedCount %v; want %d, none", rec.CompactedCount, rec.DroppedCount, len(before))
		}
	})
}
