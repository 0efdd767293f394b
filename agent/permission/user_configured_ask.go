package permission

import "context"

// userConfiguredAsk asks about a call that an ask rule matches (spec 04
// §2.3, policy 8); for Bash, like the deny rules, one command or one
// redirection target is enough.
type userConfiguredAsk struct{}

func (userConfiguredAsk) Name() string { return "user-configured-ask" }

func (userConfiguredAsk) Evaluate(_ context.Context, c *Call) (Verdict, error) {
	for _, r := range c.rules {
		if r.considered() && r.Decision == DecisionAsk && c.matchedBy(r) {
			return Verdict{Kind: Ask, Reason: ruleReason(r, c.strategy(r))}, nil
		}
	}
	return Verdict{}, nil
}
