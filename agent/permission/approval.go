package permission

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"time"

	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/loop"
)

// ApprovalDecision is the user's answer to an approval request. It is
// persisted in permission.record_approval_result.
type ApprovalDecision string

// Approval decisions.
const (
	ApprovalApproved  ApprovalDecision = "approved"
	ApprovalRejected  ApprovalDecision = "rejected"
	ApprovalCancelled ApprovalDecision = "cancelled"
)

// ApprovalScope is how far an approval reaches. It is persisted.
type ApprovalScope string

// Approval scopes. The empty scope approves this call once.
const (
	ApprovalOnce ApprovalScope = ""
	// ApprovalSession also approves the same call for the rest of the
	// session.
	ApprovalSession ApprovalScope = "session"
	// ApprovalAlways does what ApprovalSession does and also writes allow
	// rules to the user's config.toml (ERRATA 10).
	ApprovalAlways ApprovalScope = "always"
)

func (s ApprovalScope) remembered() bool { return s == ApprovalSession || s == ApprovalAlways }

// ApprovalResponse is the answer to an ApprovalRequest (spec 04 §4.2).
type ApprovalResponse struct {
	Decision      ApprovalDecision `json:"decision"`
	Scope         ApprovalScope    `json:"scope,omitempty"`
	Feedback      string           `json:"feedback,omitempty"`
	SelectedLabel string           `json:"selectedLabel,omitempty"`
}

// Response is the ApprovalResponse a front end's answer stands for
// (ERRATA 10): approve once, for the session, always (which also writes an
// allow rule), reject with optional feedback, or dismiss (cancelled). An
// answer with a choice it does not know is an error naming the choice.
func Response(a event.ApprovalAnswer) (ApprovalResponse, error) {
	r := ApprovalResponse{Feedback: a.Feedback, SelectedLabel: a.SelectedLabel}
	switch a.Choice {
	case event.ApproveOnce:
		r.Decision = ApprovalApproved
	case event.ApproveSession:
		r.Decision, r.Scope = ApprovalApproved, ApprovalSession
	case event.ApproveAlways:
		r.Decision, r.Scope = ApprovalApproved, ApprovalAlways
	case event.Reject:
		r.Decision = ApprovalRejected
	case event.Dismiss:
		r.Decision = ApprovalCancelled
	default:
		return ApprovalResponse{}, fmt.Errorf("approval answer: unknown choice %q (want %s, %s, %s, %s or %s)", a.Choice,
			event.ApproveOnce, event.ApproveSession, event.ApproveAlways, event.Reject, event.Dismiss)
	}
	return r, nil
}

// ApprovalRequest is what the user is asked (spec 04 §4.1 step 4). The
// arguments are not sent: the front end renders Display.
type ApprovalRequest struct {
	TurnID     int          `json:"turnId"`
	ToolCallID string       `json:"toolCallId"`
	ToolName   string       `json:"toolName"`
	Action     string       `json:"action"`
	Display    loop.Display `json:"display"`
	// OnceOnly: the answer is never remembered (Verdict.OnceOnly), so the
	// front end offers no session or always choice.
	OnceOnly bool `json:"onceOnly,omitempty"`
}

// Approver puts approval requests to the user (the TUI, ACP, print mode).
type Approver interface {
	// RequestApproval shows req and waits for the answer. It must return
	// soon after ctx is done (the turn was cancelled); the request then
	// counts as cancelled, whatever it returns. It is called from the
	// turn goroutine, never with more than one request of a Manager open.
	RequestApproval(ctx context.Context, req ApprovalRequest) (ApprovalResponse, error)
}

// RuleWriter persists "always" answers: the config layer implements it.
type RuleWriter interface {
	// AddUserAllowRule adds [[permission.rules]] with decision "allow",
	// scope "user" and this pattern to the user's config.toml, writing
	// the file atomically. Safe for concurrent use.
	AddUserAllowRule(pattern string) error
}

