package turn_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/agent/turn"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/scripted"
	"github.com/kimigo/kimigo/loop"
)

// flowRig is the smallest host a TurnFlow needs: a history memory that
// applies history records as they are committed, and nothing else. The
// agent's own tests run TurnFlow through the real agent; this rig drives
// what the agent does not wire yet (goals).
type flowRig struct {
	mu     sync.Mutex
	mem    *history.Memory
	events []event.Event
}

func (r *flowRig) View(p loop.Projection) []llm.Message {
	r.mu.Lock()
	h := r.mem.History()
	r.mu.Unlock()
	return r.mem.View(h, p)
}

func (r *flowRig) CloseEvents(out string) []loop.ToolResultEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.mem.CloseEvents(out)
}

func (r *flowRig) Commit(_ context.Context, typ records.Type, payload any) error {
	rec, err := records.New(typ, payload)
	if err != nil {
		return err
	}
	p, err := history.DecodeRecord(history.RecordType(typ), rec.Fields())
	if err != nil {
		return nil // not a history record
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	_, err = r.mem.Apply(p)
	return err
}

func (r *flowRig) Flush(context.Context) error   { return nil }
func (r *flowRig) Written(context.Context) error { return nil }

func (r *flowRig) Publish(ev event.Event) {
	r.mu.Lock()
	r.events = append(r.events, ev)
	r.mu.Unlock()
}

// goalStub is an active goal with a turn budget.
type goalStub struct {
	mu              sync.Mutex
	active          bool
	turns, budget   int
	paused, blocked string
}

func (g *goalStub) Active() bool { g.mu.Lock(); defer g.mu.Unlock(); return g.active }
func (g *goalStub) OverBudget() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.budget > 0 && g.turns >= g.budget
}
func (g *goalStub) IncrementTurn(context.Context) error {
	g.mu.Lock()
	g.turns++
	g.mu.Unlock()
	return nil
}
func (g *goalStub) RecordTokenUsage(context.Context, int) (bool, error) { return false, nil }
func (g *goalStub) MarkBlocked(_ context.Context, reason string) error {
	g.mu.Lock()
	g.active, g.blocked = false, reason
	g.mu.Unlock()
	return nil
}
func (g *goalStub) PauseActive(_ context.Context, reason string) error {
	g.mu.Lock()
	g.active, g.paused = false, reason
	g.mu.Unlock()
	return nil
}
func (g *goalStub) PauseOnInterrupt(ctx context.Context, reason string) error {
	return g.PauseActive(ctx, reason)
}

func newGoalFlow(t *testing.T, g turn.GoalStore, rs ...scripted.Response) (*turn.TurnFlow, *flowRig) {
	t.Helper()
	rig := &flowRig{mem: history.New(history.Options{})}
	p := scripted.New(scripted.Options{Responses: rs})
	model := turn.NewLLM(turn.LLMOptions{Provider: p})
	f := turn.New(turn.Options{History: rig, Commit: rig, Events: rig, Goals: g,
		LLM:         func() (loop.LLM, error) { return model, nil },
		LoopControl: func() turn.LoopControl { return turn.LoopControl{MaxRetriesPerStep: 2} },
		Loop:        loop.Options{Sleep: func(context.Context, time.Duration) error { return nil }}})
	t.Cleanup(func() { _ = f.Close(context.WithoutCancel(t.Context())) })
	return f, rig
}

func TestGoalDriverRunsContinuationTurnsUntilTheBudget(t *testing.T) {
	g := &goalStub{active: true, budget: 3}
	f, rig := newGoalFlow(t, g, scripted.Text("a"), scripted.Text("b"), scripted.Text("c"))
	if _, err := f.Prompt(t.Context(), []llm.ContentPart{llm.TextPart("reach it")}, nil); err != nil {
		t.Fatal(err)
	}
	res, err := f.WaitForCurrentTurn(t.Context())
	if err != nil || res.Event.TurnID != 2 || res.Event.Reason != event.EndCompleted {
		t.Fatalf("last turn = %+v, %v", res.Event, err)
	}
	if g.blocked != "A configured budget was reached" {
		t.Errorf("goal blocked with %q", g.blocked)
	}
	var users []string
	for _, m := range rig.mem.History() {
		if m.Role == llm.RoleUser {
			users = append(users, string(m.Origin.Kind)+"/"+m.Origin.Name)
		}
	}
	want := []string{"user/", "system_trigger/goal_continuation", "system_trigger/goal_continuation"}
	if d := cmp.Diff(want, users); d != "" {
		t.Errorf("user messages (-want +got):\n%s", d)
	}
	if f.HasActiveTurn() {
		t.Error("the goal driver left the turn active")
	}
}

func TestGoalDriverPausesOnRateLimit(t *testing.T) {
	g := &goalStub{active: true}
	limited := scripted.Response{Err: &llm.Error{Kind: llm.KindRateLimit, StatusCode: 429, Message: "429 slow down"}}
	f, rig := newGoalFlow(t, g, limited, limited)
	if _, err := f.Prompt(t.Context(), []llm.ContentPart{llm.TextPart("reach it")}, nil); err != nil {
		t.Fatal(err)
	}
	res, err := f.WaitForCurrentTurn(t.Context())
	if err != nil || res.Event.Reason != event.EndFailed || res.Event.Error.Code != event.CodeProviderRateLimit {
		t.Fatalf("turn = %+v, %v", res.Event, err)
	}
	if g.paused != "Paused after provider rate limit" {
		t.Errorf("goal paused with %q", g.paused)
	}
	started := 0
	for _, ev := range rig.events {
		if ev.EventType() == event.TypeTurnStarted {
			started++
		}
	}
	if started != 1 {
		t.Errorf("%d turns started, want 1 (no continuation)", started)
	}
}

// slowPause is a goal whose interrupt pause waits for release: the
// worker of a cancelled goal turn is still busy after the Cancel.
type slowPause struct {
	*goalStub
	reached, release chan struct{}
}

func (g slowPause) PauseOnInterrupt(ctx context.Context, reason string) error {
	close(g.reached)
	<-g.release
	return g.goalStub.PauseOnInterrupt(ctx, reason)
}

// WaitSettled waits for the cancelled goal turn's worker to finish its
// bookkeeping, which outlives the Cancel that freed the turn slot.
func TestWaitSettledWaitsForTheCancelledWorker(t *testing.T) {
	g := slowPause{goalStub: &goalStub{active: true}, reached: make(chan struct{}), release: make(chan struct{})}
	f, _ := newGoalFlow(t, g, scripted.Text("never read"))
	if err := f.WaitSettled(t.Context()); err != nil {
		t.Fatalf("WaitSettled before any turn = %v", err)
	}
	if _, err := f.Prompt(t.Context(), []llm.ContentPart{llm.TextPart("reach it")}, nil); err != nil {
		t.Fatal(err)
	}
	if err := f.Cancel(t.Context(), nil, nil); err != nil {
		t.Fatal(err)
	}
	if f.HasActiveTurn() {
		t.Fatal("the slot is still held after the Cancel")
	}
	<-g.reached
	ended, cancel := context.WithCancel(t.Context())
	cancel()
	if err := f.WaitSettled(ended); !errors.Is(err, context.Canceled) {
		t.Fatalf("WaitSettled while the worker still pauses the goal = %v, want the context's error", err)
	}
	close(g.release)
	if err := f.WaitSettled(t.Context()); err != nil {
		t.Fatal(err)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.paused != "Paused after interruption" {
		t.Errorf("paused %q", g.paused)
	}
}
