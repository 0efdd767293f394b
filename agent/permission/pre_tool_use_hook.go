package permission

import "context"

// preToolUseHook runs the user's PreToolUse hooks and denies when one
// blocks (spec 04 §2.4.1). A hook can only block, never approve.
type preToolUseHook struct{}

func (preToolUseHook) Name() string { return "pre-tool-call-hook" }

func (preToolUseHook) Evaluate(ctx context.Context, c *Call) (Verdict, error) {
	h := c.m.o.Hooks
	if h == nil {
		return Verdict{}, nil
	}
	results, err := h.Block(ctx, HookPreToolUse, c.Name(), map[string]any{
		"toolName":   c.Name(),
		"toolInput":  c.argsObject(),
		"toolCallId": c.ToolCall.ID,
	})
	if ctx.Err() != nil {
		return Verdict{}, context.Cause(ctx)
	}
	if err != nil {
		return Verdict{}, err
	}
	for _, r := range results {
		if r.Block {
			msg := r.Reason
			if msg == "" {
				msg = preToolUseBlockedText
			}
			return Verdict{Kind: Deny, Message: msg}, nil
		}
	}
	return Verdict{}, nil
}
