package agent_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent/agenttest"
	"github.com/kimigo/kimigo/agent/goal"
	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/permission"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/agent/turn"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/llm/openai"
	"github.com/kimigo/kimigo/llm/scripted"
	"github.com/kimigo/kimigo/tools"
)

// startGoal starts a goal the way /goal <objective> does and waits until
// the goal driver is done.
func startGoal(t *testing.T, h *agenttest.Harness, objective string) turn.Result {
	t.Helper()
	_, l, err := agentOf(h).StartGoal(t.Context(), tools.GoalInput{Objective: objective})
	if err != nil || !l.Launched {
		t.Fatalf("StartGoal: %+v, %v", l, err)
	}
	return h.Wait()
}

// setBudget gives the agent's goal a budget as the user.
func setBudget(t *testing.T, h *agenttest.Harness, l tools.GoalBudgetLimits) {
	t.Helper()
	if _, err := agentOf(h).Goals().SetBudget(t.Context(), l, goal.ActorUser); err != nil {
		t.Fatal(err)
	}
}

func TestS66DriverToCompletion(t *testing.T) {
	h := modesHarness(t)
	a := agentOf(h)
	h.Model(scripted.Text("Looked around."), call("u1", "UpdateGoal", `{"status":"complete"}`),
		scripted.Text("The goal is complete."))
	startGoal(t, h, "tidy the repo")
	completion := lastGoalStats(h)
	if n := turnsStarted(h); n < 2 {
		t.Errorf("%d turns started", n)
	}
	reqs := h.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model calls; want 3", len(reqs))
	}
	if !strings.Contains(requestText(reqs[0]), "<untrusted_objective>\ntidy the repo\n</untrusted_objective>") {
		t.Error("the first request lacks the goal context")
	}
	if !strings.Contains(requestText(reqs[1]), "Continue working toward the active goal") {
		t.Error("the second request lacks the continuation prompt")
	}
	if got := userOrigins(a.History()); !slicesContain(got, "system_trigger/goal_continuation") {
		t.Errorf("user messages %v", got)
	}
	third := reqs[2].Messages[len(reqs[2].Messages)-1]
	if third.Role != llm.RoleTool || !strings.HasPrefix(llm.ExtractText(third, ""), "Goal completed successfully.") {
		t.Errorf("the third request ends with %s %q", third.Role, llm.ExtractText(third, ""))
	}
	if a.Goals().Get() != nil {
		t.Errorf("goal after completion %+v", a.Goals().Get())
	}
	types := recordTypes(h, "goal.")
	if n := len(types); n < 2 || types[n-1] != "goal.clear" {
		t.Errorf("goal records %v", types)
	}
	if u := goalUpdates(t, h); u[len(u)-1].Status != tools.GoalComplete {
		t.Errorf("the update before the clear is %+v", u[len(u)-1])
	}
	if completion == nil || completion.TurnsUsed != 2 {
		t.Errorf("completion stats %+v", completion)
	}
	h.ExpectResumeMatches()
}

// lastGoalStats are the totals of the last goal completion published.
func lastGoalStats(h *agenttest.Harness) *event.GoalStats {
	var stats *event.GoalStats
	for _, ev := range h.Events() {
		if g, ok := ev.(event.GoalUpdated); ok && g.Change != nil && g.Change.Stats != nil {
			stats = g.Change.Stats
		}
	}
	return stats
}

// waitHeld waits until the held response streamed its first parts.
func waitHeld(t *testing.T, h *agenttest.Hold) {
	t.Helper()
	select {
	case <-h.Reached():
	case <-t.Context().Done():
		t.Fatal("the held response was never reached")
	}
}

