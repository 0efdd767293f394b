package permission

import "context"

// sandboxUnavailableAsk asks about every Bash call while the sandbox the
// session promised cannot be enforced on this system (ERRATA 34): a
// command never runs unconfined in a mode that promised a sandbox, so
// headless runs deny it and say which flag runs it anyway.
type sandboxUnavailableAsk struct{}

func (sandboxUnavailableAsk) Name() string { return "sandbox-unavailable-ask" }

func (sandboxUnavailableAsk) Evaluate(_ context.Context, c *Call) (Verdict, error) {
	if !c.IsBash() || c.m.o.Unconfined == nil {
		return Verdict{}, nil
	}
	if err := c.m.o.Unconfined(); err != nil {
		return Verdict{Kind: Ask, Reason: map[string]any{"sandbox": "unavailable"}}, nil
	}
	return Verdict{}, nil
}
