package swarm

import (
	"context"

	"github.com/kimigo/kimigo/agent/permission"
	"github.com/kimigo/kimigo/tools"
)

// The two places swarm mode takes in the permission chain (spec 04 §2.3,
// ERRATA 8): exclusivity (2) and the approval of AgentSwarm while swarm
// mode is on (16).

// Denial messages of Exclusive (spec 04 §2.4.2).
const (
	msgNotAlone = "AgentSwarm must be the only tool call in its response. Call it again on its own, " +
		"and make any other calls after it returns."
	msgSeveral = "Swarms run one at a time. Several AgentSwarm calls are allowed, but one after another: " +
		"call one, wait for its result, then call the next, or merge the work into a single swarm."
	msgSeveralMixed = " AgentSwarm must not be combined with other tools in the same response either."
)

// Slots fills the swarm slots of s with m's policies.
func (m *Mode) Slots(s *permission.Slots) {
	s.SwarmExclusive, s.SwarmApprove = Exclusive{}, Approve{m}
}

// Exclusive is policy 2, agent-swarm-exclusive-deny: a response with an
// AgentSwarm call must hold that call alone; otherwise every call of the
// response is denied, in every mode.
type Exclusive struct{}

// Name implements permission.Policy.
func (Exclusive) Name() string { return "agent-swarm-exclusive-deny" }

// Evaluate implements permission.Policy.
func (Exclusive) Evaluate(_ context.Context, c *permission.Call) (permission.Verdict, error) {
	calls := c.ToolCalls
	if len(calls) == 0 { // a call judged on its own is its whole batch
		calls = append(calls, c.ToolCall)
	}
	n := 0
	for _, tc := range calls {
		if tc.Name == tools.NameAgentSwarm {
			n++
		}
	}
	switch {
	case n == 0, n == 1 && len(calls) == 1:
		return permission.Verdict{}, nil
	case n == 1:
		return permission.Verdict{Kind: permission.Deny, Message: msgNotAlone}, nil
	}
	msg := msgSeveral
	if len(calls) > n {
		msg += msgSeveralMixed
	}
	return permission.Verdict{Kind: permission.Deny, Message: msg}, nil
}

// Approve is policy 16, swarm-mode-agent-swarm-approve: AgentSwarm runs
// without a prompt while swarm mode is on.
type Approve struct{ m *Mode }

// Name implements permission.Policy.
func (Approve) Name() string { return "swarm-mode-agent-swarm-approve" }

// Evaluate implements permission.Policy.
func (a Approve) Evaluate(_ context.Context, c *permission.Call) (permission.Verdict, error) {
	if c.Name() == tools.NameAgentSwarm && a.m.Active() {
		return permission.Verdict{Kind: permission.Approve}, nil
	}
	return permission.Verdict{}, nil
}
