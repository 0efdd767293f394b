package agent

import (
	"context"
	"encoding/json"
	"maps"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/permission"
	"github.com/kimigo/kimigo/agent/plan"
	"github.com/kimigo/kimigo/agent/swarm"
	"github.com/kimigo/kimigo/agent/turn"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/tools"
)

// Request is what the next model request would send, as the provider
// receives it from the loop: the provider's identity and completion cap,
// the system prompt, the offered tools and the projected messages.
type Request struct {
	Provider            string        `json:"provider"`
	Model               string        `json:"model"`
	MaxCompletionTokens int           `json:"maxCompletionTokens,omitempty"`
	System              string        `json:"system"`
	Tools               []llm.Tool    `json:"tools"`
	Messages            []llm.Message `json:"messages"`
}

// NextRequest builds the request the next step would send, without
// sending anything: for inspection, and for checking that a resumed agent
// continues exactly where the original stopped. It fails without a model.
func (a *Agent) NextRequest(ctx context.Context) (Request, error) {
	snap, err := a.snapshot()
	if err != nil {
		return Request{}, err
	}
	capability := llm.Capability{}
	if snap.Capability != nil {
		capability = *snap.Capability
	}
	p := llm.ApplyCompletionBudget(snap.Provider, snap.Budget, capability, a.TokenCount())
	msgs := historyView{a}.View(loop.ProjectionNormal)
	return Request{
		Provider:            p.Name(),
		Model:               p.ModelName(),
		MaxCompletionTokens: p.MaxCompletionTokens(),
		System:              snap.SystemPrompt,
		Tools:               a.toolDefinitions(ctx),
		Messages:            turn.DowngradeUnsupportedMedia(msgs, snap.Capability),
	}, nil
}

// State is everything a resume must rebuild, for comparing an agent with
// its resumed copy (spec 02 §8.8).
type State struct {
	History     []history.Message
	TokenCount  int
	Config      Config
	ToolStore   map[string]json.RawMessage
	Tools       []string
	Usage       event.Usage
	TurnCounter int
	// Permission is the permission mode and effective rules, and
	// SessionApprovals the "approve for this session" patterns; both are
	// zero without a permission manager.
	Permission       permission.Data
	SessionApprovals []string
	// Plan is plan mode's state and Goal the goal (nil when there is none);
	// both are zero without the mode.
	Plan plan.State
	Goal *tools.GoalSnapshot
	// Swarm is what turned swarm mode on, "" while off or without one.
	Swarm swarm.Trigger
}

// State returns a snapshot of the agent's restorable state. The running
// turn's usage is not part of it.
func (a *Agent) State(ctx context.Context) State {
	a.mu.Lock()
	s := State{History: a.mem.History(), TokenCount: a.mem.TokenCount(), Config: a.config.clone(),
		ToolStore: maps.Clone(a.store.Snapshot()), Usage: a.usage.data()}
	a.mu.Unlock()
	s.Usage.CurrentTurn = nil
	s.Tools = a.toolNames(ctx)
	s.TurnCounter = a.turns.CurrentID()
	if a.perm != nil {
		s.Permission, s.SessionApprovals = a.perm.Data(), a.perm.SessionPatterns()
	}
	if a.o.Plan != nil {
		s.Plan = a.o.Plan.State()
	}
	if a.o.Goals != nil {
		s.Goal = a.o.Goals.Get()
	}
	if a.o.Swarm != nil {
		s.Swarm = a.o.Swarm.Trigger()
	}
	return s
}