func TestS67TurnBudgetExhaustion(t *testing.T) {
	h := modesHarness(t)
	a := agentOf(h)
	if _, err := a.Goals().Create(t.Context(), tools.GoalInput{Objective: "work"}, goal.ActorUser); err != nil {
		t.Fatal(err)
	}
	setBudget(t, h, tools.GoalBudgetLimits{TurnBudget: intp(1)})
	h.Model(scripted.Text("one slice"))
	h.Prompt("work")
	if n := len(h.Requests()); n != 1 {
		t.Errorf("%d model calls; want 1", n)
	}
	g := a.Goals().Get()
	if g == nil || g.Status != tools.GoalBlocked || g.TerminalReason != goal.ReasonBudget || turnsStarted(h) != 1 {
		t.Errorf("goal %+v, %d turns", g, turnsStarted(h))
	}
	h.ExpectResumeMatches()
}

func TestS68TokenBudgetMidTurn(t *testing.T) {
	h := modesHarness(t)
	a := agentOf(h)
	if _, err := a.Goals().Create(t.Context(), tools.GoalInput{Objective: "work"}, goal.ActorUser); err != nil {
		t.Fatal(err)
	}
	setBudget(t, h, tools.GoalBudgetLimits{TokenBudget: intp(1)})
	h.Model(withUsage(call("g1", "GetGoal", `{}`), 100, 5), scripted.Text("never asked"))
	h.Prompt("work")
	if n := len(h.Requests()); n != 1 {
		t.Errorf("%d model calls; want 1", n)
	}
	if got := summarize(a.History()); !strings.Contains(strings.Join(got, "\n"), "tool:g1:{") {
		t.Errorf("GetGoal did not run: %v", got)
	}
	g := a.Goals().Get()
	if g == nil || g.Status != tools.GoalBlocked || g.TokensUsed <= 1 {
		t.Errorf("goal %+v", g)
	}
}

func TestS69OutputTokensOnlyThroughTheAgent(t *testing.T) {
	h := modesHarness(t)
	u := llm.TokenUsage{InputOther: 10000, InputCacheRead: 20000, InputCacheCreation: 30000, Output: 1}
	step := func(r scripted.Response) scripted.Response { r.Usage = &u; return r }
	h.Model(step(call("g1", "GetGoal", `{}`)), step(call("u1", "UpdateGoal", `{"status":"complete"}`)),
		scripted.Text("done"))
	startGoal(t, h, "work")
	stats := lastGoalStats(h)
	var tokens []int
	for _, up := range goalUpdates(t, h) {
		if up.TokensUsed != nil {
			tokens = append(tokens, *up.TokensUsed)
		}
	}
	if d := cmp.Diff([]int{1, 2}, tokens); d != "" {
		t.Errorf("tokensUsed records (-want +got):\n%s", d)
	}
	if stats == nil || stats.TokensUsed != 2 {
		t.Errorf("completion stats %+v", stats)
	}
}

func TestS70StopHookCannotExtendAReachedBudget(t *testing.T) {
	hooks := &agenttest.Hooks{OnBlock: func(e turn.HookEvent, _ map[string]any) []turn.HookResult {
		if e == turn.HookStop {
			return []turn.HookResult{{Block: true, Reason: "keep going"}}
		}
		return nil
	}}
	h := modesHarness(t, agenttest.HookRunner(hooks))
	a := agentOf(h)
	if _, err := a.Goals().Create(t.Context(), tools.GoalInput{Objective: "work"}, goal.ActorUser); err != nil {
		t.Fatal(err)
	}
	setBudget(t, h, tools.GoalBudgetLimits{TokenBudget: intp(1)})
	h.Model(withUsage(scripted.Text("a"), 1, 5), scripted.Text("never"))
	h.Prompt("work")
	if n := len(h.Requests()); n != 1 {
		t.Errorf("%d model calls; want 1", n)
	}
	if g := a.Goals().Get(); g == nil || g.Status != tools.GoalBlocked {
		t.Errorf("goal %+v", g)
	}
}

