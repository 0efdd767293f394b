package compaction

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/scripted"
)

// busyHistory appends a conversation with tool exchanges, a failed tool,
// an image and a notification.
func busyHistory(r *rig) {
	r.append(U("look at a.go"))
	r.append(A("reading", "c1", "c2"))
	r.append(T("c1", "package a"))
	r.append(history.Message{Message: llm.ToolMessage("c2", llm.TextPart("no such file")), IsError: true})
	r.append(history.Message{Message: llm.Message{Role: llm.RoleUser,
		Content: []llm.ContentPart{llm.TextPart("and this"), llm.ImagePart("data:image/png;base64,AAAA")}},
		Origin: history.UserOrigin()})
	r.append(N("task t1 finished"))
	r.append(A("all done"))
}

func historyJSON(t *testing.T, h []history.Message) string {
	t.Helper()
	b, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestCancelLeavesHistoryIdentical: cancelling during the round leaves
// history byte-identical to before it started, and hands waiting input
// back once.
func TestCancelLeavesHistoryIdentical(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Options{}, summaryReply("never applied"))
		busyHistory(r)
		r.setTokens(1234)
		before, tokens := historyJSON(t, r.History()), r.mem.TokenCount()
		release := r.holdRequests()
		defer release()
		if err := r.c.Compact(t.Context(), ""); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if !r.c.IsCompacting() {
			t.Fatal("not compacting while the summary is written")
		}
		if err := r.c.Cancel(t.Context()); err != nil {
			t.Fatal(err)
		}
		if r.c.IsCompacting() {
			t.Errorf("still compacting when Cancel returned")
		}
		synctest.Wait()
		if got := historyJSON(t, r.History()); got != before || r.mem.TokenCount() != tokens {
			t.Errorf("history changed:\nbefore %s\nafter  %s", before, got)
		}
		if d := cmp.Diff([]records.Type{TypeBegin, TypeCancel}, r.recordTypes()); d != "" {
			t.Errorf("records (-want +got):\n%s", d)
		}
		if d := cmp.Diff([]event.Type{event.TypeCompactionStarted, event.TypeCompactionCancelled}, r.eventTypes()); d != "" {
			t.Errorf("events (-want +got):\n%s", d)
		}
		if r.finished.Load() != 1 {
			t.Errorf("OnCompactionFinished calls = %d; want 1", r.finished.Load())
		}
	})
}

// TestCrashDuringRoundKeepsHistory: a log cut anywhere before the rewrite
// — as a crash during the round leaves it — resumes to the history before
// the compaction; the whole log resumes to the compacted one.
func TestCrashDuringRoundKeepsHistory(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Options{}, summaryReply("the summary"))
		busyHistory(r)
		before := r.History()
		start := len(r.log())
		compactNow(t, r, "")
		log := r.log()
		applyAt := -1
		for i, rec := range log {
			if rec.Type == records.Type(history.TypeApplyCompaction) {
				applyAt = i
			}
		}
		if applyAt < start {
			t.Fatalf("no rewrite in %v", r.recordTypes())
		}
		for cut := start; cut <= applyAt; cut++ {
			cr := &rig{t: t, recs: log[:cut]}
			if d := cmp.Diff(before, cr.resumed().History()); d != "" {
				t.Errorf("log cut after %d records: history (-before +resumed):\n%s", cut, d)
			}
		}
		if d := cmp.Diff(r.History(), r.resumed().History()); d != "" {
			t.Errorf("whole log: history (-live +resumed):\n%s", d)
		}
	})
}

// TestResumeRebuildsCompactedHistory: after automatic and manual
// compactions with an elision, replaying the log rebuilds history and its
// token count without asking the model.
func TestResumeRebuildsCompactedHistory(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Options{}, summaryReply("first"), summaryReply("second"))
		r.setCapability(llm.Capability{MaxContextTokens: 30_000})
		exchanges(r, 30)
		for i := range 25 {
			r.append(U(fmt.Sprintf("long prompt %d ", i) + longText(4_000)))
		}
		if err := r.c.BeforeStep(t.Context(), 0); err != nil {
			t.Fatal(err)
		}
		r.append(A("after the first"))
		r.append(U("one more"))
		compactNow(t, r, "keep names")
		calls := len(r.requests())
		if calls != 2 {
			t.Fatalf("summary requests = %d; want 2", calls)
		}
		if rec, _ := r.appliedRecord(); rec.KeptHeadUserMessageCount == nil {
			t.Errorf("the first compaction did not elide: %+v", rec)
		}
		mem := r.resumed()
		if d := cmp.Diff(r.History(), mem.History()); d != "" {
			t.Errorf("history (-live +resumed):\n%s", d)
		}
		if mem.TokenCount() != r.mem.TokenCount() {
			t.Errorf("token count resumed %d; live %d", mem.TokenCount(), r.mem.TokenCount())
		}
		if len(r.requests()) != calls {
			t.Errorf("resume called the model")
		}
	})
}

func longText(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = 'a' + byte(i%26)
	}
	return string(b)
}

// TestCancelAfterClaimCompletes: a cancel that arrives once the rewrite
// is claimed is too late: the compaction completes and records no cancel.
func TestCancelAfterClaimCompletes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Options{}, summaryReply("s"))
		r.append(U("hi"))
		r.afterBuild = func() {
			if err := r.c.Cancel(context.Background()); err != nil {
				t.Errorf("Cancel: %v", err)
			}
		}
		compactNow(t, r, "")
		if d := cmp.Diff([]event.Type{event.TypeCompactionStarted, event.TypeCompactionCompleted}, r.eventTypes()); d != "" {
			t.Errorf("events (-want +got):\n%s", d)
		}
		if d := cmp.Diff([]records.Type{TypeBegin, "usage.record", records.Type(history.TypeApplyCompaction), TypeComplete},
			r.recordTypes()); d != "" {
			t.Errorf("records (-want +got):\n%s", d)
		}
	})
}

