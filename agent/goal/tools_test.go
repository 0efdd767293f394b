package goal_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/agent/goal"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/loop/looptest"
	"github.com/kimigo/kimigo/tools"
)

// runCall runs one call of a goal tool in a real loop turn (argument
// validation, resolve, StopBatchAfterThis, execute) and returns its
// recorded result, whether the batch stopped after it (a second call of
// the response, to Probe, is skipped) and whether the tool asked to stop
// the turn.
func runCall(t *testing.T, s *goal.Store, name, args string) (res loop.ToolResult, batchStopped, stopTurn bool) {
	t.Helper()
	table := []loop.ExecutableTool{tools.NewCreateGoal(s), tools.NewGetGoal(s), tools.NewSetGoalBudget(s), tools.NewUpdateGoal(s),
		looptest.Func("Probe", loop.None(), func(context.Context, json.RawMessage, loop.ExecCtx) (loop.ToolResult, error) {
			return loop.TextResult("probed"), nil
		})}
	fake := looptest.New(looptest.Calls(looptest.Call("c1", name, args), looptest.Call("c2", "Probe", `{}`)), looptest.Text("done"))
	rec := &looptest.Recorder{}
	_, err := loop.RunTurn(t.Context(), loop.RunTurnInput{
		TurnID: "1", LLM: looptest.WithoutRetry(fake), Dispatch: rec.Dispatcher(), Tools: table,
		BuildMessages: func(context.Context) ([]llm.Message, error) {
			return []llm.Message{{Role: llm.RoleUser, Content: []llm.ContentPart{llm.TextPart("go")}}}, nil
		},
		Hooks: loop.Hooks{FinalizeToolResult: func(_ context.Context, h loop.ResultCtx) (*loop.ToolResult, error) {
			if h.ToolCall.ID == "c1" {
				stopTurn = h.Result.StopTurn
			}
			return nil, nil
		}},
	})
	if err != nil {
		t.Fatalf("RunTurn: %v", err)
	}
	results := looptest.RecordedOfType[loop.ToolResultEvent](rec)
	if len(results) != 2 {
		t.Fatalf("%d results", len(results))
	}
	return results[0].Result, results[1].Result.Output.Text() != "probed", stopTurn
}

func TestS82SetGoalBudget(t *testing.T) {
	s, _ := newStore(t)
	ctx := t.Context()
	if res, _, _ := runCall(t, s, "SetGoalBudget", `{"value":20,"unit":"turns"}`); res.Output.Text() != "Goal budget not set: no current goal." || res.IsError {
		t.Errorf("no goal: %q", res.Output.Text())
	}
	if _, err := s.Create(ctx, tools.GoalInput{Objective: "work"}, goal.ActorUser); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ args, want string }{
		{`{"value":20,"unit":"turns"}`, "Goal budget set: 20 turns."},
		{`{"value":0.4,"unit":"tokens"}`, "Goal budget set: 1 token."},
		{`{"value":1.5,"unit":"turns"}`, "Goal budget set: 2 turns."},
	} {
		if res, stopped, _ := runCall(t, s, "SetGoalBudget", tt.args); res.Output.Text() != tt.want || res.IsError || stopped {
			t.Errorf("%s: %q (stopped %v); want %q", tt.args, res.Output.Text(), stopped, tt.want)
		}
	}
	before := s.Get().BudgetLimits
	for _, args := range []string{`{"value":1,"unit":"milliseconds"}`, `{"value":8760,"unit":"hours"}`} {
		res, _, _ := runCall(t, s, "SetGoalBudget", args)
		if !strings.Contains(res.Output.Text(), "is not a reasonable goal budget") || res.IsError {
			t.Errorf("%s: %q", args, res.Output.Text())
		}
	}
	if after := s.Get().BudgetLimits; after.WallClockBudgetMs != nil || *after.TurnBudget != *before.TurnBudget {
		t.Errorf("an unreasonable budget changed the limits: %+v", after)
	}

	// With one turn used, a one-turn budget stops the batch and the turn.
	if err := s.IncrementTurn(ctx); err != nil {
		t.Fatal(err)
	}
	res, stopped, stopTurn := runCall(t, s, "SetGoalBudget", `{"value":1,"unit":"turns"}`)
	if !stopped || !stopTurn || res.IsError || !strings.HasPrefix(res.Output.Text(), "Goal budget set: 1 turn.") ||
		!strings.Contains(res.Output.Text(), "stop now") {
		t.Errorf("reached budget: %q, batch stopped %v, stopTurn %v", res.Output.Text(), stopped, stopTurn)
	}
}