func TestS71SteerPreservedAtBudgetStop(t *testing.T) {
	h := modesHarness(t)
	a := agentOf(h)
	if _, err := a.Goals().Create(t.Context(), tools.GoalInput{Objective: "work"}, goal.ActorUser); err != nil {
		t.Fatal(err)
	}
	setBudget(t, h, tools.GoalBudgetLimits{TurnBudget: intp(1)})
	hold := h.Held(withUsage(call("g1", "GetGoal", `{}`), 1, 1), 1)
	h.Start("work")
	waitHeld(t, hold)
	h.Steer("also this", nil)
	hold.Release()
	h.Wait()
	if n := len(h.Requests()); n != 1 {
		t.Errorf("%d model calls; want 1", n)
	}
	found := false
	for _, m := range a.History() {
		if m.Role == llm.RoleUser && llm.ExtractText(m.Message, "") == "also this" {
			found = true
		}
	}
	if !found {
		t.Error("the steer is not in history")
	}
	if g := a.Goals().Get(); g == nil || g.Status != tools.GoalBlocked {
		t.Errorf("goal %+v", g)
	}
}

func TestS72ResumeWhileOverBudget(t *testing.T) {
	h := modesHarness(t)
	a := agentOf(h)
	if _, err := a.Goals().Create(t.Context(), tools.GoalInput{Objective: "work"}, goal.ActorUser); err != nil {
		t.Fatal(err)
	}
	setBudget(t, h, tools.GoalBudgetLimits{TurnBudget: intp(1)})
	h.Model(scripted.Text("one"))
	h.Prompt("work")
	if g := a.Goals().Get(); g.Status != tools.GoalBlocked || g.TurnsUsed != 1 {
		t.Fatalf("goal %+v", g)
	}
	calls := len(h.Requests())
	if err := a.Goals().Resume(t.Context(), goal.ActorUser); err != nil {
		t.Fatal(err)
	}
	h.Prompt("continue")
	if n := len(h.Requests()) - calls; n != 0 {
		t.Errorf("%d model calls after the resume", n)
	}
	g := a.Goals().Get()
	if g.Status != tools.GoalBlocked || g.TurnsUsed != 1 || g.TerminalReason != goal.ReasonBudget {
		t.Errorf("goal %+v", g)
	}
	if last := a.History()[len(a.History())-1]; llm.ExtractText(last.Message, "") != "continue" {
		t.Errorf("last message %q", llm.ExtractText(last.Message, ""))
	}
	h.ExpectResumeMatches()
}

func TestS73BlockedByTheModel(t *testing.T) {
	h := modesHarness(t)
	a := agentOf(h)
	h.Model(call("u1", "UpdateGoal", `{"status":"blocked"}`), scripted.Text("I need credentials."))
	startGoal(t, h, "deploy")
	reqs := h.Requests()
	if len(reqs) != 2 || !strings.Contains(requestText(reqs[1]), "Goal blocked.") {
		t.Fatalf("%d requests", len(reqs))
	}
	g := a.Goals().Get()
	if g == nil || g.Status != tools.GoalBlocked || g.TerminalReason != "" {
		t.Errorf("goal %+v", g)
	}
	if slicesContain(userOrigins(a.History()), "system_trigger/goal_continuation") {
		t.Error("a continuation turn ran")
	}
	h.ExpectResumeMatches()
}

func TestS75RestartWithAnActiveGoal(t *testing.T) {
	h := modesHarness(t)
	a := agentOf(h)
	if _, err := a.Goals().Create(t.Context(), tools.GoalInput{Objective: "work"}, goal.ActorUser); err != nil {
		t.Fatal(err)
	}
	r := h.Resume(h.Records())
	ra := r.Agent.(host).Agent
	g := ra.Goals().Get()
	if g == nil || g.Status != tools.GoalPaused || g.TerminalReason != goal.ReasonResumed {
		t.Fatalf("resumed goal %+v", g)
	}
	appended := r.Store.Records()[len(h.Records()):]
	if len(appended) != 1 || appended[0].Type != records.Type(goal.TypeUpdate) ||
		!strings.Contains(appended[0].String(), `"status":"paused"`) || !strings.Contains(appended[0].String(), `"actor":"runtime"`) {
		t.Errorf("appended %v", appended)
	}
	if ra.HasActiveTurn() {
		t.Error("the resume started a turn")
	}
	var kinds []string
	for _, c := range r.Cards {
		if c.Type == "goal_updated" {
			kinds = append(kinds, string(c.Fields))
		}
	}
	if len(kinds) != 2 || !strings.Contains(kinds[0], `"kind":"created"`) || !strings.Contains(kinds[1], `"status":"paused"`) {
		t.Errorf("goal cards %v", kinds)
	}
}

