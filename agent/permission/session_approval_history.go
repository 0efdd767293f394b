package permission

import "context"

// sessionApprovalHistory approves a call that an "approve for this
// session" answer covers: the agent's own patterns first, then its
// ancestors' (spec 04 §4.3, policy 7). A Bash pattern is the literal
// command, matched against the whole command text.
type sessionApprovalHistory struct{}

func (sessionApprovalHistory) Name() string { return "session-approval-history" }

func (sessionApprovalHistory) Evaluate(_ context.Context, c *Call) (Verdict, error) {
	for _, r := range c.session {
		hit := false
		if c.IsBash() {
			hit = r.toolMatches(c.Name()) && r.argErr == nil && r.matchCommand(c.script().command)
		} else {
			hit = r.matchExecution(c.Name(), c.Exec())
		}
		if hit {
			return Verdict{Kind: Approve}, nil
		}
	}
	return Verdict{}, nil
}
