package session

import (
	"context"
	"time"

	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/hooks"
	"github.com/kimigo/kimigo/osenv"
)

// newHooks builds the session's hook engine from config.toml's [[hooks]]
// (spec 06 §6.1); nil when none is configured. config.toml is the user's,
// so its hooks run anywhere; project hooks (none are read yet) would run
// only in a trusted workspace.
func newHooks(cfg *config.Config, env osenv.Env, s *Session) *hooks.Engine {
	if len(cfg.Hooks) == 0 {
		return nil
	}
	hs := make([]hooks.Hook, 0, len(cfg.Hooks))
	for _, h := range cfg.Hooks {
		hs = append(hs, hooks.Hook{Event: hooks.Event(h.Event), Matcher: h.Matcher, Command: h.Command,
			Timeout: time.Duration(h.Timeout) * time.Second, Source: hooks.SourceUser})
	}
	return hooks.New(hooks.Options{Hooks: hs, SessionID: s.id, Cwd: s.workDir, Trusted: Trusted(s.store.fs, s.store.root, s.workDir),
		Env: env, Logger: s.logger.With("component", "hooks")})
}

// sessionStart runs the SessionStart hooks once the main agent is built
// (startup) or restored (resume), and waits for them; a failing hook
// never stops the open (spec 06 §6.4).
func (s *Session) sessionStart(ctx context.Context) {
	if s.hooks == nil {
		return
	}
	source := "startup"
	if s.resumed {
		source = "resume"
	}
	s.hooks.Trigger(ctx, hooks.SessionStart, source, map[string]any{"source": source})
}

// sessionEnd runs the SessionEnd hooks after the agent closed (its tasks
// stopped, its records flushed) and before MCP shuts down, waits for
// them within ctx, then closes the engine.
func (s *Session) sessionEnd(ctx context.Context) error {
	if s.hooks == nil {
		return nil
	}
	s.hooks.Trigger(ctx, hooks.SessionEnd, "exit", map[string]any{"reason": "exit"})
	return s.hooks.Close(ctx)
}

// Hooks lists the hooks the session may run, in definition order.
func (s *Session) Hooks() []hooks.Hook {
	if s.hooks == nil {
		return nil
	}
	return s.hooks.Hooks()
}
