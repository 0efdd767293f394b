package acp

import (
	"context"
	"errors"
	"strconv"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/session"
)

// Permission option ids (spec 06 §8.7); the order is the order offered.
const (
	optApproveOnce   = "approve_once"
	optApproveAlways = "approve_always"
	optReject        = "reject"
	optRevise        = "revise"
	optPlanOption    = "plan_opt_" // + the option's index
	optSkip          = "skip"
)

var approvalOptions = []sdk.PermissionOption{
	{OptionId: optApproveOnce, Name: "Approve once", Kind: sdk.PermissionOptionKindAllowOnce},
	{OptionId: optApproveAlways, Name: "Approve for this session", Kind: sdk.PermissionOptionKindAllowAlways},
	{OptionId: optReject, Name: "Reject", Kind: sdk.PermissionOptionKindRejectOnce},
}

// Labels of a plan review's answers (spec 04 §4.2).
const (
	labelApprove = "Approve"
	labelRevise  = "Revise"
	labelReject  = "Reject"
)

// requestOptions are the options offered for e. A request whose answer is
// never remembered (a plan review, a goal start) offers no "always": a
// plan review offers one approval per approach the plan proposes (or one
// Approve), Revise (keep planning) and Reject; a goal start offers
// approve once and reject.
func requestOptions(e event.ApprovalRequested) []sdk.PermissionOption {
	if d, ok := e.Display.(*session.PlanReviewDisplay); ok {
		var opts []sdk.PermissionOption
		for i, o := range d.Options {
			opts = append(opts, sdk.PermissionOption{OptionId: sdk.PermissionOptionId(optPlanOption + strconv.Itoa(i)),
				Name: "Approve: " + o.Label, Kind: sdk.PermissionOptionKindAllowOnce})
		}
		if len(opts) == 0 {
			opts = append(opts, sdk.PermissionOption{OptionId: optApproveOnce, Name: labelApprove, Kind: sdk.PermissionOptionKindAllowOnce})
		}
		return append(opts,
			sdk.PermissionOption{OptionId: optRevise, Name: "Revise (keep planning)", Kind: sdk.PermissionOptionKindRejectOnce},
			sdk.PermissionOption{OptionId: optReject, Name: labelReject, Kind: sdk.PermissionOptionKindRejectOnce})
	}
	if e.OnceOnly {
		return []sdk.PermissionOption{approvalOptions[0], approvalOptions[2]}
	}
	return approvalOptions
}

// approvalAnswer maps the client's choice to the session's answer. A
// cancelled request is dismissed (the call does not run); ACP's "always"
// means this session (ERRATA 10), and for a request that is never
// remembered the session takes it as once; an unknown option rejects.
func approvalAnswer(e event.ApprovalRequested, resp sdk.RequestPermissionResponse) event.ApprovalAnswer {
	o := resp.Outcome
	if o.Selected == nil {
		return event.ApprovalAnswer{Choice: event.Dismiss}
	}
	id := string(o.Selected.OptionId)
	if d, ok := e.Display.(*session.PlanReviewDisplay); ok {
		for i, opt := range d.Options {
			if id == optPlanOption+strconv.Itoa(i) {
				return event.ApprovalAnswer{Choice: event.ApproveOnce, SelectedLabel: opt.Label}
			}
		}
		switch id {
		case optApproveOnce, optApproveAlways, "approve", "approve_for_session":
			return event.ApprovalAnswer{Choice: event.ApproveOnce, SelectedLabel: labelApprove}
		case optRevise:
			return event.ApprovalAnswer{Choice: event.Reject, SelectedLabel: labelRevise}
		}
		return event.ApprovalAnswer{Choice: event.Reject, SelectedLabel: labelReject}
	}
	switch id {
	case optApproveOnce:
		return event.ApprovalAnswer{Choice: event.ApproveOnce, SelectedLabel: approvalOptions[0].Name}
	case optApproveAlways:
		return event.ApprovalAnswer{Choice: event.ApproveSession, SelectedLabel: approvalOptions[1].Name}
	case "approve":
		return event.ApprovalAnswer{Choice: event.ApproveOnce}
	case "approve_for_session":
		return event.ApprovalAnswer{Choice: event.ApproveSession}
	}
	return event.ApprovalAnswer{Choice: event.Reject, SelectedLabel: "Reject"}
}

