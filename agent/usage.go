package agent

import (
	"context"
	"maps"

	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
)

// TypeUsageRecord is the record of one model request's token usage (spec
// 03 §5.2).
const TypeUsageRecord records.Type = "usage.record"

// UsageScope says whether usage belongs to the running turn or only to the
// session (compaction requests).
type UsageScope string

// Usage scopes.
const (
	UsageScopeTurn    UsageScope = "turn"
	UsageScopeSession UsageScope = "session"
)

// UsageRecord is the payload of usage.record.
type UsageRecord struct {
	Model string         `json:"model"`
	Usage llm.TokenUsage `json:"usage"`
	Scope UsageScope     `json:"usageScope,omitempty"`
}

// usageState is the recorder's state, guarded by the agent's mu.
type usageState struct {
	byModel map[string]llm.TokenUsage
	current *llm.TokenUsage
}

// apply is the apply of usage.record. The running turn's usage is not
// state worth restoring: Resume clears it once replay is over, as EndTurn
// does live.
func (s *usageState) apply(r UsageRecord) {
	if s.byModel == nil {
		s.byModel = map[string]llm.TokenUsage{}
	}
	s.byModel[r.Model] = s.byModel[r.Model].Add(r.Usage)
	if r.Scope == UsageScopeTurn {
		cur := r.Usage
		if s.current != nil {
			cur = s.current.Add(r.Usage)
		}
		s.current = &cur
	}
}

// data copies the state; callers can never change the recorder through it.
func (s *usageState) data() event.Usage {
	var u event.Usage
	if len(s.byModel) > 0 {
		u.ByModel = maps.Clone(s.byModel)
		var total llm.TokenUsage
		for _, v := range s.byModel {
			total = total.Add(v)
		}
		u.Total = &total
	}
	if s.current != nil {
		cur := *s.current
		u.CurrentTurn = &cur
	}
	return u
}

// Usage returns a copy of the token accounting.
func (a *Agent) Usage() event.Usage {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.usage.data()
}

// recordUsage records the usage of one model request under model. Loop
// steps use UsageScopeTurn; compaction requests UsageScopeSession, which
// leaves the running turn's usage alone.
func (a *Agent) recordUsage(ctx context.Context, model string, u llm.TokenUsage, scope UsageScope) error {
	_, err := a.commitPayload(ctx, TypeUsageRecord, UsageRecord{Model: model, Usage: u, Scope: scope})
	return err
}

// usageRecorder is the agent's turn.UsageRecorder.
type usageRecorder struct{ a *Agent }

// BeginTurn starts the running turn's usage afresh.
func (r usageRecorder) BeginTurn() { r.a.resetTurnUsage() }

// EndTurn forgets the running turn's usage.
func (r usageRecorder) EndTurn() { r.a.resetTurnUsage() }

// RecordStep records a loop step's usage.
func (r usageRecorder) RecordStep(ctx context.Context, model string, u llm.TokenUsage) error {
	return r.a.recordUsage(ctx, model, u, UsageScopeTurn)
}

func (a *Agent) resetTurnUsage() {
	a.mu.Lock()
	a.usage.current = nil
	a.mu.Unlock()
}
