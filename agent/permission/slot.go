package permission

import "context"

// slot is a named place in the chain for a policy provided from outside;
// empty, it has no opinion. Its name stays the slot's, so telemetry and the
// pinned order do not depend on who fills it.
type slot struct {
	name string
	p    Policy
}

func (s slot) Name() string { return s.name }

func (s slot) Evaluate(ctx context.Context, c *Call) (Verdict, error) {
	if s.p == nil {
		return Verdict{}, nil
	}
	return s.p.Evaluate(ctx, c)
}
