package compaction

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/scripted"
)

// exchanges appends n user/assistant pairs of about 100 tokens each.
func exchanges(r *rig, n int) {
	for i := range n {
		r.append(U(fmt.Sprintf("question %02d ", i) + strings.Repeat("q", 380)))
		r.append(A(fmt.Sprintf("answer %02d ", i) + strings.Repeat("a", 380)))
	}
}

// input is what a summary request carried besides the instruction.
func input(c call) []llm.Message { return c.req.Messages[:len(c.req.Messages)-1] }

// isNote reports the note that stands where a request left messages out.
func isNote(m llm.Message) bool {
	return m.Role == llm.RoleUser && llm.ExtractText(m, "") == llm.ExtractText(omittedNote(), "")
}

// carried is what a summary request carried of history: its input
// without the omission note.
func carried(c call) []llm.Message {
	var out []llm.Message
	for _, m := range input(c) {
		if !isNote(m) {
			out = append(out, m)
		}
	}
	return out
}

// TestS44MediaStripThenShrink: a 413 first replaces media with markers,
// a second one shrinks the input to the 0.7 share, led by the task prompt
// before it and the omission note; history keeps the image and
// droppedCount counts what went (S44, ERRATA 28).
func TestS44MediaStripThenShrink(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Options{}, tooLarge(), tooLarge(), summaryReply("s"))
		image := llm.ImagePart("data:image/png;base64,iVBORw0KGgo=")
		r.append(history.Message{Message: llm.Message{Role: llm.RoleUser,
			Content: []llm.ContentPart{llm.TextPart("what is this?"), image}}, Origin: history.UserOrigin()})
		r.append(A("a cat"))
		exchanges(r, 5)
		compactNow(t, r, "")
		reqs := r.requests()
		if len(reqs) != 3 {
			t.Fatalf("requests = %d; want 3", len(reqs))
		}
		first, second, third := input(reqs[0]), input(reqs[1]), input(reqs[2])
		if d := cmp.Diff([]llm.ContentPart{llm.TextPart("what is this?"), image}, first[0].Content); d != "" {
			t.Errorf("request 1 lost the image (-want +got):\n%s", d)
		}
		if d := cmp.Diff([]llm.ContentPart{llm.TextPart("what is this?"), llm.TextPart("[image]")}, second[0].Content); d != "" {
			t.Errorf("request 2 content (-want +got):\n%s", d)
		}
		kept := carried(reqs[2])
		if budget := int(0.7 * float64(llm.EstimateMessages(second))); llm.EstimateMessages(kept) > budget {
			t.Errorf("request 3 carries %d tokens; want at most the 0.7 share %d", llm.EstimateMessages(kept), budget)
		}
		if d := cmp.Diff(texts(second[len(second)-len(kept)+1:]), texts(kept[1:])); d != "" {
			t.Errorf("request 3 is not the newest suffix of request 2 (-want +got):\n%s", d)
		}
		if !strings.HasPrefix(llm.ExtractText(third[0], ""), "question ") || !isNote(third[1]) {
			t.Errorf("request 3 starts %q; want the task prompt, then the note", texts(third[:2]))
		}
		want := 12 - len(kept)
		rec, ok := r.appliedRecord()
		if !ok || rec.DroppedCount == nil || *rec.DroppedCount != want {
			t.Errorf("droppedCount = %v; want %d", rec.DroppedCount, want)
		}
		if reqs[2].fields.DroppedCount != want || reqs[0].fields.Kind != RequestKind {
			t.Errorf("request log fields = %+v, %+v", reqs[0].fields, reqs[2].fields)
		}
		if d := cmp.Diff(image, r.History()[0].Content[1]); d != "" {
			t.Errorf("history lost the image (-want +got):\n%s", d)
		}
	})
}

// TestS45OverflowShrinkRatios: a summariser that overflows while its
// input is over 20 messages gets there within 4 requests, never starting
// with a tool result (S45).
func TestS45OverflowShrinkRatios(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Options{})
		r.respond = func(req llm.Request) scripted.Response {
			if len(req.Messages)-1 > 20 {
				return overflow()
			}
			return summaryReply("fits now")
		}
		r.append(U("the task " + strings.Repeat("t", 380)))
		for i := range 29 {
			id := fmt.Sprintf("c%02d", i)
			r.append(A("", id))
			r.append(T(id, strings.Repeat("r", 390)))
		}
		r.append(A("done " + strings.Repeat("d", 380)))
		compactNow(t, r, "")
		reqs := r.requests()
		if len(reqs) > 4 {
			t.Errorf("requests = %d; want at most 4", len(reqs))
		}
		for i, c := range reqs {
			if in := input(c); len(in) > 0 && in[0].Role == llm.RoleTool {
				t.Errorf("request %d starts with a tool result", i+1)
			}
		}
		rec, ok := r.appliedRecord()
		if !ok || rec.CompactedCount != 60 || rec.DroppedCount == nil || *rec.DroppedCount == 0 {
			t.Errorf("record = %+v; want compactedCount 60 and a droppedCount", rec)
		}
	})
}