func TestS92GoalBudget(t *testing.T) {
	s, _ := newStore(t)
	if _, err := s.Create(t.Context(), tools.GoalInput{Objective: "work"}, goal.ActorUser); err != nil {
		t.Fatal(err)
	}
	res, _, _ := runCall(t, s, "SetGoalBudget", `{"value":2,"unit":"days"}`)
	if !res.IsError || !strings.Contains(res.Output.Text(), "unit") {
		t.Errorf("days: %q; want a schema error", res.Output.Text())
	}
	if res, _, _ := runCall(t, s, "SetGoalBudget", `{"value":25,"unit":"hours"}`); res.Output.Text() !=
		"Goal budget not set: 25 hours is not a reasonable goal budget." {
		t.Errorf("25 hours: %q", res.Output.Text())
	}
	if res, _, _ := runCall(t, s, "SetGoalBudget", `{"value":1.6,"unit":"turns"}`); res.Output.Text() != "Goal budget set: 2 turns." {
		t.Errorf("1.6 turns: %q", res.Output.Text())
	}
}

func TestS83UpdateGoal(t *testing.T) {
	s, _ := newStore(t)
	ctx := t.Context()
	res, _, _ := runCall(t, s, "UpdateGoal", `{"status":"paused"}`)
	if !res.IsError || s.Get() != nil {
		t.Errorf("paused: %q; want a schema error", res.Output.Text())
	}
	for status, want := range map[string]string{"active": "Goal not resumed: no current goal.",
		"complete": "Goal not completed: no active goal.", "blocked": "Goal not blocked: no active goal."} {
		res, stopped, stopTurn := runCall(t, s, "UpdateGoal", `{"status":"`+status+`"}`)
		if res.Output.Text() != want || res.IsError || stopped || stopTurn {
			t.Errorf("%s without a goal: %q (stopped %v, stopTurn %v)", status, res.Output.Text(), stopped, stopTurn)
		}
	}
	if _, err := s.Create(ctx, tools.GoalInput{Objective: "work"}, goal.ActorUser); err != nil {
		t.Fatal(err)
	}
	if err := s.Pause(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if res, _, _ := runCall(t, s, "UpdateGoal", `{"status":"active"}`); res.Output.Text() != "Goal resumed." || s.Get().Status != tools.GoalActive {
		t.Errorf("active on a paused goal: %q, %v", res.Output.Text(), s.Get().Status)
	}
	res, stopped, stopTurn := runCall(t, s, "UpdateGoal", `{"status":"blocked"}`)
	if !stopped || !stopTurn || !strings.HasPrefix(res.Output.Text(), "Goal blocked.\nWorked 0 turns over 0s, using 0 tokens.") {
		t.Errorf("blocked: %q (stopped %v, stopTurn %v)", res.Output.Text(), stopped, stopTurn)
	}
	if g := s.Get(); g.Status != tools.GoalBlocked || g.TerminalReason != "" {
		t.Errorf("goal %+v", g)
	}
	_ = s.Resume(ctx, goal.ActorUser)
	res, _, stopTurn = runCall(t, s, "UpdateGoal", `{"status":"complete"}`)
	if !stopTurn || !strings.HasPrefix(res.Output.Text(), "Goal completed successfully.") || s.Get() != nil {
		t.Errorf("complete: %q, goal %v", res.Output.Text(), s.Get())
	}
}

func TestGetAndCreateGoalOutputs(t *testing.T) {
	s, h := newStore(t)
	if res, _, _ := runCall(t, s, "GetGoal", `{}`); res.Output.Text() != "{\n  \"goal\": null\n}" {
		t.Errorf("GetGoal without a goal = %q", res.Output.Text())
	}
	res, _, _ := runCall(t, s, "CreateGoal", `{"objective":"work","completionCriterion":"tests pass"}`)
	out := res.Output.Text()
	if res.IsError || !strings.Contains(out, "\n  \"goal\": {\n    \"objective\": \"work\"") || strings.Contains(out, "goalId") {
		t.Errorf("CreateGoal = %q", out)
	}
	res, _, _ = runCall(t, s, "CreateGoal", `{"objective":"again"}`)
	if !res.IsError || res.Output.Text() != `Tool "CreateGoal" failed: A goal already exists; use replace to start a new one` {
		t.Errorf("second CreateGoal = %q", res.Output.Text())
	}
	h.mode = "auto"
	exec, _, err := tools.NewCreateGoal(s).ResolveExecution([]byte(`{"objective":"x"}`))
	if d, ok := exec.Display.(*tools.GoalStartDisplay); err != nil || !ok || d.Mode != "auto" {
		t.Errorf("auto mode display %#v, %v; want it shown, the review decides by the mode when it runs", exec.Display, err)
	}
	h.mode = "yolo"
	exec, _, _ = tools.NewCreateGoal(s).ResolveExecution([]byte(`{"objective":"x","completionCriterion":"c"}`))
	if d, ok := exec.Display.(*tools.GoalStartDisplay); !ok || d.Mode != "yolo" || d.CompletionCriterion != "c" {
		t.Errorf("yolo display %#v", exec.Display)
	}
}