func TestS76RestartPreservesPausedAndBlocked(t *testing.T) {
	h := modesHarness(t)
	a := agentOf(h)
	if _, err := a.Goals().Create(t.Context(), tools.GoalInput{Objective: "work"}, goal.ActorUser); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Goals().Block(t.Context(), "needs credentials", goal.ActorModel); err != nil {
		t.Fatal(err)
	}
	r := h.ExpectResumeMatches()
	if g := r.Agent.(host).Agent.Goals().Get(); g.Status != tools.GoalBlocked || g.TerminalReason != "needs credentials" {
		t.Errorf("blocked goal after resume %+v", g)
	}
	if err := a.Goals().Resume(t.Context(), goal.ActorUser); err != nil {
		t.Fatal(err)
	}
	if err := a.Goals().Pause(t.Context(), ""); err != nil {
		t.Fatal(err)
	}
	r = h.ExpectResumeMatches()
	if g := r.Agent.(host).Agent.Goals().Get(); g.Status != tools.GoalPaused {
		t.Errorf("paused goal after resume %+v", g)
	}
}

func TestS77CancelThroughTheAgent(t *testing.T) {
	h := modesHarness(t)
	a := agentOf(h)
	if _, err := a.Goals().Create(t.Context(), tools.GoalInput{Objective: "work"}, goal.ActorUser); err != nil {
		t.Fatal(err)
	}
	snap, err := a.CancelGoal(t.Context())
	if err != nil || snap.Status != tools.GoalActive || a.Goals().Get() != nil {
		t.Fatalf("CancelGoal = %+v, %v", snap, err)
	}
	msgs := a.History()
	if last := msgs[len(msgs)-1]; !last.Origin.Is(history.OriginSystemTrigger) || last.Origin.Name != goal.TriggerGoalCancelled {
		t.Errorf("last message %+v", last.Origin)
	}
	if _, err := a.CancelGoal(t.Context()); !errors.Is(err, goal.ErrNotFound) {
		t.Errorf("second cancel: %v", err)
	}
	h.ExpectResumeMatches()
}

func TestS78Interrupt(t *testing.T) {
	h := modesHarness(t)
	a := agentOf(h)
	hold := h.Held(scripted.Text("working on it for a long time"), 1)
	if _, l, err := a.StartGoal(t.Context(), tools.GoalInput{Objective: "work"}); err != nil || !l.Launched {
		t.Fatal(l, err)
	}
	waitHeld(t, hold)
	if err := a.Cancel(t.Context(), nil, nil); err != nil {
		t.Fatal(err)
	}
	if res := h.Wait(); res.Event.Reason != event.EndCancelled {
		t.Errorf("turn %+v", res.Event)
	}
	g := a.Goals().Get()
	if g == nil || g.Status != tools.GoalPaused || g.TerminalReason != "Paused after interruption" {
		t.Errorf("goal %+v", g)
	}
	if n := turnsStarted(h); n != 1 {
		t.Errorf("%d turns started", n)
	}
}

