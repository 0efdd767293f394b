package tools_test

import (
	"encoding/json"
	"testing"

	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/tools"
)

func TestFormatGoalElapsed(t *testing.T) {
	for ms, want := range map[int64]string{0: "0s", 45_000: "45s", 59_499: "59s", 125_000: "2m05s", 3_599_000: "59m59s",
		3_900_000: "1h05m", -5: "0s"} {
		if got := tools.FormatGoalElapsed(ms); got != want {
			t.Errorf("FormatGoalElapsed(%d) = %q; want %q", ms, got, want)
		}
	}
}

func TestFormatGoalTokens(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1.0k", 1250: "1.2k", 2_500_000: "2.5M"} {
		if got := tools.FormatGoalTokens(n); got != want {
			t.Errorf("FormatGoalTokens(%d) = %q; want %q", n, got, want)
		}
	}
}

// The normalization of SetGoalBudget (spec 04 §6.10, scenario 82).
func TestGoalBudgetRequestLimits(t *testing.T) {
	for _, tt := range []struct {
		value float64
		unit  string
		label string
		ok    bool
		turns int
		toks  int
		ms    int64
	}{
		{20, "turns", "20 turns", true, 20, 0, 0},
		{1.5, "turns", "2 turns", true, 2, 0, 0},
		{0.4, "tokens", "1 token", true, 0, 1, 0},
		{1, "milliseconds", "1 millisecond", false, 0, 0, 0},
		{8760, "hours", "8760 hours", false, 0, 0, 0},
		{25, "hours", "25 hours", false, 0, 0, 0},
		{1.5, "hours", "1.5 hours", true, 0, 0, 5_400_000},
		{30, "minutes", "30 minutes", true, 0, 0, 1_800_000},
		{1, "seconds", "1 second", true, 0, 0, 1000},
	} {
		l, label, ok := tools.GoalBudgetRequest{Value: tt.value, Unit: tt.unit}.Limits()
		if label != tt.label || ok != tt.ok {
			t.Errorf("%v %s: label %q ok %v; want %q %v", tt.value, tt.unit, label, ok, tt.label, tt.ok)
		}
		if !ok {
			continue
		}
		if (tt.turns != 0) != (l.TurnBudget != nil) || (l.TurnBudget != nil && *l.TurnBudget != tt.turns) ||
			(tt.toks != 0) != (l.TokenBudget != nil) || (l.TokenBudget != nil && *l.TokenBudget != tt.toks) ||
			(tt.ms != 0) != (l.WallClockBudgetMs != nil) || (l.WallClockBudgetMs != nil && *l.WallClockBudgetMs != tt.ms) {
			t.Errorf("%v %s: limits %+v", tt.value, tt.unit, l)
		}
	}
}

func TestComputeGoalBudget(t *testing.T) {
	four, one := 4, 1
	b := tools.ComputeGoalBudget(3, 0, 0, tools.GoalBudgetLimits{TurnBudget: &four})
	if b.OverBudget || *b.RemainingTurns != 1 || b.TokenBudget != nil || b.RemainingTokens != nil {
		t.Errorf("3 of 4 turns: %+v", b)
	}
	b = tools.ComputeGoalBudget(0, 5, 0, tools.GoalBudgetLimits{TokenBudget: &one})
	if !b.OverBudget || !b.TokenBudgetReached || *b.RemainingTokens != 0 {
		t.Errorf("5 of 1 tokens: %+v", b)
	}
	merged := tools.GoalBudgetLimits{TurnBudget: &four}.Merge(tools.GoalBudgetLimits{TokenBudget: &one})
	if merged.TurnBudget == nil || merged.TokenBudget == nil {
		t.Errorf("merge lost a budget: %+v", merged)
	}
}

// The plan and goal displays travel as display blocks of their own kinds,
// and a record read back keeps their bytes.
func TestModeDisplaysJSON(t *testing.T) {
	for _, tt := range []struct {
		d    loop.Display
		want string
	}{
		{&tools.PlanReviewDisplay{Plan: "# P", Path: "/p.md", Options: []tools.PlanOption{{Label: "A"}, {Label: "B", Description: "b"}}},
			`{"kind":"plan_review","plan":"# P","path":"/p.md","options":[{"label":"A","description":""},{"label":"B","description":"b"}]}`},
		{&tools.GoalStartDisplay{Objective: "work", Mode: "manual"}, `{"kind":"goal_start","objective":"work","mode":"manual"}`},
	} {
		b, err := json.Marshal(tt.d)
		if err != nil || string(b) != tt.want {
			t.Errorf("%T = %s, %v; want %s", tt.d, b, err, tt.want)
		}
		back, err := loop.DecodeDisplay(b)
		if err != nil || back.DisplayKind() != tt.d.DisplayKind() {
			t.Fatalf("decode %s: %v, %v", b, back, err)
		}
		if again, _ := json.Marshal(back); string(again) != tt.want {
			t.Errorf("read back as %s", again)
		}
	}
}
