package permission

import (
	"context"
	"fmt"
	"maps"
	"time"

	"github.com/kimigo/kimigo/loop"
)

// Authorize runs the chain for one resolved tool call and turns the first
// verdict into the loop's answer (spec 04 §2.1, ERRATA 8). It is the loop's
// AuthorizeToolExecution hook: called on the turn goroutine, one call at a
// time, and it may block on the user. An error blocks the call; the loop
// words it (aborted when ctx is done).
func (m *Manager) Authorize(ctx context.Context, tc loop.ToolCtx) (loop.Authorization, error) {
	c := m.newCall(tc)
	for _, p := range m.policies {
		v, err := p.Evaluate(ctx, c)
		if err != nil {
			return loop.Authorization{}, fmt.Errorf("permission policy %s: %w", p.Name(), err)
		}
		if v.Kind == None {
			continue
		}
		m.trackDecision(c, p, v)
		return m.convert(ctx, c, p, v)
	}
	return loop.Authorization{}, nil // unreachable: the fallback always asks
}

// newCall snapshots the state the policies read.
func (m *Manager) newCall(tc loop.ToolCtx) *Call {
	if tc.Execution == nil {
		tc.Execution = &loop.Execution{}
	}
	return &Call{ToolCtx: tc, Mode: m.Mode(), AgentType: m.o.AgentType, Workspace: m.workspace(),
		m: m, rules: m.effectiveRules(), session: m.sessionRules()}
}

// convert turns a verdict into the loop's answer (spec 04 §2.1 step 4).
func (m *Manager) convert(ctx context.Context, c *Call, p Policy, v Verdict) (loop.Authorization, error) {
	switch v.Kind {
	case Approve:
		return loop.Authorization{ExecutionMetadata: v.Metadata}, nil
	case Deny:
		msg := v.Message
		if msg == "" {
			msg = policyDenyText(c)
		}
		return loop.Authorization{Block: true, Reason: msg}, nil
	case Result:
		if v.Result == nil {
			return loop.Authorization{}, fmt.Errorf("policy %s returned a result verdict without a result", p.Name())
		}
		return loop.Authorization{SyntheticResult: v.Result}, nil
	case Ask:
		return m.ask(ctx, c, p, v)
	}
	return loop.Authorization{}, fmt.Errorf("policy %s returned verdict kind %d", p.Name(), v.Kind)
}

// trackDecision sends permission_policy_decision.
func (m *Manager) trackDecision(c *Call, p Policy, v Verdict) {
	if m.o.Telemetry == nil {
		return
	}
	props := map[string]any{"policy_name": p.Name(), "tool_name": c.Name(), "permission_mode": string(c.Mode),
		"decision": v.Kind.String()}
	maps.Copy(props, v.Reason)
	m.o.Telemetry.Track(EventPolicyDecision, props)
}

// trackApproval sends permission_approval_result.
func (m *Manager) trackApproval(c *Call, p Policy, req ApprovalRequest, result string, start time.Time, cached, feedback bool) {
	if m.o.Telemetry == nil {
		return
	}
	m.o.Telemetry.Track(EventApprovalResult, map[string]any{"policy_name": p.Name(), "tool_name": c.Name(),
		"permission_mode": string(c.Mode), "result": result, "approval_surface": string(req.Display.DisplayKind()),
		"duration_ms": m.now().Sub(start).Milliseconds(), "session_cache_written": cached, "has_feedback": feedback,
		"trace_id": c.TraceID})
}