func TestS79FailureMapping(t *testing.T) {
	for _, tt := range []struct {
		name string
		r    scripted.Response
		want string
	}{
		{"rate limit", scripted.Response{Err: &llm.Error{Kind: llm.KindRateLimit, StatusCode: 429, Message: "slow down"}},
			"Paused after provider rate limit"},
		{"connection", scripted.Response{Err: &llm.Error{Kind: llm.KindConnection, Message: "boom"}},
			"Paused after provider connection error: boom"},
		{"safety filter", scripted.Response{Parts: scripted.Text("x").Parts, Finish: llm.FinishFiltered},
			"Paused after provider safety policy block"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := modesHarness(t, agenttest.LoopControl(turn.LoopControl{MaxRetriesPerStep: 1}))
			h.Model(tt.r)
			res := startGoal(t, h, "work")
			g := agentOf(h).Goals().Get()
			if res.Event.Reason != event.EndFailed || g == nil || g.Status != tools.GoalPaused || g.TerminalReason != tt.want {
				t.Errorf("turn %+v, goal %+v", res.Event, g)
			}
			if n := turnsStarted(h); n != 1 {
				t.Errorf("%d turns started", n)
			}
		})
	}
	t.Run("step cap", func(t *testing.T) {
		h := modesHarness(t, agenttest.LoopControl(turn.LoopControl{MaxStepsPerTurn: 1}))
		h.Model(call("g1", "GetGoal", `{}`), call("u1", "UpdateGoal", `{"status":"complete"}`), scripted.Text("done"))
		startGoal(t, h, "work")
		reqs := h.Requests()
		if len(reqs) < 2 || !strings.Contains(requestText(reqs[1]), "per-turn step limit") {
			t.Fatalf("%d requests; the second must carry the step-cap continuation", len(reqs))
		}
		if g := agentOf(h).Goals().Get(); g != nil {
			t.Errorf("goal %+v; want it completed", g)
		}
	})
}

func TestS80PromptHookBlock(t *testing.T) {
	hooks := &agenttest.Hooks{OnBlock: func(e turn.HookEvent, _ map[string]any) []turn.HookResult {
		if e == turn.HookUserPromptSubmit {
			return []turn.HookResult{{Block: true, Reason: "not now"}}
		}
		return nil
	}}
	h := modesHarness(t, agenttest.HookRunner(hooks))
	startGoal(t, h, "work")
	g := agentOf(h).Goals().Get()
	if g == nil || g.Status != tools.GoalBlocked || g.TerminalReason != "Blocked by UserPromptSubmit hook" || len(h.Requests()) != 0 {
		t.Errorf("goal %+v, %d requests", g, len(h.Requests()))
	}
}

func TestS81GoalCreatedMidTurn(t *testing.T) {
	t.Run("continues", func(t *testing.T) {
		h := modesHarness(t, agenttest.Permission(permission.Options{}))
		a := agentOf(h)
		if err := a.SetPermissionMode(t.Context(), permission.ModeAuto); err != nil {
			t.Fatal(err)
		}
		h.Model(call("c1", "CreateGoal", `{"objective":"work"}`), scripted.Text("created"),
			call("u1", "UpdateGoal", `{"status":"complete"}`), scripted.Text("done"))
		l := h.Start("make it a goal")
		res := h.Wait()
		stats := lastGoalStats(h)
		if res.Event.TurnID != l.TurnID+1 || stats == nil || stats.TurnsUsed != 2 {
			t.Errorf("last turn %+v, stats %+v", res.Event, stats)
		}
		if got := userOrigins(a.History()); !slicesContain(got, "system_trigger/goal_continuation") {
			t.Errorf("no continuation: %v", got)
		}
	})
	t.Run("one-turn budget", func(t *testing.T) {
		h := modesHarness(t, agenttest.Permission(permission.Options{}))
		a := agentOf(h)
		if err := a.SetPermissionMode(t.Context(), permission.ModeAuto); err != nil {
			t.Fatal(err)
		}
		h.Model(call("c1", "CreateGoal", `{"objective":"work"}`), call("b1", "SetGoalBudget", `{"value":1,"unit":"turns"}`),
			scripted.Text("set"))
		h.Prompt("a one-turn goal")
		g := a.Goals().Get()
		if g == nil || g.Status != tools.GoalBlocked || g.TurnsUsed != 1 {
			t.Errorf("goal %+v", g)
		}
		if slicesContain(userOrigins(a.History()), "system_trigger/goal_continuation") {
			t.Error("a continuation prompt was appended")
		}
	})
}

