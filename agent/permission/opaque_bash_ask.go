package permission

import "context"

// opaqueBashAsk asks about a Bash script the analysis cannot see through
// (it does not parse, it names a command through an expansion, runs eval
// or nests too deeply) whenever a Bash deny or ask rule exists, in every
// mode: such a rule cannot be checked against it, so it must not run
// unasked (issue 16 item 3). Without Bash deny or ask rules the modes
// decide as before.
type opaqueBashAsk struct{}

func (opaqueBashAsk) Name() string { return "opaque-bash-ask" }

func (opaqueBashAsk) Evaluate(_ context.Context, c *Call) (Verdict, error) {
	if !c.IsBash() {
		return Verdict{}, nil
	}
	guarded := false
	for _, r := range c.rules {
		if r.considered() && r.forBash && r.usable() && (r.Decision == DecisionDeny || r.Decision == DecisionAsk) {
			guarded = true
			break
		}
	}
	if !guarded {
		return Verdict{}, nil
	}
	if s := c.script(); s.parsed && len(s.opaque) == 0 {
		return Verdict{}, nil
	}
	return Verdict{Kind: Ask, Reason: map[string]any{"opaque": true}}, nil
}
