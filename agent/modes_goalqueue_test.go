package agent_test

import (
	"strings"
	"testing"

	"github.com/kimigo/kimigo/agent/goal"
	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/scripted"
	"github.com/kimigo/kimigo/tools"
)

// lastUserText is the text of the last user message of a request.
func lastUserText(r llm.Request) string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == llm.RoleUser && !strings.HasPrefix(llm.ExtractText(r.Messages[i], ""), "<system-reminder>") {
			return llm.ExtractText(r.Messages[i], "")
		}
	}
	return ""
}

// /goal next (spec 06 §5.11): a goal queued behind the current one starts
// by itself, in the same worker, once the current one completes, its
// objective the user's prompt; with no goal the queued one starts at once.
// The queue is recorded and a resume rebuilds it.
func TestGoalQueueStartsNextOnCompletion(t *testing.T) {
	h := modesHarness(t)
	a := agentOf(h)
	ctx := t.Context()
	if _, err := a.Goals().Create(ctx, tools.GoalInput{Objective: "first goal"}, goal.ActorUser); err != nil {
		t.Fatal(err)
	}
	u, l, err := a.QueueGoal(ctx, "second goal")
	if err != nil || l.Launched || u.Objective != "second goal" {
		t.Fatalf("QueueGoal behind an active goal = %+v, %+v, %v", u, l, err)
	}
	h.Model(call("u1", "UpdateGoal", `{"status":"complete"}`), scripted.Text("First is done."),
		call("u2", "UpdateGoal", `{"status":"complete"}`), scripted.Text("Second is done."))
	h.Start("first goal")
	h.Wait()

	reqs := h.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model calls; want 4", len(reqs))
	}
	if got := lastUserText(reqs[2]); got != "second goal" {
		t.Errorf("the second goal's first request ends with the user's %q", got)
	}
	if !strings.Contains(requestText(reqs[2]), "<untrusted_objective>\nsecond goal\n</untrusted_objective>") {
		t.Error("the second goal's first request lacks its goal context")
	}
	if g := a.Goals().Get(); g != nil {
		t.Errorf("goal after both completed %+v", g)
	}
	if q := a.Goals().Upcoming(); len(q) != 0 {
		t.Errorf("queue after both started %+v", q)
	}
	if n := turnsStarted(h); n != 2 {
		t.Errorf("%d turns started; want one per goal", n)
	}
	var completions int
	for _, c := range goalUpdates(t, h) {
		if c.Status == tools.GoalComplete {
			completions++
		}
	}
	if completions != 2 {
		t.Errorf("%d completions recorded", completions)
	}
	var starts []string
	for _, m := range a.History() {
		if m.Role == llm.RoleUser && (m.Origin == nil || m.Origin.Is(history.OriginUser)) {
			starts = append(starts, llm.ExtractText(m.Message, ""))
		}
	}
	if !slicesContain(starts, "second goal") {
		t.Errorf("user prompts %q lack the second goal's objective", starts)
	}

	// No goal now: the next queued goal starts at once.
	h.Model(call("u3", "UpdateGoal", `{"status":"complete"}`), scripted.Text("Third is done."))
	_, l, err = a.QueueGoal(ctx, "third goal")
	if err != nil || !l.Launched {
		t.Fatalf("QueueGoal with no goal = %+v, %v", l, err)
	}
	h.Wait()
	if reqs := h.Requests(); len(reqs) != 6 || lastUserText(reqs[4]) != "third goal" {
		t.Errorf("%d requests; the third goal must have run", len(reqs))
	}
	if types := recordTypes(h, "goal.queue"); len(types) != 2 {
		t.Errorf("goal.queue records %v; want one per /goal next", types)
	}
	h.ExpectResumeMatches()
}

// A goal the model blocks keeps the queue waiting, and a resume restores
// the queue without starting anything.
func TestGoalQueueWaitsBehindABlockedGoal(t *testing.T) {
	h := modesHarness(t)
	a := agentOf(h)
	ctx := t.Context()
	if _, err := a.Goals().Create(ctx, tools.GoalInput{Objective: "first goal"}, goal.ActorUser); err != nil {
		t.Fatal(err)
	}
	if _, _, err := a.QueueGoal(ctx, "second goal"); err != nil {
		t.Fatal(err)
	}
	h.Model(call("b1", "UpdateGoal", `{"status":"blocked"}`), scripted.Text("I need credentials."))
	h.Start("first goal")
	h.Wait()
	if n := len(h.Requests()); n != 2 {
		t.Errorf("%d model calls; the queued goal must not start", n)
	}
	if g := a.Goals().Get(); g == nil || g.Status != tools.GoalBlocked || g.Objective != "first goal" {
		t.Errorf("goal %+v", g)
	}
	r := h.ExpectResumeMatches()
	back := r.Agent.(host).Agent.Goals()
	if q := back.Upcoming(); len(q) != 1 || q[0].Objective != "second goal" || back.NextPending() {
		t.Errorf("resumed queue %+v, due %v", q, back.NextPending())
	}
	if _, err := a.CancelGoal(ctx); err != nil || len(a.Goals().Upcoming()) != 0 {
		t.Errorf("cancel left the queue %+v (%v)", a.Goals().Upcoming(), err)
	}
}