func TestS84GoalToolsExposure(t *testing.T) {
	h := modesHarness(t)
	a := agentOf(h)
	names := func() []string { return a.State(t.Context()).Tools }
	want := []string{"CreateGoal", "GetGoal", "SetGoalBudget", "UpdateGoal"}
	check := func(state string) {
		t.Helper()
		for _, n := range want {
			if !slicesContain(names(), n) {
				t.Errorf("%s: %s missing from %v", state, n, names())
			}
		}
	}
	check("no goal")
	ctx := t.Context()
	_, _ = a.Goals().Create(ctx, tools.GoalInput{Objective: "work"}, goal.ActorUser)
	check("active")
	_ = a.Goals().Pause(ctx, "")
	check("paused")
	_ = a.Goals().Resume(ctx, goal.ActorUser)
	_ = a.Goals().MarkBlocked(ctx, "x")
	check("blocked")

	// A subagent is built without goal mode: its profile cannot bring the
	// goal tools back.
	sub := tools.New(tools.Options{Base: tools.Base{Env: h.Env()}})
	sub.SetActiveTools(tools.ActiveTools{Names: append([]string{"Read"}, want...)})
	for _, tool := range sub.Tools(nil) {
		if slicesContain(want, tool.Definition().Name) {
			t.Errorf("the subagent has %s", tool.Definition().Name)
		}
	}
}

func TestS86PausedGoalAndANormalMessage(t *testing.T) {
	h := modesHarness(t)
	a := agentOf(h)
	ctx := t.Context()
	if _, err := a.Goals().Create(ctx, tools.GoalInput{Objective: "work"}, goal.ActorUser); err != nil {
		t.Fatal(err)
	}
	if err := a.Goals().Pause(ctx, ""); err != nil {
		t.Fatal(err)
	}
	h.Model(scripted.Text("hello"))
	h.Prompt("hi")
	if reqs := h.Requests(); len(reqs) != 1 || !strings.Contains(requestText(reqs[0]), "currently paused") {
		t.Fatalf("%d requests", len(reqs))
	}
	if turnsStarted(h) != 1 {
		t.Errorf("%d turns", turnsStarted(h))
	}
	h.Model(call("u1", "UpdateGoal", `{"status":"active"}`), scripted.Text("resumed"),
		call("u2", "UpdateGoal", `{"status":"complete"}`), scripted.Text("done"))
	h.Prompt("please carry on with the goal")
	if !slicesContain(userOrigins(a.History()), "system_trigger/goal_continuation") || a.Goals().Get() != nil {
		t.Errorf("the driver did not take over: goal %+v", a.Goals().Get())
	}
}

