package goal_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent/goal"
	"github.com/kimigo/kimigo/tools"
)

func objectives(us []goal.Upcoming) []string {
	var out []string
	for _, u := range us {
		out = append(out, u.Objective)
	}
	return out
}

// /goal next queues goals behind the current one; only a completion makes
// the head due, and starting it is one goal.create that takes it off the
// queue. Every change is a record, and a replay rebuilds the queue.
func TestQueueStartsAfterCompletion(t *testing.T) {
	s, h := newStore(t)
	ctx := t.Context()
	if _, err := s.Create(ctx, tools.GoalInput{Objective: "first"}, goal.ActorUser); err != nil {
		t.Fatal(err)
	}
	for _, o := range []string{" second ", "third"} {
		if _, err := s.Enqueue(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	if got := objectives(s.Upcoming()); !cmp.Equal(got, []string{"second", "third"}) {
		t.Errorf("queue %q", got)
	}
	if s.NextPending() {
		t.Error("a queued goal is due while the first is active")
	}
	if _, ok, _ := s.TakeNext(ctx); ok {
		t.Fatal("TakeNext started a goal while the first is active")
	}
	if _, err := s.Complete(ctx, "", goal.ActorModel); err != nil {
		t.Fatal(err)
	}
	if !s.NextPending() {
		t.Fatal("the completion left no goal due")
	}
	objective, ok, err := s.TakeNext(ctx)
	if err != nil || !ok || objective != "second" {
		t.Fatalf("TakeNext = %q, %v, %v", objective, ok, err)
	}
	g := s.Get()
	if g == nil || g.Objective != "second" || g.Status != tools.GoalActive || g.TurnsUsed != 0 {
		t.Fatalf("goal after TakeNext %+v", g)
	}
	if got := objectives(s.Upcoming()); !cmp.Equal(got, []string{"third"}) {
		t.Errorf("queue after the start %q", got)
	}
	if s.NextPending() {
		t.Error("still due after the start")
	}
	recs := h.records()
	want := []string{"goal.create", "goal.queue", "goal.queue", "goal.update", "goal.clear", "goal.create"}
	var types []string
	for _, r := range recs {
		typ, _, _ := strings.Cut(r, " ")
		types = append(types, typ)
	}
	if !cmp.Equal(types, want) {
		t.Errorf("records %q; want %q", types, want)
	}
	if last := recs[len(recs)-1]; !strings.Contains(last, `"goalId":"g2"`) {
		t.Errorf("the start names the queued goal's id g2: %s", last)
	}

	back := h.replay(t)
	if got := objectives(back.Upcoming()); !cmp.Equal(got, []string{"third"}) {
		t.Errorf("replayed queue %q", got)
	}
	if g := back.Get(); g == nil || g.Objective != "second" {
		t.Errorf("replayed goal %+v", g)
	}
	if back.NextPending() {
		t.Error("a replayed store has a goal due: a resume must start nothing by itself")
	}
}

// A paused or blocked goal keeps the queue waiting; with no goal at all
// the queued goal is due at once; a user's own goal takes precedence.
func TestQueueWaitsBehindPausedOrBlocked(t *testing.T) {
	ctx := t.Context()
	for _, stop := range []string{"paused", "blocked"} {
		s, _ := newStore(t)
		if _, err := s.Create(ctx, tools.GoalInput{Objective: "first"}, goal.ActorUser); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Enqueue(ctx, "second"); err != nil {
			t.Fatal(err)
		}
		var err error
		if stop == "paused" {
			err = s.Pause(ctx, "")
		} else {
			err = s.MarkBlocked(ctx, goal.ReasonBudget)
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := s.TakeNext(ctx); ok || s.NextPending() {
			t.Errorf("%s: the queued goal is due", stop)
		}
		if g := s.Get(); g.Objective != "first" || string(g.Status) != stop {
			t.Errorf("%s: goal %+v", stop, g)
		}
	}

	s, _ := newStore(t)
	if _, err := s.Enqueue(ctx, "alone"); err != nil {
		t.Fatal(err)
	}
	if !s.NextPending() {
		t.Fatal("a goal queued with none current is not due")
	}
	if _, err := s.Create(ctx, tools.GoalInput{Objective: "mine"}, goal.ActorUser); err != nil {
		t.Fatal(err)
	}
	if s.NextPending() {
		t.Error("due while the user's own goal runs")
	}
	if got := objectives(s.Upcoming()); !cmp.Equal(got, []string{"alone"}) {
		t.Errorf("queue %q", got)
	}
}

// /goal cancel removes the goal and empties the queue; with only a queue
// it empties the queue; with neither it is goal.not_found. Enqueue checks
// objectives as Create does. A fork drops the queue with the goal.
func TestQueueCancelValidateFork(t *testing.T) {
	s, h := newStore(t)
	ctx := t.Context()
	if _, err := s.Enqueue(ctx, "  "); !errors.Is(err, goal.ErrObjectiveEmpty) {
		t.Errorf("blank objective: %v", err)
	}
	if _, err := s.Enqueue(ctx, strings.Repeat("x", goal.MaxTextRunes+1)); !errors.Is(err, goal.ErrObjectiveTooLong) {
		t.Errorf("long objective: %v", err)
	}
	if _, err := s.Create(ctx, tools.GoalInput{Objective: "first"}, goal.ActorUser); err != nil {
		t.Fatal(err)
	}
	for _, o := range []string{"a", "b"} {
		if _, err := s.Enqueue(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	removed, err := s.Cancel(ctx, goal.ActorUser)
	if err != nil || removed == nil || removed.Objective != "first" {
		t.Fatalf("Cancel = %+v, %v", removed, err)
	}
	if s.Get() != nil || len(s.Upcoming()) != 0 || s.NextPending() {
		t.Errorf("after cancel: goal %+v, queue %v", s.Get(), s.Upcoming())
	}
	if back := h.replay(t); back.Get() != nil || len(back.Upcoming()) != 0 {
		t.Errorf("replayed after cancel: goal %+v, queue %v", back.Get(), back.Upcoming())
	}

	if _, err := s.Enqueue(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	if removed, err := s.Cancel(ctx, goal.ActorUser); err != nil || removed != nil || len(s.Upcoming()) != 0 {
		t.Errorf("cancel of a queue alone = %+v, %v; queue %v", removed, err, s.Upcoming())
	}
	if _, err := s.Cancel(ctx, goal.ActorUser); !errors.Is(err, goal.ErrNotFound) {
		t.Errorf("cancel of nothing: %v", err)
	}

	if _, err := s.Create(ctx, tools.GoalInput{Objective: "forked"}, goal.ActorUser); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Enqueue(ctx, "d"); err != nil {
		t.Fatal(err)
	}
	if !s.DropForFork() || s.Get() != nil || len(s.Upcoming()) != 0 {
		t.Errorf("after the fork: goal %+v, queue %v", s.Get(), s.Upcoming())
	}
}

// goal.queue records that no kimigo could have written are refused.
func TestDecodeQueueRecord(t *testing.T) {
	for _, bad := range []string{`{"upcoming":[{"id":"","objective":"x"}]}`, `{"upcoming":[{"id":"a","objective":" "}]}`, `{"upcoming":3}`} {
		if _, err := goal.DecodeRecord(goal.TypeQueue, []byte(bad)); err == nil {
			t.Errorf("%s decoded", bad)
		}
	}
	p, err := goal.DecodeRecord(goal.TypeQueue, []byte(`{"upcoming":[{"id":"a","objective":"x"}]}`))
	if err != nil || !cmp.Equal(p, goal.QueueRecord{Upcoming: []goal.Upcoming{{ID: "a", Objective: "x"}}}) {
		t.Errorf("decode = %+v, %v", p, err)
	}
}
