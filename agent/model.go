package agent

import (
	"context"
	"errors"
	"fmt"

	"github.com/kimigo/kimigo/agent/compaction"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/agent/turn"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
)

// ModelBinding is a model with everything that comes with it: the
// provider, what it accepts, how its completions are capped, the loop
// control and when its context is compacted. SetModel and Resume swap
// the whole binding at once, so a request never mixes one model's
// provider with another's budget or window.
type ModelBinding struct {
	// Alias names the model in the configuration; it is recorded
	// (config.update modelAlias), so a resumed agent binds it again.
	Alias string
	// Provider is the model, with thinking and sampling settings applied.
	// Nil means no model: every turn fails with model.not_configured.
	Provider llm.Provider
	// ThinkingEffort is the effort Provider was built with, recorded with
	// the alias; "" when the model cannot think.
	ThinkingEffort string
	// Capability is what the model accepts, its window included; the zero
	// value is unknown.
	Capability llm.Capability
	// Budget holds the settings the completion cap is resolved from; the
	// zero value caps at the window (or 32,000 when it is unknown).
	Budget llm.BudgetInputs
	// LoopControl is the resolved loop_control (ERRATA 16).
	LoopControl turn.LoopControl
	// Compaction decides when the context is compacted: trigger ratio,
	// output reserve (ERRATA 17).
	Compaction compaction.StrategyOptions
}

// ModelRequest asks a ModelResolver for a model.
type ModelRequest struct {
	Alias string
	// ThinkingEffort is the effort to build the provider with; "" means
	// the model's own initial effort.
	ThinkingEffort string
	// Saved marks the alias a resumed agent's records saved: a resolver
	// may fall back to its default model when that alias is no longer
	// configured (spec 06 §1.4), never for an alias asked for anew.
	Saved bool
}

// ModelResolver resolves a model request into a binding. The session's
// resolver reads the configuration; an error names what is wrong.
type ModelResolver func(ModelRequest) (ModelBinding, error)

// boundModel is the binding in use with its resolved completion budget;
// guarded by the agent's mu.
type boundModel struct {
	ModelBinding
	budget *llm.CompletionBudget
}

func newBound(b ModelBinding) boundModel {
	return boundModel{ModelBinding: b, budget: llm.ResolveCompletionBudget(b.Budget)}
}

// capability is the binding's capability for the loop and the adapter:
// nil when it is unknown.
func (b boundModel) capability() *llm.Capability {
	if b.Capability.IsUnknown() {
		return nil
	}
	c := b.Capability
	return &c
}

// window is the context the model takes: its input cap when it has one,
// else its whole window; 0 when unknown.
func (b ModelBinding) window() int {
	if b.Capability.MaxInputTokens > 0 {
		return b.Capability.MaxInputTokens
	}
	return b.Capability.MaxContextTokens
}

// ErrModelFixed refuses SetModel on an agent built without a
// ModelResolver.
var ErrModelFixed = errors.New("this agent's model cannot be switched: it has no model resolver")

// Model returns the binding in use.
func (a *Agent) Model() ModelBinding {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.bound.ModelBinding
}

// SetModel switches the agent to the model alias names (the TUI's /model,
// a -m given to a resumed session): provider, capability, completion cap,
// window, loop control and compaction strategy change together, from the
// next request on, and the switch is recorded, so a resume binds the same
// model again. An alias the resolver does not know, or a model whose
// window is smaller than the conversation already is, is an error naming
// the alias, and nothing changes. Safe for concurrent use; a request in
// flight finishes on the model it started with.
func (a *Agent) SetModel(ctx context.Context, alias string) error {
	if a.o.Models == nil {
		return fmt.Errorf("switch to model %q: %w", alias, ErrModelFixed)
	}
	b, err := a.o.Models(ModelRequest{Alias: alias})
	if err != nil {
		return fmt.Errorf("switch to model %q: %w", alias, err)
	}
	return a.bind(ctx, b, alias)
}

