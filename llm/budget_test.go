package llm_test

import (
	"testing"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/scripted"
)

func TestResolveCompletionBudget(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   llm.BudgetInputs
		cap  llm.Capability
		want int // 0 means no budget
	}{
		{"window decides", llm.BudgetInputs{}, llm.Capability{MaxContextTokens: 262144}, 262144},
		{"unknown window falls back", llm.BudgetInputs{}, llm.Capability{}, 32000},
		{"reserved size is the fallback", llm.BudgetInputs{ReservedContextSize: 50000}, llm.Capability{}, 50000},
		{"model output size is a hard cap", llm.BudgetInputs{MaxOutputSize: 8192}, llm.Capability{MaxContextTokens: 262144}, 8192},
		{"override wins", llm.BudgetInputs{MaxCompletionTokensOverride: "4096", MaxOutputSize: 8192}, llm.Capability{}, 4096},
		{"legacy override used second", llm.BudgetInputs{MaxCompletionTokensOverride: "x", MaxTokensOverride: " 100 "}, llm.Capability{}, 100},
		{"zero override disables", llm.BudgetInputs{MaxCompletionTokensOverride: "0", MaxOutputSize: 8192}, llm.Capability{}, 0},
		{"negative legacy override disables", llm.BudgetInputs{MaxTokensOverride: "-1"}, llm.Capability{}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := llm.ResolveCompletionBudget(tt.in)
			got := 0
			if b != nil {
				got = b.Cap(tt.cap)
			}
			if got != tt.want {
				t.Errorf("cap = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestApplyCompletionBudget(t *testing.T) {
	p := scripted.New(scripted.Options{})
	c := llm.Capability{MaxContextTokens: 262144}
	if got := llm.ApplyCompletionBudget(p, llm.ResolveCompletionBudget(llm.BudgetInputs{}), c, 100000).MaxCompletionTokens(); got != 162144 {
		t.Errorf("clamped cap = %d, want 162144", got)
	}
	if got := llm.ApplyCompletionBudget(p, nil, c, 100000); got != llm.Provider(p) {
		t.Errorf("nil budget must return the provider unchanged")
	}
}
