package permission_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/kimigo/kimigo/agent/permission"
	"github.com/kimigo/kimigo/loop"
)

// Stand-ins for the mode policies plan, goal and swarm will put into the
// slots. They follow spec 04 §2.4.2, §2.4.3, §5.6 and §6.10 closely enough
// to prove where each slot sits in the chain and that permission carries
// their verdicts (result, ask with a resolution, mode switch) through.

const planPath = "/home/u/.kimigo/agents/main/plans/p.md"

// planReviewDisplay and goalStartDisplay stand in for the displays plan
// and goal mode will define for ExitPlanMode and CreateGoal.
type planReviewDisplay struct {
	Plan    string   `json:"plan"`
	Path    string   `json:"path,omitempty"`
	Options []string `json:"options,omitempty"`
}

type goalStartDisplay struct {
	Objective string `json:"objective"`
	Mode      string `json:"mode"`
}

func (*planReviewDisplay) DisplayKind() loop.DisplayKind { return "plan_review" }
func (*goalStartDisplay) DisplayKind() loop.DisplayKind  { return "goal_start" }

type planState struct {
	active  bool
	path    string
	content string
	exited  bool
}

func isWriteTool(c *permission.Call) bool { return c.Name() == "Write" || c.Name() == "Edit" }

func writesOnly(c *permission.Call, p string) bool {
	n := 0
	for _, a := range c.Exec().Accesses {
		if a.Operation == loop.OpWrite || a.Operation == loop.OpReadWrite {
			if a.Path != p {
				return false
			}
			n++
		}
	}
	return n > 0
}

func planGuard(ps *planState) permission.Policy {
	return policyFunc{"plan-guard", func(c *permission.Call) permission.Verdict {
		switch {
		case !ps.active:
		case isWriteTool(c) && (ps.path == "" || !writesOnly(c, ps.path)):
			p := ps.path
			if p == "" {
				p = "(no plan file selected yet)"
			}
			return permission.Verdict{Kind: permission.Deny, Message: fmt.Sprintf("Plan mode is active: only the plan file %s may be written. Call ExitPlanMode first.", p)}
		case c.Name() == "TaskStop", c.Name() == "CronCreate", c.Name() == "CronDelete":
			return permission.Verdict{Kind: permission.Deny, Message: c.Name() + " is not available in plan mode. Call ExitPlanMode first."}
		}
		return permission.Verdict{}
	}}
}

func planReview(ps *planState) permission.Policy {
	return policyFunc{"plan-review", func(c *permission.Call) permission.Verdict {
		d, ok := c.Exec().Display.(*planReviewDisplay)
		if c.Name() != "ExitPlanMode" || c.Mode == permission.ModeAuto || !ps.active || !ok || strings.TrimSpace(ps.content) == "" {
			return permission.Verdict{}
		}
		return permission.Verdict{Kind: permission.Ask, OnApproval: func(_ context.Context, r permission.ApprovalResponse) (permission.Verdict, bool, error) {
			switch {
			case r.Decision == permission.ApprovalApproved:
				ps.active, ps.exited = false, true
				out := "Exited plan mode.\n"
				for _, o := range d.Options {
					if o == r.SelectedLabel {
						out += "Selected approach: " + r.SelectedLabel + "\n"
					}
				}
				res := loop.TextResult(out + "## Approved Plan:\n" + ps.content)
				return permission.Verdict{Kind: permission.Result, Result: &res}, true, nil
			case r.Decision == permission.ApprovalCancelled:
				res := loop.TextResult("Plan approval dismissed; plan mode remains active.")
				return permission.Verdict{Kind: permission.Result, Result: &res}, true, nil
			case r.SelectedLabel == "Reject and Exit":
				ps.active = false
				res := loop.ErrorResult("Plan rejected; plan mode deactivated.")
				res.StopTurn = true
				return permission.Verdict{Kind: permission.Result, Result: &res}, true, nil
			case r.SelectedLabel == "Revise" || r.Feedback != "":
				res := loop.TextResult("User rejected the plan. Feedback:\n\n" + r.Feedback)
				return permission.Verdict{Kind: permission.Result, Result: &res}, true, nil
			}
			res := loop.ErrorResult("Plan rejected by user; plan mode remains active.")
			res.StopTurn = true
			return permission.Verdict{Kind: permission.Result, Result: &res}, true, nil
		}}
	}}
}

func planToolApprove(ps *planState) permission.Policy {
	return policyFunc{"plan-tool-approve", func(c *permission.Call) permission.Verdict {
		_, review := c.Exec().Display.(*planReviewDisplay)
		switch {
		case c.Name() == "EnterPlanMode",
			isWriteTool(c) && ps.active && ps.path != "" && writesOnly(c, ps.path),
			c.Name() == "ExitPlanMode" && (!ps.active || !review || strings.TrimSpace(ps.content) == ""):
			return permission.Verdict{Kind: permission.Approve}
		}
		return permission.Verdict{}
	}}
}

func goalStart(m **permission.Manager) permission.Policy {
	return policyFunc{"goal-start", func(c *permission.Call) permission.Verdict {
		if _, ok := c.Exec().Display.(*goalStartDisplay); c.Name() != "CreateGoal" || c.Mode == permission.ModeAuto || !ok {
			return permission.Verdict{}
		}
		return permission.Verdict{Kind: permission.Ask, OnApproval: func(ctx context.Context, r permission.ApprovalResponse) (permission.Verdict, bool, error) {
			if mode, err := permission.ParseMode(r.SelectedLabel); err == nil && r.Decision == permission.ApprovalApproved && mode != c.Mode {
				if err := (*m).SetMode(ctx, mode); err != nil {
					return permission.Verdict{}, false, err
				}
			}
			return permission.Verdict{}, false, nil
		}}
	}}
}

func swarmExclusive() permission.Policy {
	return policyFunc{"swarm-exclusive", func(c *permission.Call) permission.Verdict {
		n := 0
		for _, tc := range c.ToolCalls {
			if tc.Name == "AgentSwarm" {
				n++
			}
		}
		t := len(c.ToolCalls)
		switch {
		case n == 0 || n == 1 && t == 1:
			return permission.Verdict{}
		case n > 1:
			msg := "Swarms run one at a time: issue AgentSwarm calls sequentially, or merge them into one swarm."
			if t > n {
				msg += " AgentSwarm must not be combined with other tools in the same response."
			}
			return permission.Verdict{Kind: permission.Deny, Message: msg}
		}
		return permission.Verdict{Kind: permission.Deny, Message: "AgentSwarm must be the only tool call of the response; retry it alone."}
	}}
}

func swarmApprove(active *bool) permission.Policy {
	return policyFunc{"swarm-approve", func(c *permission.Call) permission.Verdict {
		if c.Name() == "AgentSwarm" && *active {
			return permission.Verdict{Kind: permission.Approve}
		}
		return permission.Verdict{}
	}}
}

type policyFunc struct {
	name string
	fn   func(c *permission.Call) permission.Verdict
}

func (p policyFunc) Name() string { return p.name }

func (p policyFunc) Evaluate(_ context.Context, c *permission.Call) (permission.Verdict, error) {
	return p.fn(c), nil
}