// bind checks that b can hold the conversation, records it and makes it
// the agent's model. asked is the alias the caller asked for, for the
// error.
func (a *Agent) bind(ctx context.Context, b ModelBinding, asked string) error {
	if w := b.window(); w > 0 {
		if used := a.TokenCountWithPending(); used > w {
			return fmt.Errorf("switch to model %q: its context window of %d tokens is smaller than the %d tokens "+
				"the conversation already uses; compact the conversation first, or pick a larger model", asked, w, used)
		}
	}
	alias, effort := b.Alias, b.ThinkingEffort
	if err := a.commitSwitch(ctx, ConfigUpdate{ModelAlias: &alias, ThinkingEffort: &effort}, b); err != nil {
		return fmt.Errorf("switch to model %q: %w", asked, err)
	}
	return nil
}

// commitSwitch commits the config.update of a switch and binds b under
// the same lock, so no request sees the new alias with the old model;
// then it publishes the new status.
func (a *Agent) commitSwitch(_ context.Context, u ConfigUpdate, b ModelBinding) error {
	rec, err := records.New(TypeConfigUpdate, u)
	if err != nil {
		return err
	}
	a.mu.Lock()
	_, events, err := a.commitLocked(rec)
	if err == nil {
		a.bound = newBound(b)
		events = a.appendStatus(events)
	}
	a.mu.Unlock()
	a.publishAll(events)
	if err != nil {
		return err
	}
	if a.manager != nil {
		a.manager.SetCapability(b.Capability) // what ReadMediaFile may return follows the model
	}
	return nil
}

// rebindAfterResume binds the model the records left configured, or
// override when it is set (a model given for this run), through the
// resolver, and records the result when it differs from the records: a
// saved alias that is no longer configured falls back to what the
// resolver picks, and the log says so. Without a resolver the agent keeps
// Options.Model.
func (a *Agent) rebindAfterResume(ctx context.Context, override string) error {
	if a.o.Models == nil {
		return nil
	}
	cfg := a.Config()
	req := ModelRequest{Alias: cfg.ModelAlias, ThinkingEffort: cfg.ThinkingEffort, Saved: true}
	if override != "" && override != req.Alias {
		req = ModelRequest{Alias: override}
	}
	if req.Alias == "" { // a log without a model: the one the agent was built with
		req = ModelRequest{Alias: a.Model().Alias, ThinkingEffort: a.Model().ThinkingEffort}
	}
	alias := req.Alias
	b, err := a.o.Models(req)
	if err != nil {
		return fmt.Errorf("bind model %q: %w", alias, err)
	}
	if b.Alias == cfg.ModelAlias && b.ThinkingEffort == cfg.ThinkingEffort {
		a.mu.Lock()
		a.bound = newBound(b)
		a.mu.Unlock()
		if a.manager != nil {
			a.manager.SetCapability(b.Capability)
		}
		return nil
	}
	if b.Alias != alias {
		a.events.Publish(event.Notice{Header: event.InTurn(event.NoTurn), Level: event.NoticeWarning,
			Text: fmt.Sprintf("Model %q is no longer configured; the session continues on %q.", alias, b.Alias)})
	}
	return a.bind(ctx, b, alias)
}

// SetThinkingEffort rebuilds the current model's provider with effort
// ("off", "on" or one of the model's efforts; "" for the model's initial
// setting), from the next request on, and records it with the alias, so
// a resume binds the same setting again. Which values a model takes is
// the caller's to check; an error names the alias and nothing changes.
// Safe for concurrent use; a request in flight finishes on the setting it
// started with.
func (a *Agent) SetThinkingEffort(ctx context.Context, effort string) error {
	alias := a.Model().Alias
	if a.o.Models == nil {
		return fmt.Errorf("set the thinking effort of model %q: %w", alias, ErrModelFixed)
	}
	b, err := a.o.Models(ModelRequest{Alias: alias, ThinkingEffort: effort})
	if err != nil {
		return fmt.Errorf("set the thinking effort of model %q: %w", alias, err)
	}
	return a.bind(ctx, b, alias)
}
