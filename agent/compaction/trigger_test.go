package compaction

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/scripted"
)

// summaryReply is a summariser answer with usage.
func summaryReply(text string) scripted.Response {
	r := scripted.Text(text)
	r.Usage = &llm.TokenUsage{InputOther: 100, Output: 5}
	return r
}

// TestS38ThresholdBeforeStep: with window 100,000 and no reserve, a step
// whose pending context is 84,992 runs without compaction; at 86,002 the
// step starts an automatic compaction and waits for it, and history
// becomes the kept prompt and the prefixed summary (spec 03 §8 S38).
func TestS38ThresholdBeforeStep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRigWith(t, Model{Strategy: StrategyOptions{ReservedContextSize: intp(0)}}, summaryReply("I was reading files."))
		r.setCapability(llm.Capability{MaxContextTokens: 100_000})
		r.append(U("read the files"))
		r.append(A("", "c1"))
		r.setTokens(40_000)
		r.append(T("c1", "ok"))
		r.append(A("", "c2"))
		r.setTokens(84_990)
		r.append(T("c2", "ok"))
		if got := r.TokenCountWithPending(); got != 84_992 {
			t.Fatalf("pending context = %d; want 84,992", got)
		}
		if err := r.c.BeforeStep(t.Context(), 0); err != nil {
			t.Fatalf("BeforeStep at 84,992: %v", err)
		}
		if len(r.requests()) != 0 || len(r.eventTypes()) != 0 {
			t.Fatalf("compaction started at 84,992: %v", r.eventTypes())
		}
		r.append(A("", "c3"))
		r.setTokens(86_000)
		r.append(T("c3", "ok"))
		if err := r.c.BeforeStep(t.Context(), 0); err != nil {
			t.Fatalf("BeforeStep at 86,002: %v", err)
		}
		want := []event.Type{event.TypeCompactionStarted, event.TypeCompactionBlocked, event.TypeCompactionCompleted}
		if d := cmp.Diff(want, r.eventTypes()); d != "" {
			t.Errorf("events (-want +got):\n%s", d)
		}
		if ev, _ := lastEvent[event.CompactionStarted](r); ev.Trigger != string(SourceAuto) {
			t.Errorf("started trigger = %q; want auto", ev.Trigger)
		}
		reqs := r.requests()
		if len(reqs) != 1 {
			t.Fatalf("summariser requests = %d; want 1", len(reqs))
		}
		req := reqs[0].req
		last := req.Messages[len(req.Messages)-1]
		if last.Role != llm.RoleUser || llm.ExtractText(last, "") != Instruction("") {
			t.Errorf("last message of the summary request is not the instruction: %+v", last)
		}
		if req.System != "You are a test agent." || len(req.Tools) != 1 || req.Tools[0].Name != "Read" {
			t.Errorf("summary request does not carry the loop's system prompt and tools: %q %v", req.System, req.Tools)
		}
		wantTypes := []records.Type{TypeBegin, "usage.record", records.Type(history.TypeApplyCompaction), TypeComplete}
		if d := cmp.Diff(wantTypes, r.recordTypes()); d != "" {
			t.Errorf("records (-want +got):\n%s", d)
		}
		got := texts(r.Messages())
		wantTexts := []string{"read the files", ContextSummary("I was reading files.")}
		if d := cmp.Diff(wantTexts, got); d != "" {
			t.Errorf("next request (-want +got):\n%s", d)
		}
		if r.refresh.Load() != 1 || r.finished.Load() != 1 {
			t.Errorf("refresh %d, finished %d; want 1, 1", r.refresh.Load(), r.finished.Load())
		}
		// Nothing new since the compaction: the next step does not compact
		// the compacted history again.
		if err := r.c.BeforeStep(t.Context(), 0); err != nil || len(r.requests()) != 1 {
			t.Errorf("second BeforeStep: %v, %d requests; want nil, 1", err, len(r.requests()))
		}
	})
}

// TestS39ReserveTrigger: window 2,000, reserve 500, history 1,400 tokens
// and a 440-character prompt compact before the first step (S39).
func TestS39ReserveTrigger(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRigWith(t, Model{Strategy: StrategyOptions{ReservedContextSize: intp(500)}}, summaryReply("earlier work"))
		r.setCapability(llm.Capability{MaxContextTokens: 2_000})
		r.append(U("first"))
		r.append(A("done"))
		r.setTokens(1_400)
		r.append(U(strings.Repeat("p", 440)))
		if err := r.c.BeforeStep(t.Context(), 1); err != nil {
			t.Fatal(err)
		}
		if len(r.requests()) != 1 {
			t.Fatalf("summariser requests = %d; want 1", len(r.requests()))
		}
		if _, ok := r.appliedRecord(); !ok {
			t.Errorf("no context.apply_compaction")
		}
	})
}