// TestCancelBeforeBeginRecorded: a cancel between the reservation and the
// begin record is recorded after the begin, never before it.
func TestCancelBeforeBeginRecorded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Options{}, summaryReply("s"))
		r.append(U("hi"))
		r.onCommit = func(typ records.Type) {
			if typ == TypeBegin {
				if err := r.c.Cancel(context.Background()); err != nil {
					t.Errorf("Cancel: %v", err)
				}
			}
		}
		if err := r.c.Compact(t.Context(), ""); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if d := cmp.Diff([]records.Type{TypeBegin, TypeCancel}, r.recordTypes()); d != "" {
			t.Errorf("records (-want +got):\n%s", d)
		}
		if d := cmp.Diff([]event.Type{event.TypeCompactionStarted, event.TypeCompactionCancelled}, r.eventTypes()); d != "" {
			t.Errorf("events (-want +got):\n%s", d)
		}
		if len(r.requests()) != 0 || r.finished.Load() != 1 {
			t.Errorf("requests %d, finished %d; want 0, 1", len(r.requests()), r.finished.Load())
		}
	})
}

// TestInputHandedBackOnEveryPath: OnCompactionFinished runs exactly once
// for every compaction, however it ends.
func TestInputHandedBackOnEveryPath(t *testing.T) {
	for _, tt := range []struct {
		name  string
		reply scripted.Response
	}{
		{"success", summaryReply("s")},
		{"failure", status(400, `{"error":{"message":"bad","type":"invalid_request_error"}}`)},
		{"race", summaryReply("s")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t, Options{}, tt.reply)
				r.append(U("hi"))
				if tt.name == "race" {
					r.afterBuild = nil
					release := r.holdRequests()
					if err := r.c.Compact(t.Context(), ""); err != nil {
						t.Fatal(err)
					}
					synctest.Wait()
					r.append(A("a live step"))
					release()
					synctest.Wait()
				} else {
					compactNow(t, r, "")
				}
				if r.finished.Load() != 1 || r.c.IsCompacting() {
					t.Errorf("finished %d, compacting %v; want 1, false", r.finished.Load(), r.c.IsCompacting())
				}
			})
		})
	}
}

// TestConcurrentCompactAndCancel: compactions and cancels racing from
// many goroutines never both rewrite and cancel the same compaction, and
// every begin ends exactly once.
func TestConcurrentCompactAndCancel(t *testing.T) {
	var replies []scripted.Response
	for range 200 {
		replies = append(replies, summaryReply("s"))
	}
	r := newRig(t, Options{}, replies...)
	r.append(U("hi"))
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Go(func() {
			if i%2 == 0 {
				_ = r.c.Compact(context.Background(), "") // refusals and no-ops are fine here
			} else {
				_ = r.c.Cancel(context.Background())
			}
		})
		if i%10 == 9 {
			r.append(U(fmt.Sprint("more ", i)))
		}
	}
	wg.Wait()
	if err := r.c.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	open := false
	for _, typ := range r.recordTypes() {
		switch typ {
		case TypeBegin:
			if open {
				t.Fatalf("two compactions overlap: %v", r.recordTypes())
			}
			open = true
		case TypeCancel, TypeComplete:
			open = false
		case records.Type(history.TypeApplyCompaction):
			if !open {
				t.Fatalf("a rewrite outside a compaction: %v", r.recordTypes())
			}
		}
	}
	for i, typ := range r.recordTypes() {
		if typ == TypeCancel && i > 0 && r.recordTypes()[i-1] == records.Type(history.TypeApplyCompaction) {
			t.Fatalf("a rewritten compaction was cancelled: %v", r.recordTypes())
		}
	}
	if d := cmp.Diff(r.History(), r.resumed().History()); d != "" {
		t.Errorf("history (-live +resumed):\n%s", d)
	}
}

// TestCloseStopsTheWorker: Close cancels a running compaction and returns
// after its worker; nothing is recorded for it.
func TestCloseStopsTheWorker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Options{}, summaryReply("s"))
		r.append(U("hi"))
		release := r.holdRequests()
		defer release()
		if err := r.c.Compact(t.Context(), ""); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if err := r.c.Close(t.Context()); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff([]records.Type{TypeBegin}, r.recordTypes()); d != "" {
			t.Errorf("records (-want +got):\n%s", d)
		}
		if err := r.c.Compact(t.Context(), ""); err != nil || r.c.IsCompacting() {
			t.Errorf("Compact after Close: %v, compacting %v; want a no-op", err, r.c.IsCompacting())
		}
	})
}

// TestWaitReturnsManualFailure: Wait reports how a manual compaction
// failed, for print mode.
func TestWaitReturnsManualFailure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Options{}, status(400, `{"error":{"message":"bad","type":"invalid_request_error"}}`))
		r.append(U("hi"))
		release := r.holdRequests()
		if err := r.c.Compact(t.Context(), ""); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		errc := make(chan error)
		go func() { errc <- r.c.Wait(t.Context()) }()
		synctest.Wait()
		release()
		var e *Error
		if err := <-errc; err == nil || !asError(err, &e) || e.Code() != CodeFailed {
			t.Errorf("Wait = %v; want compaction.failed", err)
		}
	})
}

func asError(err error, target **Error) bool {
	e, ok := err.(*Error)
	*target = e
	return ok
}