// TestS46OverflowShrinkExhausted: a summariser that always overflows gets
// exactly 4 requests; the manual compaction fails with compaction.failed
// (S46).
func TestS46OverflowShrinkExhausted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Options{}, overflow(), overflow(), overflow(), overflow(), summaryReply("never"))
		exchanges(r, 30)
		compactNow(t, r, "")
		if n := len(r.requests()); n != 4 {
			t.Errorf("requests = %d; want 4", n)
		}
		if d := cmp.Diff([]event.Type{event.TypeCompactionStarted, event.TypeCompactionCancelled, event.TypeError}, r.eventTypes()); d != "" {
			t.Errorf("events (-want +got):\n%s", d)
		}
		failure, _ := r.lastFailure()
		var e *Error
		if !errors.As(failure, &e) || e.Code() != CodeFailed || !llm.IsContextOverflow(failure) {
			t.Errorf("error event = %v; want compaction.failed wrapping the overflow", failure)
		}
		var e2 *Error
		if err := r.c.Wait(t.Context()); !errors.As(err, &e2) || e2.Code() != CodeFailed {
			t.Errorf("Wait after the end = %v; want the compaction.failed of the last compaction", err)
		}
	})
}

// TestS47EmptySummariesBounded: empty answers shrink the input at most
// five times; the sixth empty answer ends the compaction (S47).
func TestS47EmptySummariesBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		empty := []scripted.Response{scripted.Text("  \n"), {}, scripted.Think("only thinking", ""),
			scripted.Text(""), {}, scripted.Text(" "), {}}
		r := newRig(t, Options{}, append(empty, summaryReply("finally"))...)
		exchanges(r, 5)
		compactNow(t, r, "")
		if n := len(r.requests()); n != 6 {
			t.Errorf("requests = %d; want 6", n)
		}
		if _, ok := r.appliedRecord(); ok {
			t.Errorf("the compaction applied a summary")
		}
		failure, _ := r.lastFailure()
		if !llm.IsEmptyResponse(failure) {
			t.Errorf("error = %v; want the empty response", failure)
		}
		// Each shrink leaves one more message out; the task prompt of
		// what is kept stays in front.
		for i, c := range r.requests() {
			if got, want := len(carried(c)), 10-i; got != want {
				t.Errorf("request %d carries %d messages; want %d", i+1, got, want)
			}
		}
	})
}

// TestS48TruncatedSummary: a truncated answer leaves out the oldest input
// besides the task prompt, which stays in front with the omission note
// after it, and asks again (S48, ERRATA 28).
func TestS48TruncatedSummary(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cut := scripted.Text("I was in the middle of")
		cut.Finish = llm.FinishTruncated
		r := newRig(t, Options{}, cut, summaryReply("complete"))
		exchanges(r, 3)
		compactNow(t, r, "")
		reqs := r.requests()
		if len(reqs) != 2 {
			t.Fatalf("requests = %d; want 2", len(reqs))
		}
		first := input(reqs[0])
		want := append([]llm.Message{first[0], omittedNote()}, first[2:]...)
		if d := cmp.Diff(want, input(reqs[1])); d != "" {
			t.Errorf("second input is not the first without its oldest answer (-want +got):\n%s", d)
		}
		rec, _ := r.appliedRecord()
		if rec.DroppedCount == nil || *rec.DroppedCount < 1 {
			t.Errorf("droppedCount = %v; want ≥ 1", rec.DroppedCount)
		}
	})
}