// TestS40ReserveIgnored: a reserve larger than the window is ignored (S40).
func TestS40ReserveIgnored(t *testing.T) {
	r := newRigWith(t, Model{Strategy: StrategyOptions{ReservedContextSize: intp(50_000)}})
	r.setCapability(llm.Capability{MaxContextTokens: 32_000})
	r.append(U("hello"))
	r.setTokens(10_000)
	if err := r.c.BeforeStep(t.Context(), 0); err != nil {
		t.Fatal(err)
	}
	if r.c.IsCompacting() || len(r.eventTypes()) != 0 {
		t.Errorf("compaction started: %v", r.eventTypes())
	}
}

// TestS41InputCap: a declared input cap below the context already over
// triggers before the first step (S41).
func TestS41InputCap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Options{}, summaryReply("notes"))
		r.setCapability(llm.Capability{MaxContextTokens: 200_000, MaxInputTokens: 150_000})
		r.append(U("go on"))
		r.setTokens(160_000)
		if err := r.c.BeforeStep(t.Context(), 0); err != nil {
			t.Fatal(err)
		}
		if _, ok := r.appliedRecord(); !ok {
			t.Errorf("no compaction over the input cap")
		}
	})
}

// runSteps plays TurnFlow's run loop (spec 03 §1.6) over a step that
// fails with the errors steps returns, one per run, until a run succeeds
// or the compactor gives up.
func runSteps(ctx context.Context, c *FullCompaction, steps func() error) error {
	for {
		if err := c.BeforeStep(ctx, 0); err != nil {
			return err
		}
		err := steps()
		if err == nil {
			c.AfterStep(ctx)
			return nil
		}
		var coded interface{ Code() string }
		overflow := llm.IsContextOverflow(err) || (errors.As(err, &coded) && coded.Code() == CodeContextOverflow)
		est := c.EstimateCurrentRequestTokens()
		if !overflow && !c.ShouldRecoverFromContextOverflow(err, est) {
			return err
		}
		c.ObserveContextOverflow(est)
		if herr := c.HandleOverflowError(ctx, err); herr != nil {
			return herr
		}
	}
}

// TestS50ProviderOverflowInTurn: a step rejected as over the window
// compacts, lowers the effective window to 85 % of the estimate, and the
// retried step succeeds: 3 requests in all (S50).
func TestS50ProviderOverflowInTurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Options{}, summaryReply("summary"))
		r.setCapability(llm.Capability{MaxContextTokens: 200_000})
		r.append(U("hi"))
		est := r.c.EstimateCurrentRequestTokens()
		loopRequests := 0
		err := runSteps(t.Context(), r.c, func() error {
			loopRequests++
			if loopRequests == 1 {
				return overflow().Err
			}
			return nil
		})
		if err != nil {
			t.Fatalf("turn failed: %v", err)
		}
		if total := loopRequests + len(r.requests()); total != 3 {
			t.Errorf("requests = %d; want 3", total)
		}
		if ev, ok := lastEvent[event.CompactionStarted](r); !ok || ev.Trigger != string(SourceAuto) {
			t.Errorf("no compaction.started{auto}: %v", r.eventTypes())
		}
		if got, want := r.c.EffectiveMaxContextTokens(), est*85/100; got != want {
			t.Errorf("effective window = %d; want floor(%d × 0.85) = %d", got, est, want)
		}
	})
}

// TestS51OverflowGuard: a provider that overflows every step fails the
// turn after three compactions: 7 requests, 3 compaction.started (S51).
func TestS51OverflowGuard(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Options{}, summaryReply("one"), summaryReply("two"), summaryReply("three"))
		r.append(U("hi"))
		loopRequests := 0
		err := runSteps(t.Context(), r.c, func() error {
			loopRequests++
			r.append(U("more")) // something new for the next compaction
			return overflow().Err
		})
		var e *Error
		if !errors.As(err, &e) || e.Code() != CodeContextOverflow ||
			e.Error() != "Compaction failed to bring the context under the model window after 3 attempts." {
			t.Fatalf("turn error = %v; want the context.overflow guard", err)
		}
		if !llm.IsContextOverflow(errors.Unwrap(err)) {
			t.Errorf("the guard does not keep the provider overflow as its cause")
		}
		if total := loopRequests + len(r.requests()); total != 7 {
			t.Errorf("requests = %d; want 7", total)
		}
		started := 0
		for _, ev := range r.eventTypes() {
			if ev == event.TypeCompactionStarted {
				started++
			}
		}
		if started != 3 {
			t.Errorf("compaction.started = %d; want 3", started)
		}
	})
}

