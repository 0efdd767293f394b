package permission

import (
	"context"

	"github.com/kimigo/kimigo/workspace"
)

// userConfiguredAllow approves a call that an allow rule matches (spec 04
// §2.3, policy 9). For Bash it is shell-aware: every command the script
// runs must match some allow rule, the script must be readable without
// running it, and every file its redirections write must be known, inside
// the workspace and neither sensitive nor git control.
type userConfiguredAllow struct{}

func (userConfiguredAllow) Name() string { return "user-configured-allow" }

func (userConfiguredAllow) Evaluate(_ context.Context, c *Call) (Verdict, error) {
	if c.IsBash() {
		return c.allowBash(), nil
	}
	for _, r := range c.rules {
		if r.considered() && r.Decision == DecisionAllow && r.matchExecution(c.Name(), c.Exec()) {
			return Verdict{Kind: Approve, Reason: ruleReason(r, c.strategy(r))}, nil
		}
	}
	return Verdict{}, nil
}

func (c *Call) allowBash() Verdict {
	var allows []*compiledRule
	for _, r := range c.rules {
		if r.considered() && r.Decision == DecisionAllow && r.forBash {
			allows = append(allows, r)
		}
	}
	if len(allows) == 0 {
		return Verdict{}
	}
	s := c.script()
	if !s.allowedByRules(allows) || !c.redirectsSafe() {
		return Verdict{}
	}
	return Verdict{Kind: Approve, Reason: map[string]any{"match_strategy": "shell_aware", "commands": len(s.units)}}
}

// redirectsSafe reports whether every file the Bash script writes through
// a redirection is known and needs no question of its own.
func (c *Call) redirectsSafe() bool {
	s := c.script()
	if s.unknownWrites {
		return false
	}
	for _, w := range s.writes {
		if !c.Workspace.Contains(w.path) || workspace.IsSensitive(w.path) || c.m.inGitControl(c, w.path) {
			return false
		}
	}
	return true
}