// askApproval puts an approval request to the client and answers it. A
// transport failure or a client error rejects the call; a request the
// turn withdrew (ctx done) is not answered.
func (l *live) askApproval(ctx context.Context, e event.ApprovalRequested) {
	content := displayContent(e.Display)
	who := "Requesting"
	title := e.ToolName
	if e.AgentID != session.MainAgentID { // a subagent's call: say whose
		who, title = e.AgentID+" is requesting", e.AgentID+": "+title
	}
	content = append(content, textContent(who+" approval to "+e.Action))
	resp, err := l.srv.conn.RequestPermission(ctx, sdk.RequestPermissionRequest{SessionId: sdk.SessionId(l.id),
		ToolCall: sdk.ToolCallUpdate{ToolCallId: requestCallID(e.Header, e.ToolCallID), Title: &title, Content: content},
		Options:  requestOptions(e)})
	if ctx.Err() != nil {
		return
	}
	ans := event.ApprovalAnswer{Choice: event.Reject, Feedback: "The client could not be asked for approval."}
	if err != nil {
		l.log.Warn("acp: session/request_permission failed; rejecting", "tool", e.ToolName, "err", err)
	} else {
		ans = approvalAnswer(e, resp)
	}
	if err := l.s.AnswerApproval(e.RequestID, ans); err != nil && !errors.Is(err, session.ErrNoRequest) {
		l.log.Warn("acp: answer approval", "err", err)
	}
}

// askQuestion asks the first question of an AskUserQuestion call as a
// permission request: one option per choice and a skip. A failure or a
// skip dismisses the questions.
func (l *live) askQuestion(ctx context.Context, e event.QuestionRequested) {
	var answers map[string]string
	defer func() {
		if ctx.Err() != nil {
			return
		}
		if err := l.s.AnswerQuestion(e.RequestID, answers); err != nil && !errors.Is(err, session.ErrNoRequest) {
			l.log.Warn("acp: answer question", "err", err)
		}
	}()
	if len(e.Questions) == 0 {
		return
	}
	if len(e.Questions) > 1 {
		l.log.Info("acp: only the first question is asked", "dropped", len(e.Questions)-1)
	}
	q := e.Questions[0]
	var opts []sdk.PermissionOption
	for i, o := range q.Options {
		opts = append(opts, sdk.PermissionOption{OptionId: sdk.PermissionOptionId("q_opt_" + strconv.Itoa(i)), Name: o.Label,
			Kind: sdk.PermissionOptionKindAllowOnce})
	}
	opts = append(opts, sdk.PermissionOption{OptionId: optSkip, Name: "Skip", Kind: sdk.PermissionOptionKindRejectOnce})
	title := "AskUserQuestion"
	if e.AgentID != session.MainAgentID {
		title = e.AgentID + ": " + title
	}
	resp, err := l.srv.conn.RequestPermission(ctx, sdk.RequestPermissionRequest{SessionId: sdk.SessionId(l.id),
		ToolCall: sdk.ToolCallUpdate{ToolCallId: requestCallID(e.Header, e.ToolCallID), Title: &title,
			Content: []sdk.ToolCallContent{textContent(q.Question)}},
		Options: opts})
	if err != nil || resp.Outcome.Selected == nil {
		return
	}
	for i, o := range q.Options {
		if string(resp.Outcome.Selected.OptionId) == "q_opt_"+strconv.Itoa(i) {
			answers = map[string]string{q.Question: o.Label}
		}
	}
}

// requestCallID is the ACP tool call id of a request's call. A
// subagent's calls are not announced as tool calls and its turn numbers
// are its own, so its ids carry its agent id ("agent-0/1:call_1").
func requestCallID(h event.Header, toolCallID string) sdk.ToolCallId {
	id := callID(h.TurnID, toolCallID)
	if h.AgentID != session.MainAgentID {
		return sdk.ToolCallId(h.AgentID+"/") + id
	}
	return id
}