// ErrApprovalCancelled is wrapped by the error of an approval request the
// turn's cancellation ended.
var ErrApprovalCancelled = errors.New("the approval request was cancelled")

// recordTimeout bounds the commit of an answer that must outlive a
// cancelled turn.
const recordTimeout = 5 * time.Second

// ask runs the approval flow for an ask verdict of p (spec 04 §4.1).
func (m *Manager) ask(ctx context.Context, c *Call, p Policy, v Verdict) (loop.Authorization, error) {
	req := approvalRequest(c)
	req.OnceOnly = v.OnceOnly
	if m.o.Approver == nil {
		// Nobody can answer: the safe default denies, and says what would
		// allow the call. No hook fires and nothing is recorded: no
		// request was made.
		m.trackApproval(c, p, req, "unanswerable", m.now(), false, false)
		return loop.Authorization{Block: true, Reason: unanswerableText(c, p)}, nil
	}
	start := m.now()
	resp, err := m.answer(ctx, c, req)
	if err != nil {
		m.trackApproval(c, p, req, "error", start, false, false)
		return loop.Authorization{}, err
	}
	rec := ApprovalResultRecord{TurnID: req.TurnID, ToolCallID: req.ToolCallID, ToolName: req.ToolName, Action: req.Action, Result: resp}
	if resp.Decision == ApprovalApproved && resp.Scope.remembered() {
		rec.SessionApprovalRule = c.Exec().ApprovalRule
		if rec.SessionApprovalRule == "" {
			rec.SessionApprovalRule = c.Name()
		}
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	err = m.commit(wctx, rec) // the answer stands even if the turn is cancelled now
	cancel()
	if err != nil {
		return loop.Authorization{}, err
	}
	if resp.Decision == ApprovalApproved && resp.Scope == ApprovalAlways {
		m.persistAlways(c)
	}
	m.trackApproval(c, p, req, approvalResultLabel(resp), start, rec.SessionApprovalRule != "", resp.Feedback != "")
	if v.OnApproval != nil {
		final, ok, err := v.OnApproval(ctx, resp)
		if err != nil {
			return loop.Authorization{}, err
		}
		if ok {
			if final.Kind == Ask || final.Kind == None {
				return loop.Authorization{}, fmt.Errorf("policy %s resolved an approval to %s", p.Name(), final.Kind)
			}
			return m.convert(ctx, c, p, final)
		}
	}
	switch resp.Decision {
	case ApprovalApproved:
		return loop.Authorization{}, nil
	case ApprovalCancelled:
		return loop.Authorization{Block: true, Reason: cancelledText(c, resp.Feedback)}, nil
	}
	return loop.Authorization{Block: true, Reason: rejectedText(c, resp.Feedback)}, nil
}

// approvalRequest is what the user is shown: the execution's display and
// description, or a generic summary of the arguments.
func approvalRequest(c *Call) ApprovalRequest {
	exec := c.Exec()
	req := ApprovalRequest{TurnID: turnNumber(c.TurnID), ToolCallID: c.ToolCall.ID, ToolName: c.Name(),
		Action: exec.Description, Display: exec.Display}
	if req.Action == "" {
		req.Action = "Call " + c.Name()
	}
	if req.Display == nil {
		summary := exec.Description
		if summary == "" {
			summary = "Approve " + c.Name()
		}
		req.Display = &loop.GenericDisplay{Summary: summary, Detail: c.argsObject()}
	}
	return req
}

// answer gets the user's answer with the observer hooks around it.
func (m *Manager) answer(ctx context.Context, c *Call, req ApprovalRequest) (ApprovalResponse, error) {
	input := func(extra map[string]any) map[string]any {
		in := map[string]any{"turnId": req.TurnID, "toolCallId": req.ToolCallID, "toolName": req.ToolName, "action": req.Action}
		maps.Copy(in, extra)
		return in
	}
	m.fire(HookPermissionRequest, req.ToolName, input(map[string]any{"toolInput": c.argsObject(), "display": req.Display}))
	resp, err := m.request(ctx, c, req)
	if err != nil {
		m.fire(HookPermissionResult, req.ToolName, input(map[string]any{"decision": "error", "error": err.Error()}))
		return ApprovalResponse{}, err
	}
	if req.OnceOnly && resp.Scope != ApprovalOnce {
		// A client that offers the remembered choices anyway gets them
		// taken as once: this answer must not decide the next review,
		// and the hooks hear the scope that applies.
		m.logger.Info("remembered approval taken as once", "tool", c.Name(), "call_id", c.ToolCall.ID, "scope", string(resp.Scope))
		resp.Scope = ApprovalOnce
	}
	m.fire(HookPermissionResult, req.ToolName, input(map[string]any{"decision": string(resp.Decision),
		"scope": string(resp.Scope), "feedback": resp.Feedback, "selectedLabel": resp.SelectedLabel}))
	return resp, nil
}

// request sends req, holding the agent's single approval slot. A cancelled
// turn cancels the request.
func (m *Manager) request(ctx context.Context, c *Call, req ApprovalRequest) (ApprovalResponse, error) {
	select {
	case m.approvalSlot <- struct{}{}:
	case <-ctx.Done():
		return ApprovalResponse{}, cancelErr(ctx, c)
	}
	defer func() { <-m.approvalSlot }()
	resp, err := m.o.Approver.RequestApproval(ctx, req)
	if ctx.Err() != nil {
		return ApprovalResponse{}, cancelErr(ctx, c)
	}
	if err != nil {
		return ApprovalResponse{}, fmt.Errorf("approval request: %w", err)
	}
	switch resp.Decision {
	case ApprovalApproved, ApprovalRejected, ApprovalCancelled:
	default:
		return ApprovalResponse{}, fmt.Errorf("approval request: unknown decision %q", resp.Decision)
	}
	switch resp.Scope {
	case ApprovalOnce, ApprovalSession, ApprovalAlways:
	default:
		return ApprovalResponse{}, fmt.Errorf("approval request: unknown scope %q", resp.Scope)
	}
	return resp, nil
}

func cancelErr(ctx context.Context, c *Call) error {
	return fmt.Errorf("%s: %w: %w", cancelledText(c, ""), ErrApprovalCancelled, context.Cause(ctx))
}

// persistAlways writes the allow rules an "always" answer stands for. For
// Bash that is one literal rule per command the script must match; a
// script allow rules can never approve gets none and stays approved for
// this session only. Failures are logged: the call was approved anyway.
func (m *Manager) persistAlways(c *Call) {
	var rules []string
	switch {
	case c.IsBash():
		rules = c.script().alwaysRules()
	case c.Exec().ApprovalRule != "":
		rules = []string{c.Exec().ApprovalRule}
	default:
		rules = []string{c.Name()}
	}
	if len(rules) == 0 || m.o.RuleWriter == nil {
		m.logger.Info("always-approval kept for this session only", "tool", c.Name(), "call_id", c.ToolCall.ID,
			"rules", len(rules), "writer", m.o.RuleWriter != nil)
		return
	}
	for _, r := range rules {
		if err := m.o.RuleWriter.AddUserAllowRule(r); err != nil {
			m.logger.Warn("persist allow rule", "tool", c.Name(), "call_id", c.ToolCall.ID, "error", err)
		}
	}
}

func approvalResultLabel(r ApprovalResponse) string {
	switch {
	case r.Decision == ApprovalApproved && r.Scope == ApprovalSession:
		return "approved_for_session"
	case r.Decision == ApprovalApproved && r.Scope == ApprovalAlways:
		return "approved_always"
	}
	return string(r.Decision)
}

// turnNumber is the turn id as the number UIs and records carry.
func turnNumber(id string) int {
	n, err := strconv.Atoi(id)
	if err != nil {
		return 0
	}
	return n
}