// TestS49TransientRetryAndBackoff: a 503 is retried after 500 ms plus up
// to 25 % jitter; a cancel during the backoff sends nothing more (S49).
func TestS49TransientRetryAndBackoff(t *testing.T) {
	unavailable := func() scripted.Response {
		return status(503, `{"error":{"message":"The engine is currently overloaded","type":"server_error"}}`)
	}
	for _, jitter := range []float64{0, 0.5, 0.999} {
		t.Run(fmt.Sprint(jitter), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t, Options{Rand: func() float64 { return jitter }}, unavailable(), summaryReply("s"))
				r.append(U("hi"))
				compactNow(t, r, "")
				reqs := r.requests()
				if len(reqs) != 2 {
					t.Fatalf("requests = %d; want 2", len(reqs))
				}
				if d := reqs[1].at.Sub(reqs[0].at); d < 500*time.Millisecond || d > 625*time.Millisecond {
					t.Errorf("backoff = %v; want within [500ms, 625ms]", d)
				}
			})
		})
	}
	t.Run("cancel during backoff", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			r := newRig(t, Options{}, unavailable(), summaryReply("s"))
			r.append(U("hi"))
			if err := r.c.Compact(t.Context(), ""); err != nil {
				t.Fatal(err)
			}
			synctest.Wait()
			if err := r.c.Cancel(t.Context()); err != nil {
				t.Fatal(err)
			}
			time.Sleep(10 * time.Second)
			synctest.Wait()
			if n := len(r.requests()); n != 1 {
				t.Errorf("requests = %d; want 1", n)
			}
			if d := cmp.Diff([]event.Type{event.TypeCompactionStarted, event.TypeCompactionCancelled}, r.eventTypes()); d != "" {
				t.Errorf("events (-want +got):\n%s", d)
			}
		})
	})
}

// TestTransientRetriesBounded: five transient failures in a row end the
// round.
func TestTransientRetriesBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var replies []scripted.Response
		for range 6 {
			replies = append(replies, status(500, `{"error":{"message":"boom","type":"server_error"}}`))
		}
		r := newRig(t, Options{}, replies...)
		r.append(U("hi"))
		compactNow(t, r, "")
		if n := len(r.requests()); n != 5 {
			t.Errorf("requests = %d; want 5", n)
		}
		if _, ok := r.lastFailure(); !ok {
			t.Errorf("no error event after the retries ran out")
		}
	})
}

// TestAuthErrorPassesUnchanged: an authentication failure is not wrapped,
// so the user sees what to fix.
func TestAuthErrorPassesUnchanged(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Options{}, status(401, `{"error":{"message":"invalid api key","type":"auth"}}`))
		r.append(U("hi"))
		compactNow(t, r, "")
		failure, _ := r.lastFailure()
		var e *Error
		if !llm.IsAuthError(failure) || errors.As(failure, &e) {
			t.Errorf("error = %v; want the auth error unchanged", failure)
		}
	})
}

// TestFitBeforeSending: a request known to be over the effective window
// drops its oldest input before it is sent.
func TestFitBeforeSending(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Options{}, summaryReply("s"))
		exchanges(r, 20) // about 4,000 tokens
		r.setCapability(llm.Capability{MaxContextTokens: 2_500})
		compactNow(t, r, "")
		reqs := r.requests()
		if len(reqs) != 1 {
			t.Fatalf("requests = %d; want 1", len(reqs))
		}
		est := estimateRequest(reqs[0].req.System, reqs[0].req.Tools, reqs[0].req.Messages)
		if est > 2_500 {
			t.Errorf("request estimate %d is over the window", est)
		}
		in := input(reqs[0])
		if !strings.HasPrefix(llm.ExtractText(in[len(in)-1], ""), "answer 19") {
			t.Errorf("the newest message was not kept")
		}
		if !strings.HasPrefix(llm.ExtractText(in[0], ""), "question ") || !isNote(in[1]) {
			t.Errorf("the request starts %q; want a task prompt, then the note", texts(in[:2]))
		}
		rec, _ := r.appliedRecord()
		if want := 40 - len(carried(reqs[0])); rec.DroppedCount == nil || *rec.DroppedCount != want {
			t.Errorf("droppedCount = %v; want %d", rec.DroppedCount, want)
		}
	})
}

// request is a summary request over h, for the shrink tests.
func request(h []history.Message) *summaryRequest {
	return &summaryRequest{snapshot: h, task: -1, instruction: llm.UserMessage(Instruction(""))}
}

// roles lists the roles of msgs.
func roles(msgs []llm.Message) []llm.Role {
	var out []llm.Role
	for _, m := range msgs {
		out = append(out, m.Role)
	}
	return out
}

