package permission

import "context"

// userConfiguredDeny denies a call that a deny rule matches (spec 04 §2.3,
// policy 5). For Bash, one matching command anywhere in the script is
// enough, and Write/Edit deny rules also judge its redirection targets. A
// rule whose argument cannot be matched blocks the calls it selects.
type userConfiguredDeny struct{}

func (userConfiguredDeny) Name() string { return "user-configured-deny" }

func (userConfiguredDeny) Evaluate(_ context.Context, c *Call) (Verdict, error) {
	for _, r := range c.rules {
		if !r.considered() {
			continue
		}
		if c.brokenBy(r) {
			return Verdict{Kind: Deny, Message: brokenRuleText(c.Name(), r), Reason: ruleReason(r, "broken_rule")}, nil
		}
		if r.Decision == DecisionDeny && c.matchedBy(r) {
			return Verdict{Kind: Deny, Message: ruleDenyText(c, r.Reason), Reason: ruleReason(r, c.strategy(r))}, nil
		}
	}
	return Verdict{}, nil
}
