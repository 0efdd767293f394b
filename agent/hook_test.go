package agent

import (
	"context"

	"github.com/kimigo/kimigo/llm"
)

// Hooks into the agent's internals for its external tests; nothing
// outside the tests reaches them.

// EstimateCurrentRequestTokens is the local estimate of the next request
// that compaction sizes against.
func EstimateCurrentRequestTokens(a *Agent) int { return a.estimateCurrentRequestTokens() }

// RecordUsage records a model request's usage as a compaction does.
func RecordUsage(ctx context.Context, a *Agent, model string, u llm.TokenUsage, scope UsageScope) error {
	return a.recordUsage(ctx, model, u, scope)
}