// TestShrinkKeepsTheTaskInFront: an overflow shrink keeps the newest
// share of the input; the user input before it is pinned in front with
// the note after it, so the request never starts with an assistant or a
// tool result (ERRATA 28).
func TestShrinkKeepsTheTaskInFront(t *testing.T) {
	h := []history.Message{U(strings.Repeat("u", 400)), A(strings.Repeat("a", 400), "c1"), T("c1", strings.Repeat("t", 400)),
		A(strings.Repeat("b", 400)), U(strings.Repeat("v", 400))}
	s := request(h)
	s.shrink(1) // 0.7 of ~505 keeps the last two and the task prompt; the tool result never leads
	if d := cmp.Diff([]llm.Role{llm.RoleUser, llm.RoleUser, llm.RoleAssistant, llm.RoleUser, llm.RoleUser}, roles(s.messages())); d != "" {
		t.Errorf("attempt 1 roles (-want +got):\n%s", d)
	}
	if m := s.messages(); llm.ExtractText(m[0], "")[0] != 'u' || !isNote(m[1]) || s.dropped != 2 {
		t.Errorf("attempt 1 sends %q, dropped %d; want the task, the note, the rest, 2 left out", texts(m), s.dropped)
	}
	s.shrink(2) // 0.5 of ~303: only the newest prompt, now the task
	if m := s.messages(); len(m) != 3 || llm.ExtractText(m[0], "")[0] != 'v' || !isNote(m[1]) || s.dropped != 4 || s.size() != 1 {
		t.Errorf("attempt 2 sends %q, dropped %d; want the newest prompt, the note and the instruction", texts(m), s.dropped)
	}

	one := request(h[:1])
	one.shrink(1) // the task alone is over the budget: the note leads
	if m := one.messages(); len(m) != 2 || !isNote(m[0]) || one.dropped != 1 || one.size() != 0 {
		t.Errorf("a single message over the budget: sends %q, dropped %d", texts(m), one.dropped)
	}

	lead := request([]history.Message{A("", "c1"), T("c1", "x"), U("y")})
	lead.dropOldest()
	if m := lead.messages(); len(m) != 3 || !isNote(m[0]) || llm.ExtractText(m[1], "") != "y" || lead.dropped != 2 {
		t.Errorf("dropOldest sends %q, dropped %d; want the note, the prompt and the instruction", texts(m), lead.dropped)
	}
}

// TestDropOldestKeepsTheTask: leaving out the oldest message leaves out
// the oldest one besides the task prompt, with the tool results it
// leaves leading, until only the task is left.
func TestDropOldestKeepsTheTask(t *testing.T) {
	s := request([]history.Message{U("task"), A("", "c1"), T("c1", "r1"), A("", "c2"), T("c2", "r2"), A("done")})
	u, a, tool := llm.RoleUser, llm.RoleAssistant, llm.RoleTool
	for i, want := range []struct {
		roles   []llm.Role
		dropped int
	}{
		{[]llm.Role{u, u, a, tool, a, u}, 2},
		{[]llm.Role{u, u, a, u}, 4},
		{[]llm.Role{u, u, u}, 5},
	} {
		s.dropOldest()
		msgs := s.messages()
		if d := cmp.Diff(want.roles, roles(msgs)); d != "" || s.dropped != want.dropped {
			t.Errorf("drop %d: dropped %d, roles (-want +got):\n%s", i+1, s.dropped, d)
		}
		if llm.ExtractText(msgs[0], "") != "task" || !isNote(msgs[1]) {
			t.Errorf("drop %d starts %q; want the task, then the note", i+1, texts(msgs[:2]))
		}
	}
	if s.size() != 1 {
		t.Errorf("size = %d; want the task alone", s.size())
	}
}

func TestStripMediaNeverMutates(t *testing.T) {
	img := llm.ImagePart("data:image/png;base64,AAAA")
	h := []history.Message{U("plain"), {Message: llm.Message{Role: llm.RoleUser,
		Content: []llm.ContentPart{img, llm.AudioPart("a.wav"), llm.VideoPart("v.mp4", "")}}}}
	out, changed := stripMedia(h)
	if !changed || h[1].Content[0].Type != llm.PartImageURL {
		t.Fatalf("changed %v, input mutated: %+v", changed, h[1].Content[0])
	}
	if d := cmp.Diff([]string{"plain", "[image]|[audio]|[video]"}, texts([]llm.Message{out[0].Message, out[1].Message})); d != "" {
		t.Errorf("stripped (-want +got):\n%s", d)
	}
	if _, changed := stripMedia(h[:1]); changed {
		t.Errorf("text-only input reported a change")
	}
}
