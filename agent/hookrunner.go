package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/kimigo/kimigo/agent/turn"
	"github.com/kimigo/kimigo/hooks"
)

// HookRunner adapts a session's hook engine to the turn's HookRunner
// (ERRATA 15), so the turn, the permission chain, compaction and
// background notifications trigger the user's hooks through one engine.
// A nil engine gives a nil runner: no hooks.
func HookRunner(e *hooks.Engine) turn.HookRunner {
	if e == nil {
		return nil
	}
	return hookRunner{e}
}

type hookRunner struct{ e *hooks.Engine }

// Block implements turn.HookRunner: it runs the matching hooks and waits.
// A blocking result without a reason gets "Blocked by <Event> hook";
// messages and output are trimmed.
func (r hookRunner) Block(ctx context.Context, event turn.HookEvent, matcher string, input map[string]any) ([]turn.HookResult, error) {
	results := r.e.Trigger(ctx, hooks.Event(event), matcher, input)
	out := make([]turn.HookResult, len(results))
	for i, res := range results {
		hr := turn.HookResult{Block: res.Action == hooks.Block, Reason: strings.TrimSpace(res.Reason),
			Message: strings.TrimSpace(res.Message), Stdout: strings.TrimSpace(res.Stdout), TimedOut: res.TimedOut,
			ExitCode: res.ExitCode}
		if hr.Block && hr.Reason == "" {
			hr.Reason = fmt.Sprintf("Blocked by %s hook", event)
		}
		out[i] = hr
	}
	return out, nil
}

// Fire implements turn.HookRunner: the hooks start and nobody waits.
func (r hookRunner) Fire(event turn.HookEvent, matcher string, input map[string]any) {
	r.e.FireAndForget(hooks.Event(event), matcher, input)
}