// TestS58FailureWhileBlocked: an automatic compaction whose summariser
// fails with a non-retryable 400 is cancelled, and the waiting step fails
// with compaction.failed (S58).
func TestS58FailureWhileBlocked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Options{}, status(400, `{"error":{"message":"bad request","type":"invalid_request_error"}}`))
		r.setCapability(llm.Capability{MaxContextTokens: 1_000})
		r.append(U(strings.Repeat("x", 4_000)))
		err := r.c.BeforeStep(t.Context(), 0)
		var e *Error
		if !errors.As(err, &e) || e.Code() != CodeFailed || !strings.Contains(e.Error(), "bad request") {
			t.Fatalf("BeforeStep = %v; want compaction.failed with the cause's text", err)
		}
		if d := cmp.Diff([]event.Type{event.TypeCompactionStarted, event.TypeCompactionBlocked, event.TypeCompactionCancelled}, r.eventTypes()); d != "" {
			t.Errorf("events (-want +got):\n%s", d)
		}
		if d := cmp.Diff([]records.Type{TypeBegin, TypeCancel}, r.recordTypes()); d != "" {
			t.Errorf("records (-want +got):\n%s", d)
		}
		if r.c.IsCompacting() || r.finished.Load() != 1 {
			t.Errorf("compacting %v, finished %d; want false, 1", r.c.IsCompacting(), r.finished.Load())
		}
	})
}

// TestS59CancelWhileBlocked: cancelling the turn while it waits cancels
// the compaction and leaves history alone (S59).
func TestS59CancelWhileBlocked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Options{}, summaryReply("too late"))
		r.setCapability(llm.Capability{MaxContextTokens: 1_000})
		r.append(U(strings.Repeat("x", 4_000)))
		before := r.History()
		release := r.holdRequests()
		defer release()
		ctx, cancel := context.WithCancel(t.Context())
		errc := make(chan error)
		go func() { errc <- r.c.BeforeStep(ctx, 0) }()
		synctest.Wait()
		cancel()
		err := <-errc
		if !llm.IsAbort(err) {
			t.Fatalf("BeforeStep = %v; want an abort", err)
		}
		if d := cmp.Diff([]event.Type{event.TypeCompactionStarted, event.TypeCompactionBlocked, event.TypeCompactionCancelled}, r.eventTypes()); d != "" {
			t.Errorf("events (-want +got):\n%s", d)
		}
		if _, ok := r.appliedRecord(); ok {
			t.Errorf("a cancelled compaction rewrote history")
		}
		if d := cmp.Diff(before, r.History()); d != "" {
			t.Errorf("history changed (-before +after):\n%s", d)
		}
	})
}

// TestCompactionLimit: a strategy with a per-turn cap fails the step with
// context.overflow once the cap is used, without lowering the window and
// without another compaction (the §6.17 limitation, fixed).
func TestCompactionLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRigWith(t, Model{Strategy: StrategyOptions{MaxCompactionPerTurn: 1}}, summaryReply("one"))
		r.setCapability(llm.Capability{MaxContextTokens: 1_000})
		r.append(U(strings.Repeat("x", 4_000)))
		if err := r.c.BeforeStep(t.Context(), 0); err != nil {
			t.Fatalf("first compaction: %v", err)
		}
		r.append(U(strings.Repeat("y", 4_000)))
		err := runSteps(t.Context(), r.c, func() error { t.Fatal("the step ran over the window"); return nil })
		var e *Error
		if !errors.As(err, &e) || e.Code() != CodeContextOverflow || e.Error() != "Compaction limit exceeded (1)" ||
			e.Details()["maxCompactions"] != 1 {
			t.Fatalf("error = %v; want the compaction limit", err)
		}
		if got := r.c.EffectiveMaxContextTokens(); got != 1_000 {
			t.Errorf("the limit lowered the window to %d", got)
		}
		if len(r.requests()) != 1 {
			t.Errorf("summariser requests = %d; want 1", len(r.requests()))
		}
		r.c.ResetForTurn()
		if err := r.c.BeforeStep(t.Context(), 1); err != nil || len(r.requests()) != 2 {
			t.Errorf("next turn: %v, %d requests; want a new compaction", err, len(r.requests()))
		}
	})
}

// TestBackgroundCompactionAfterStep: a strategy that triggers below its
// block threshold starts the compaction after a step and lets the next
// step run beside it.
func TestBackgroundCompactionAfterStep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRigWith(t, Model{Strategy: StrategyOptions{TriggerRatio: 0.5, BlockRatio: 0.9, ReservedContextSize: intp(0)}},
			summaryReply("background"))
		r.setCapability(llm.Capability{MaxContextTokens: 1_000})
		r.append(U("go"))
		r.setTokens(600)
		release := r.holdRequests()
		r.c.AfterStep(t.Context())
		if !r.c.IsCompacting() {
			t.Fatal("no background compaction after the step")
		}
		if err := r.c.BeforeStep(t.Context(), 0); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff([]event.Type{event.TypeCompactionStarted}, r.eventTypes()); d != "" {
			t.Errorf("the step waited for a background compaction (-want +got):\n%s", d)
		}
		release()
		synctest.Wait()
		if _, ok := r.appliedRecord(); !ok {
			t.Errorf("the background compaction did not complete")
		}
	})
}
