package agent_test

import (
	"context"
	"testing"

	"github.com/kimigo/kimigo/agent"
	"github.com/kimigo/kimigo/agent/goal"
	"github.com/kimigo/kimigo/agent/injection"
	"github.com/kimigo/kimigo/agent/plan"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/scripted"
	"github.com/kimigo/kimigo/osenv/osenvtest"
	"github.com/kimigo/kimigo/tools"
)

// benchTurns is the length of the benchmarked goal.
const benchTurns = 50

// benchAgent is a main agent with plan and goal mode, the reminders and
// the builtin tools, on in-memory records and a scripted model.
func benchAgent(rs []scripted.Response) (*agent.Agent, *records.MemoryPersistence) {
	env := osenvtest.New(osenvtest.Options{})
	store := records.NewMemory(records.MemoryOptions{})
	pm := plan.New(plan.Options{Env: env, HomeDir: "/h"})
	gs := goal.New(goal.Options{})
	a := agent.New(agent.Options{
		Model: agent.ModelBinding{Provider: scripted.New(scripted.Options{Responses: rs}),
			Capability: llm.Capability{ToolUse: true, MaxContextTokens: 1_000_000}},
		Config:      agent.Config{SystemPrompt: "You are kimigo."},
		Env:         env,
		Persistence: store,
		Plan:        pm,
		Goals:       gs,
		Injection: injection.New(injection.Options{PerStep: injection.PerStepWith(pm.Reminder()),
			Boundary: []injection.Injector{gs.Reminder()}}),
		NewToolManager: func(c tools.StoreCommitter) *tools.Manager {
			return tools.New(tools.Options{Base: tools.Base{Env: env}, Committer: c, Plan: pm, Goals: gs})
		},
	})
	return a, store
}

// benchScript is benchTurns answers of the same shape: text slices with
// usage, the last turn a tool call and its outcome step. endCall is that
// call.
func benchScript(endCall scripted.Call) []scripted.Response {
	var rs []scripted.Response
	for range benchTurns - 1 {
		r := scripted.Text("One more slice of the work is done.")
		r.Usage = &llm.TokenUsage{InputOther: 500, Output: 12}
		rs = append(rs, r)
	}
	end := scripted.ToolCalls(endCall)
	end.Usage = &llm.TokenUsage{InputOther: 500, Output: 12}
	return append(rs, end, scripted.Text("Done."))
}

// BenchmarkGoalDrive50 runs a goal of 50 turns (49 slices, then
// UpdateGoal complete and the outcome step) on the scripted model and
// reports the time and records per goal turn. BenchmarkPlainTurns50 runs
// 50 ordinary prompts of the same shape; the difference per turn is the
// goal machinery: turn and token charging, the goal reminder, the
// continuation prompt, the driver's checks.
func BenchmarkGoalDrive50(b *testing.B) {
	ctx := context.Background()
	var recs int
	for b.Loop() {
		b.StopTimer()
		a, store := benchAgent(benchScript(scripted.Call{ID: "u1", Name: tools.NameUpdateGoal, Arguments: `{"status":"complete"}`}))
		b.StartTimer()
		if _, _, err := a.StartGoal(ctx, tools.GoalInput{Objective: "keep the build green"}); err != nil {
			b.Fatal(err)
		}
		res, err := a.WaitForCurrentTurn(ctx)
		b.StopTimer()
		if err != nil || res.Event.TurnID != benchTurns-1 || a.Goals().Get() != nil {
			b.Fatalf("last turn %+v, %v; goal %+v", res.Event, err, a.Goals().Get())
		}
		recs = len(store.Records())
		_ = a.Close(ctx)
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchTurns), "ns/turn")
	b.ReportMetric(float64(recs)/benchTurns, "records/turn")
}

func BenchmarkPlainTurns50(b *testing.B) {
	ctx := context.Background()
	var recs int
	for b.Loop() {
		b.StopTimer()
		a, store := benchAgent(benchScript(scripted.Call{ID: "t1", Name: tools.NameGetGoal, Arguments: `{}`}))
		b.StartTimer()
		for i := range benchTurns {
			if _, err := a.Prompt(ctx, []llm.ContentPart{llm.TextPart("Continue with the next slice.")}, nil); err != nil {
				b.Fatal(err)
			}
			if res, err := a.WaitForCurrentTurn(ctx); err != nil || res.Event.TurnID != i {
				b.Fatalf("turn %+v, %v", res.Event, err)
			}
		}
		b.StopTimer()
		recs = len(store.Records())
		_ = a.Close(ctx)
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchTurns), "ns/turn")
	b.ReportMetric(float64(recs)/benchTurns, "records/turn")
}

// BenchmarkGoalBookkeeping is the goal machinery of one goal turn alone,
// through the agent's commit path: the driver's checks, the turn and token
// charges and the goal reminder's text.
func BenchmarkGoalBookkeeping(b *testing.B) {
	ctx := context.Background()
	a, _ := benchAgent(nil)
	defer a.Close(ctx)
	g := a.Goals()
	if _, err := g.Create(ctx, tools.GoalInput{Objective: "keep the build green"}, goal.ActorUser); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if !g.Active() || g.OverBudget() {
			b.Fatal("the goal stopped")
		}
		if err := g.IncrementTurn(ctx); err != nil {
			b.Fatal(err)
		}
		if _, err := g.RecordTokenUsage(ctx, 12); err != nil {
			b.Fatal(err)
		}
		_ = goal.ContextText(*g.Get())
		if g.OverBudget() {
			b.Fatal("over budget")
		}
	}
}
