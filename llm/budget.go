package llm

import (
	"strconv"
	"strings"
)

// DefaultCompletionFallback is the completion cap used when nothing else
// decides it and the window is unknown.
const DefaultCompletionFallback = 32000

// CompletionBudget decides the completion cap of a request. A nil budget
// means no cap is applied at all.
type CompletionBudget struct {
	// HardCap, when positive, is the cap.
	HardCap int
	// Fallback is the cap when there is no hard cap and the window is
	// unknown.
	Fallback int
}

// BudgetInputs are the settings a completion budget is resolved from. The
// two overrides are the raw values of the KIMI_MODEL_MAX_COMPLETION_TOKENS
// and KIMI_MODEL_MAX_TOKENS settings as the config layer read them; llm
// never reads the environment itself.
type BudgetInputs struct {
	MaxCompletionTokensOverride string
	MaxTokensOverride           string
	// MaxOutputSize is the model's configured output size, 0 if unset.
	MaxOutputSize int
	// ReservedContextSize is loop_control.reserved_context_size, 0 if unset.
	ReservedContextSize int
}

// ResolveCompletionBudget applies the precedence of spec 03 §2.5: the first
// override that is an integer wins (≤ 0 disables capping), then the model's
// output size, then the reserved context size as a fallback, then 32,000.
func ResolveCompletionBudget(in BudgetInputs) *CompletionBudget {
	for _, v := range []string{in.MaxCompletionTokensOverride, in.MaxTokensOverride} {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			continue
		}
		if n <= 0 {
			return nil
		}
		return &CompletionBudget{HardCap: n}
	}
	switch {
	case in.MaxOutputSize > 0:
		return &CompletionBudget{HardCap: in.MaxOutputSize}
	case in.ReservedContextSize > 0:
		return &CompletionBudget{Fallback: in.ReservedContextSize}
	}
	return &CompletionBudget{Fallback: DefaultCompletionFallback}
}

// Cap is the cap for a model with capability c, never below 1.
func (b *CompletionBudget) Cap(c Capability) int {
	n := b.HardCap
	if n <= 0 {
		n = c.MaxContextTokens
	}
	if n <= 0 {
		n = b.Fallback
	}
	if n <= 0 {
		n = DefaultCompletionFallback
	}
	return max(1, n)
}

// ApplyCompletionBudget returns a copy of p with the budget's cap, clamped
// by the provider against the used and maximum context. A nil budget
// returns p unchanged.
func ApplyCompletionBudget(p Provider, b *CompletionBudget, c Capability, usedContextTokens int) Provider {
	if b == nil {
		return p
	}
	return p.WithMaxCompletionTokens(b.Cap(c), ContextBudget{
		UsedContextTokens: usedContextTokens,
		MaxContextTokens:  c.MaxContextTokens,
	})
}
