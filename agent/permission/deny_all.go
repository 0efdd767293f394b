package permission

import "context"

// denyAll denies every call of a side-question agent, before hooks run
// (spec 04 §2.9).
type denyAll struct{}

func (denyAll) Name() string { return "deny-all" }

func (denyAll) Evaluate(context.Context, *Call) (Verdict, error) {
	return Verdict{Kind: Deny, Message: sideQuestionText, Reason: map[string]any{"source": "side_question"}}, nil
}
