package session

import (
	"errors"
	"log/slog"
	"net/http"
	"sync"

	"github.com/kimigo/kimigo/agent"
	"github.com/kimigo/kimigo/agent/compaction"
	"github.com/kimigo/kimigo/agent/turn"
	"github.com/kimigo/kimigo/config"
)

// models resolves the session's model aliases through the configuration
// into agent bindings (the agent's ModelResolver), and remembers the
// configuration's view of each model it bound, for Session.Model.
type models struct {
	cfg       *config.Config
	version   string
	sessionID string
	logger    *slog.Logger
	client    *http.Client // nil: the configuration's own

	mu       sync.Mutex
	resolved map[string]config.Model // guarded by mu: by alias
}

func newModels(cfg *config.Config, version, sessionID string, logger *slog.Logger, client *http.Client) *models {
	return &models{cfg: cfg, version: version, sessionID: sessionID, logger: logger, client: client,
		resolved: map[string]config.Model{}}
}

// resolve implements agent.ModelResolver. A saved alias that is no longer
// configured falls back to default_model (spec 06 §1.4); an alias that
// exists but does not resolve is an error, never silently replaced.
func (ms *models) resolve(r agent.ModelRequest) (agent.ModelBinding, error) {
	m, err := ms.cfg.Resolve(r.Alias)
	if r.Saved && errors.Is(err, config.ErrModelNotConfigured) {
		m, _, err = ms.cfg.SelectModel("")
		r.ThinkingEffort = ""
	}
	if err != nil {
		return agent.ModelBinding{}, err
	}
	return ms.bind(m, r.ThinkingEffort)
}

// bind builds m's provider with effort ("" for the model's initial one)
// and everything that comes with the model.
func (ms *models) bind(m config.Model, effort string) (agent.ModelBinding, error) {
	if effort == "" {
		effort = m.InitialThinking()
	}
	p, err := config.NewProvider(m, config.ProviderOptions{Version: ms.version, SessionID: ms.sessionID,
		ThinkingEffort: effort, Logger: ms.logger, HTTPClient: ms.client})
	if err != nil {
		return agent.ModelBinding{}, err
	}
	ms.mu.Lock()
	ms.resolved[m.Alias] = m
	ms.mu.Unlock()
	return agent.ModelBinding{Alias: m.Alias, Provider: p, ThinkingEffort: effort, Capability: m.Capability,
		Budget: m.Budget, LoopControl: loopControl(m.Loop), Compaction: strategy(m.Loop)}, nil
}

// model is the configuration's view of the bound alias.
func (ms *models) model(alias string) config.Model {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	return ms.resolved[alias]
}

// loopControl is the turn's view of loop_control.
func loopControl(lc config.LoopControl) turn.LoopControl {
	deref := func(p *int) int {
		if p == nil {
			return 0
		}
		return *p
	}
	return turn.LoopControl{MaxStepsPerTurn: deref(lc.MaxStepsPerTurn), MaxRetriesPerStep: deref(lc.MaxAttemptsPerStep),
		StallTimeout: lc.StepStallTimeout(), MaxRetryAfter: lc.MaxRetryAfter()}
}

// strategy is the compaction strategy of loop_control: unset values keep
// the defaults.
func strategy(lc config.LoopControl) compaction.StrategyOptions {
	s := compaction.StrategyOptions{ReservedContextSize: lc.ReservedContextSize}
	if lc.CompactionTriggerRatio != nil {
		s.TriggerRatio = *lc.CompactionTriggerRatio
	}
	return s
}
