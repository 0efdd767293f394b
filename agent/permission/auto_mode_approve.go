package permission

import "context"

// autoModeApprove approves everything in auto mode that the deny policies
// above let through (spec 04 §2.3, policy 6).
type autoModeApprove struct{}

func (autoModeApprove) Name() string { return "auto-mode-approve" }

func (autoModeApprove) Evaluate(_ context.Context, c *Call) (Verdict, error) {
	if c.Mode != ModeAuto {
		return Verdict{}, nil
	}
	return Verdict{Kind: Approve}, nil
}
