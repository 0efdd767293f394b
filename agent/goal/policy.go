package goal

import (
	"context"

	"github.com/kimigo/kimigo/agent/permission"
	"github.com/kimigo/kimigo/tools"
)

// StartReview is policy 11, goal-start-review-ask (spec 04 §6.10): outside
// auto mode the user is asked how a goal the model creates should run.
// Approved with a permission mode other than the current one, the mode is
// switched (recorded) before the tool runs; declined, the call is blocked
// and nothing changes. Every goal is asked about: the answer is never
// remembered (Verdict.OnceOnly), and the chain puts this policy above
// session approvals and allow rules.
type StartReview struct{ s *Store }

// StartReview returns the store's goal-start policy, for the GoalStart
// slot of the permission chain.
func (s *Store) StartReview() StartReview { return StartReview{s} }

// Name implements permission.Policy.
func (StartReview) Name() string { return "goal-start-review-ask" }

// Evaluate implements permission.Policy.
func (r StartReview) Evaluate(_ context.Context, c *permission.Call) (permission.Verdict, error) {
	if c.Name() != tools.NameCreateGoal || c.Mode == permission.ModeAuto {
		return permission.Verdict{}, nil
	}
	current := c.Mode
	return permission.Verdict{Kind: permission.Ask, OnceOnly: true, OnApproval: func(ctx context.Context, resp permission.ApprovalResponse) (permission.Verdict, bool, error) {
		if resp.Decision != permission.ApprovalApproved {
			return permission.Verdict{}, false, nil
		}
		mode, err := permission.ParseMode(resp.SelectedLabel)
		if err != nil || mode == current {
			return permission.Verdict{}, false, nil
		}
		h := r.s.bound()
		if h == nil {
			return permission.Verdict{}, false, nil
		}
		return permission.Verdict{}, false, h.SetPermissionMode(ctx, string(mode))
	}}, nil
}
