package permission

import "context"

// fallbackAsk asks about everything no policy above decided (spec 04 §2.3,
// policy 19), so nothing runs unapproved by accident.
type fallbackAsk struct{}

func (fallbackAsk) Name() string { return "fallback-ask" }

func (fallbackAsk) Evaluate(context.Context, *Call) (Verdict, error) {
	return Verdict{Kind: Ask}, nil
}
