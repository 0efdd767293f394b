package compaction

import (
	"math"

	"github.com/kimigo/kimigo/llm"
)

// Ratios of the window rules (spec 03 §6.2).
const (
	// observedSafetyRatio keeps a learned window below the estimate that
	// overflowed: the estimate undercounts what the provider counts.
	observedSafetyRatio = 0.85
	// plain413Ratio: a 413 is an overflow only for a request estimated at
	// half the window or more; a small request rejected with 413 is a real
	// error.
	plain413Ratio = 0.5
)

// configuredWindow is the window the model declares: its input cap when it
// has one, else its whole window; 0 is unknown.
func configuredWindow(c llm.Capability) int {
	if c.MaxInputTokens > 0 {
		return c.MaxInputTokens
	}
	return c.MaxContextTokens
}

// modelKey names a model in the observed windows.
func modelKey(m Model) string {
	if m.Alias != "" {
		return m.Alias
	}
	if m.Provider != nil {
		return m.Provider.ModelName()
	}
	return ""
}

// EffectiveMaxContextTokens is the window compaction sizes against: the
// declared window, lowered by what overflow errors taught about the
// current model; 0 when neither is known. Safe for concurrent use.
func (c *FullCompaction) EffectiveMaxContextTokens() int {
	m, err := c.o.Model()
	if err != nil {
		return 0
	}
	return c.effectiveWindow(m)
}

func (c *FullCompaction) effectiveWindow(m Model) int {
	configured := configuredWindow(m.Capability)
	c.mu.Lock()
	observed, ok := c.observed[modelKey(m)]
	c.mu.Unlock()
	switch {
	case !ok:
		return configured
	case configured <= 0:
		return observed
	}
	return min(configured, observed)
}

// ShouldRecoverFromContextOverflow reports whether a failed request is an
// overflow compaction can fix (spec 03 §6.2): a context-overflow error, or
// a 413 for a request estimated at half the effective window or more.
// Safe for concurrent use.
func (c *FullCompaction) ShouldRecoverFromContextOverflow(err error, estimate int) bool {
	if llm.IsContextOverflow(err) {
		return true
	}
	e, ok := llm.AsError(err)
	if !ok || llm.IsAbort(err) || e.StatusCode != 413 {
		return false
	}
	w := c.EffectiveMaxContextTokens()
	return w > 0 && float64(estimate) >= plain413Ratio*float64(w)
}

// ObserveContextOverflow learns a smaller window for the current model from
// the estimate of a request that overflowed, so later size checks compact
// earlier. It never raises the window. Safe for concurrent use.
func (c *FullCompaction) ObserveContextOverflow(estimate int) {
	m, err := c.o.Model()
	if err != nil || estimate <= 0 {
		return
	}
	key := modelKey(m)
	if key == "" {
		return
	}
	obs := max(1, int(math.Floor(float64(estimate)*observedSafetyRatio)))
	w := c.effectiveWindow(m)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.limitRaised {
		// The overflow TurnFlow saw is this compactor's own per-turn limit,
		// not a provider verdict on the window.
		c.limitRaised = false
		return
	}
	if w > 0 && obs >= w {
		return
	}
	c.observed[key] = obs
}

// EstimateCurrentRequestTokens estimates the next request (spec 03 §5.5):
// the system prompt, the offered tools and the normal projection of
// history. Safe for concurrent use.
func (c *FullCompaction) EstimateCurrentRequestTokens() int {
	system := ""
	if m, err := c.o.Model(); err == nil {
		system = m.SystemPrompt
	}
	return estimateRequest(system, c.tools(), c.o.History.Messages())
}

// estimateRequest is the request estimate of spec 03 §5.5; deferred tools
// are not offered and not counted.
func estimateRequest(system string, tools []llm.Tool, msgs []llm.Message) int {
	n := llm.EstimateTokens(system) + llm.EstimateMessages(msgs)
	for _, t := range tools {
		if !t.Deferred {
			n += llm.EstimateTools([]llm.Tool{t})
		}
	}
	return n
}
