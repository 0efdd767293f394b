package permission

import (
	"context"
)

// autoModeQuestionDeny denies AskUserQuestion in auto mode: nobody is
// there to answer, so the model has to decide (spec 04 §2.3, policy 3).
type autoModeQuestionDeny struct{}

func (autoModeQuestionDeny) Name() string { return "auto-mode-ask-user-question-deny" }

func (autoModeQuestionDeny) Evaluate(_ context.Context, c *Call) (Verdict, error) {
	if c.Mode != ModeAuto || c.Name() != toolAskUserQuestion {
		return Verdict{}, nil
	}
	return Verdict{Kind: Deny, Message: autoModeQuestionText}, nil
}