func TestS87Fork(t *testing.T) {
	h := modesHarness(t)
	a := agentOf(h)
	if _, err := a.Goals().Create(t.Context(), tools.GoalInput{Objective: "work"}, goal.ActorUser); err != nil {
		t.Fatal(err)
	}
	forked, err := records.New(records.TypeForked, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := h.Resume(append(h.Records(), forked))
	ra := r.Agent.(host).Agent
	if ra.Goals().Get() != nil {
		t.Errorf("the fork kept the goal %+v", ra.Goals().Get())
	}
	msgs := ra.History()
	if last := msgs[len(msgs)-1]; !last.Origin.Is(history.OriginSystemTrigger) || last.Origin.Name != goal.TriggerGoalForkClears {
		t.Errorf("last message %+v", last.Origin)
	}
}

func TestSpec02S60ForkBoundary(t *testing.T) {
	h := modesHarness(t)
	create := func(objective string) records.Record {
		rec, err := records.New(records.Type(goal.TypeCreate), goal.CreateRecord{GoalID: "g", Objective: objective})
		if err != nil {
			t.Fatal(err)
		}
		return rec
	}
	forked, _ := records.New(records.TypeForked, nil)
	meta, _ := records.New(records.TypeMetadata, map[string]any{"protocol_version": records.ProtocolVersion})
	count := func(msgs []history.Message) int {
		n := 0
		for _, m := range msgs {
			if m.Origin.Is(history.OriginSystemTrigger) && m.Origin.Name == goal.TriggerGoalForkClears {
				n++
			}
		}
		return n
	}
	r := h.ResumeWithoutCards([]records.Record{meta, create("old"), forked})
	if a := r.Agent.(host).Agent; a.Goals().Get() != nil || count(a.History()) != 1 {
		t.Errorf("goal then fork: goal %+v, %d reminders", a.Goals().Get(), count(a.History()))
	}
	for _, rec := range r.Store.Records() {
		if strings.Contains(rec.String(), goal.TriggerGoalForkClears) {
			t.Error("the fork reminder was recorded")
		}
	}
	r = h.ResumeWithoutCards([]records.Record{meta, forked, create("new")})
	if g := r.Agent.(host).Agent.Goals().Get(); g == nil || g.Objective != "new" || g.Status != tools.GoalPaused {
		t.Errorf("goal after the fork: %+v", g)
	}
	r = h.ResumeWithoutCards([]records.Record{meta, forked})
	if n := count(r.Agent.(host).Agent.History()); n != 0 {
		t.Errorf("a fork without a goal added %d reminders", n)
	}
}

// Spec 03 S17: a goal created in turn 0 hands off to continuation turns.
func TestSpec03S17GoalHandOff(t *testing.T) {
	h := modesHarness(t, agenttest.Permission(permission.Options{Approver: agenttest.AnswerAll(event.ApproveOnce)}))
	a := agentOf(h)
	if err := a.SetPermissionMode(t.Context(), permission.ModeYolo); err != nil {
		t.Fatal(err)
	}
	h.Model(call("c1", "CreateGoal", `{"objective":"work"}`), scripted.Text("goal set"),
		scripted.Text("a slice of work"),
		call("u1", "UpdateGoal", `{"status":"complete"}`), scripted.Text("All done."))
	res := startTurnAndWait(t, h, "start a goal")
	var started, ended []int
	for _, ev := range h.Events() {
		switch e := ev.(type) {
		case event.TurnStarted:
			started = append(started, e.TurnID)
		case event.TurnEnded:
			ended = append(ended, e.TurnID)
		}
	}
	if d := cmp.Diff([]int{0, 1, 2}, started); d != "" {
		t.Errorf("turn.started (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]int{0, 1, 2}, ended); d != "" {
		t.Errorf("turn.ended (-want +got):\n%s", d)
	}
	if res.Event.TurnID != 2 {
		t.Errorf("last turn %d", res.Event.TurnID)
	}
	continuations := 0
	for _, o := range userOrigins(a.History()) {
		if o == "system_trigger/goal_continuation" {
			continuations++
		}
	}
	if continuations != 2 {
		t.Errorf("%d continuation messages; want 2", continuations)
	}
	reqs := h.Requests()
	if len(reqs) != 5 || !strings.HasPrefix(llm.ExtractText(reqs[4].Messages[len(reqs[4].Messages)-1], ""), "Goal completed successfully.") {
		t.Errorf("%d requests; the last one must read the UpdateGoal result", len(reqs))
	}
}

func startTurnAndWait(t *testing.T, h *agenttest.Harness, text string) turn.Result {
	t.Helper()
	h.Start(text)
	return h.Wait()
}

// Spec 03 S18: every attempt answers 429 on the wire; the goal pauses.
func TestSpec03S18GoalPausedOnRateLimit(t *testing.T) {
	srv := llmtest.FakeChatCompletions(t, llmtest.ChatRateLimited(1), llmtest.ChatRateLimited(1), llmtest.ChatRateLimited(1))
	p := openai.New(openai.Options{Flavour: openai.OpenAI, BaseURL: llmtest.ChatBaseURL(srv), APIKey: "test-key", Model: "fake-model"})
	h := modesHarness(t, agenttest.Provider(p), agenttest.LoopControl(turn.LoopControl{MaxRetriesPerStep: 3}))
	res := startGoal(t, h, "work")
	if res.Event.Reason != event.EndFailed || res.Event.Error == nil || res.Event.Error.Code != event.CodeProviderRateLimit {
		t.Fatalf("turn %+v", res.Event)
	}
	g := agentOf(h).Goals().Get()
	if g == nil || g.Status != tools.GoalPaused || g.TerminalReason != "Paused after provider rate limit" {
		t.Errorf("goal %+v", g)
	}
	if n := turnsStarted(h); n != 1 {
		t.Errorf("%d turns started; no continuation may follow", n)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("%d requests reached the server", n)
	}
}

// The user's goal controls (spec 04 §6.11): /goal pause cancels the
// running goal turn, /goal resume and /goal <objective> wait for an idle
// agent, and resuming prompts the model to carry on.
func TestGoalControls(t *testing.T) {
	h := modesHarness(t)
	a := agentOf(h)
	ctx := t.Context()
	hold := h.Held(scripted.Text("a long slice"), 1)
	if _, l, err := a.StartGoal(ctx, tools.GoalInput{Objective: "work"}); err != nil || !l.Launched {
		t.Fatal(l, err)
	}
	waitHeld(t, hold)
	if _, _, err := a.StartGoal(ctx, tools.GoalInput{Objective: "another", Replace: true}); err == nil {
		t.Error("StartGoal ran while a turn was running")
	}
	if _, err := a.ResumeGoal(ctx); err == nil {
		t.Error("ResumeGoal ran while a turn was running")
	}
	if err := a.PauseGoal(ctx); err != nil {
		t.Fatal(err)
	}
	if res := h.Wait(); res.Event.Reason != event.EndCancelled {
		t.Errorf("the goal turn ended %+v; want cancelled by the pause", res.Event)
	}
	if g := a.Goals().Get(); g == nil || g.Status != tools.GoalPaused || g.TerminalReason != "" {
		t.Errorf("goal %+v; want paused by the user, without the interruption's reason", g)
	}
	h.Model(call("u1", "UpdateGoal", `{"status":"complete"}`), scripted.Text("done"))
	if _, err := a.ResumeGoal(ctx); err != nil {
		t.Fatal(err)
	}
	h.Wait()
	if a.Goals().Get() != nil {
		t.Errorf("goal %+v; want completed", a.Goals().Get())
	}
	reqs := h.Requests()
	if !strings.Contains(requestText(reqs[len(reqs)-2]), "Resume the active goal.") {
		t.Error("the resumed turn does not start with the resume prompt")
	}
	h.ExpectResumeMatches()
}

// A goal paused on a 429 says when the provider takes requests again, so
// a headless run can wait for it and resume the goal.
func TestGoalPausedOnRateLimitCarriesTheReset(t *testing.T) {
	srv := llmtest.FakeChatCompletions(t, llmtest.ChatRateLimited(30))
	p := openai.New(openai.Options{Flavour: openai.OpenAI, BaseURL: llmtest.ChatBaseURL(srv), APIKey: "test-key", Model: "fake-model"})
	h := modesHarness(t, agenttest.Provider(p), agenttest.LoopControl(turn.LoopControl{MaxRetriesPerStep: 1}))
	res := startGoal(t, h, "work")
	if res.Event.Error == nil || res.Event.Error.Details["retryAfterMs"] != int64(30_000) {
		t.Errorf("turn error %+v", res.Event.Error)
	}
	if g := agentOf(h).Goals().Get(); g.Status != tools.GoalPaused {
		t.Errorf("goal %+v", g)
	}
}

// The last turn of a goal lets go of the turn slot before turn.ended,
// like a turn without a goal: a front end that prompts (or asks whether
// a turn runs) on seeing the goal's last turn end is not refused. Turns
// the driver continues keep the slot.
func TestGoalLastTurnReleasesBeforeTurnEnded(t *testing.T) {
	h := modesHarness(t)
	a := agentOf(h)
	var activeAtEnd []bool
	h.Observe(func(ev event.Event) {
		if ev.EventType() == event.TypeTurnEnded {
			activeAtEnd = append(activeAtEnd, a.HasActiveTurn())
		}
	})
	h.Model(scripted.Text("Looked around."), call("u1", "UpdateGoal", `{"status":"complete"}`),
		scripted.Text("The goal is complete."))
	startGoal(t, h, "tidy the repo")
	if d := cmp.Diff([]bool{true, false}, activeAtEnd); d != "" {
		t.Errorf("HasActiveTurn at each turn.ended (-want +got):\n%s", d)
	}
}
