package main

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/kimigo/kimigo/agent/turn"
	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/llm"
)

// modelSlot is the main agent's model, bound after the session opened.
// A resumed session's model depends on the alias its records saved, which
// is known only once the agent has been restored, and the agent takes its
// provider when it is built; the slot is the provider the agent is built
// with, and bind fills it before the first prompt. It forwards every call
// to the bound provider.
//
// The agent reads Capability through the pointer it is given, so the
// capability is bound the same way. The completion budget is not: the
// agent resolves it when it is built (see agentPlan).
type modelSlot struct {
	p          atomic.Pointer[boundModel]
	capability llm.Capability // written by bind before the first prompt, then only read
}

type boundModel struct {
	provider llm.Provider
	model    config.Model
}

// bind makes p, the provider of m, the agent's model. It must be called
// before the first prompt.
func (s *modelSlot) bind(m config.Model, p llm.Provider) {
	s.capability = m.Capability
	s.p.Store(&boundModel{provider: p, model: m})
}

// model is the bound model; the zero Model before bind.
func (s *modelSlot) model() config.Model {
	if b := s.p.Load(); b != nil {
		return b.model
	}
	return config.Model{}
}

// loopControl is the bound model's loop control, for agent.Options.
func (s *modelSlot) loopControl() turn.LoopControl {
	lc := s.model().Loop
	deref := func(p *int) int {
		if p == nil {
			return 0
		}
		return *p
	}
	return turn.LoopControl{MaxStepsPerTurn: deref(lc.MaxStepsPerTurn), MaxRetriesPerStep: deref(lc.MaxAttemptsPerStep),
		StallTimeout: lc.StepStallTimeout(), MaxRetryAfter: lc.MaxRetryAfter()}
}

func (s *modelSlot) bound() llm.Provider {
	if b := s.p.Load(); b != nil {
		return b.provider
	}
	return nil
}

// Name implements llm.Provider.
func (s *modelSlot) Name() string {
	if p := s.bound(); p != nil {
		return p.Name()
	}
	return ""
}

// ModelName implements llm.Provider.
func (s *modelSlot) ModelName() string {
	if p := s.bound(); p != nil {
		return p.ModelName()
	}
	return ""
}

// ThinkingEffort implements llm.Provider.
func (s *modelSlot) ThinkingEffort() string {
	if p := s.bound(); p != nil {
		return p.ThinkingEffort()
	}
	return ""
}

// MaxCompletionTokens implements llm.Provider.
func (s *modelSlot) MaxCompletionTokens() int {
	if p := s.bound(); p != nil {
		return p.MaxCompletionTokens()
	}
	return 0
}

// WithThinking implements llm.Provider: the copy is the bound provider's.
func (s *modelSlot) WithThinking(effort string) llm.Provider {
	if p := s.bound(); p != nil {
		return p.WithThinking(effort)
	}
	return s
}

// WithMaxCompletionTokens implements llm.Provider: the copy is the bound
// provider's.
func (s *modelSlot) WithMaxCompletionTokens(n int, b llm.ContextBudget) llm.Provider {
	if p := s.bound(); p != nil {
		return p.WithMaxCompletionTokens(n, b)
	}
	return s
}

// Generate implements llm.Provider.
func (s *modelSlot) Generate(ctx context.Context, req *llm.Request) (llm.Stream, error) {
	if p := s.bound(); p != nil {
		return p.Generate(ctx, req)
	}
	return nil, errors.New("model request before the model was bound")
}
