package agent_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent"
	"github.com/kimigo/kimigo/agent/agenttest"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/scripted"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/loop/looptest"
)

// Spec 03 §8 scenarios 35–36; 37 (the estimator) is tested in llm.

func TestUsageS35TurnVersusSession(t *testing.T) {
	h := newHarness(t, agenttest.Tools(looptest.Echo()))
	a := agentOf(h)
	var during []*llm.TokenUsage
	h.Observe(func(ev event.Event) {
		if s, ok := ev.(event.Status); ok && s.Usage != nil {
			during = append(during, s.Usage.CurrentTurn)
		}
	})
	h.Model(withUsage(call("c1", "echo", `{"text":"x"}`), 10, 1), withUsage(scripted.Text("done"), 20, 2))
	h.Prompt("count tokens")
	want := []*llm.TokenUsage{{InputOther: 10, Output: 1}, {InputOther: 30, Output: 3}}
	if d := cmp.Diff(want, during); d != "" {
		t.Errorf("current turn while running (-want +got):\n%s", d)
	}
	if cur := a.Usage().CurrentTurn; cur != nil {
		t.Errorf("current turn after the turn = %+v, want nil", cur)
	}
	// A compaction request is recorded for the session only.
	if err := agent.RecordUsage(t.Context(), a, "scripted-model", llm.TokenUsage{InputOther: 100, Output: 5}, agent.UsageScopeSession); err != nil {
		t.Fatal(err)
	}
	u := a.Usage()
	if d := cmp.Diff(&llm.TokenUsage{InputOther: 130, Output: 8}, u.Total); d != "" || u.CurrentTurn != nil {
		t.Errorf("usage after compaction = %+v (total diff %s)", u, d)
	}
	u.ByModel["scripted-model"] = llm.TokenUsage{}
	*u.Total = llm.TokenUsage{}
	if got := a.Usage(); got.Total.InputOther != 130 || got.ByModel["scripted-model"].InputOther != 130 {
		t.Errorf("Usage() shares state with its callers: %+v", got)
	}
	r := h.ExpectResumeMatches()
	resumed := r.Agent.State(t.Context()).(agent.State).Usage
	if resumed.Total == nil || resumed.Total.InputOther != 130 || resumed.CurrentTurn != nil {
		t.Errorf("resumed usage = %+v", resumed)
	}
}

func TestUsageS36ContextSize(t *testing.T) {
	ok := &looptest.Tool{Name: "Check", Accesses: loop.None(),
		Run: func(context.Context, json.RawMessage, loop.ExecCtx) (loop.ToolResult, error) {
			return loop.TextResult("ok"), nil
		}}
	h := newHarness(t, agenttest.Tools(ok))
	a := agentOf(h)
	type sizes struct{ count, pending int }
	var afterStep []sizes
	h.Observe(func(ev event.Event) {
		if _, ok := ev.(event.Status); ok {
			afterStep = append(afterStep, sizes{a.TokenCount(), a.TokenCountWithPending()})
		}
	})
	h.Model(withUsage(call("c1", "Check", `{}`), 154, 11), scripted.Text("all good")) // the second reports nothing
	h.Prompt("check")
	if len(afterStep) == 0 || afterStep[0] != (sizes{165, 167}) {
		t.Fatalf("sizes after the tool step = %+v, want {165 167}", afterStep)
	}
	hist := a.History()
	want := 165 + llm.EstimateMessage(hist[2].Message) + llm.EstimateMessage(hist[3].Message)
	if got := a.TokenCount(); got != want {
		t.Errorf("TokenCount() after a step without usage = %d, want %d (165 plus the estimates it covers)", got, want)
	}
	h.ExpectResumeMatches()
}
