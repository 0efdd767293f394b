package agenttest

import (
	"context"
	"sync"
	"testing"

	"github.com/kimigo/kimigo/agent/permission"
	"github.com/kimigo/kimigo/event"
)

// Approver is the user behind a permission manager's approval requests: a
// permission.Approver whose every request waits until the test answers
// the Question it receives from Next, or the turn is cancelled. Made by
// AnswerAll, it answers every request at once instead.
type Approver struct {
	pending chan *Question
	auto    *permission.ApprovalResponse

	mu        sync.Mutex
	requests  []permission.ApprovalRequest // guarded by mu
	cancelled []string                     // guarded by mu; call ids
}

// Question is one approval request waiting for the test's answer.
type Question struct {
	Request permission.ApprovalRequest
	answer  chan permission.ApprovalResponse
}

var _ permission.Approver = (*Approver)(nil)

// NewApprover returns an approver that waits for the test.
func NewApprover() *Approver { return &Approver{pending: make(chan *Question, 16)} }

// AnswerAll returns an approver that answers every request with a.
func AnswerAll(c event.Choice) *Approver {
	r := Response(c)
	return &Approver{pending: make(chan *Question, 16), auto: &r}
}

// RequestApproval implements permission.Approver.
func (a *Approver) RequestApproval(ctx context.Context, req permission.ApprovalRequest) (permission.ApprovalResponse, error) {
	a.mu.Lock()
	a.requests = append(a.requests, req)
	a.mu.Unlock()
	if a.auto != nil {
		return *a.auto, nil
	}
	q := &Question{Request: req, answer: make(chan permission.ApprovalResponse, 1)}
	a.pending <- q
	select {
	case r := <-q.answer:
		return r, nil
	case <-ctx.Done():
		a.mu.Lock()
		a.cancelled = append(a.cancelled, req.ToolCallID)
		a.mu.Unlock()
		return permission.ApprovalResponse{}, context.Cause(ctx)
	}
}

// Next waits for the next request.
func (a *Approver) Next(t testing.TB) *Question {
	t.Helper()
	select {
	case q := <-a.pending:
		return q
	case <-t.Context().Done():
		t.Fatal("no approval was requested")
		return nil
	}
}

// Requests lists every request so far, in order.
func (a *Approver) Requests() []permission.ApprovalRequest {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]permission.ApprovalRequest(nil), a.requests...)
}

// Cancelled lists the call ids whose request the turn's cancellation
// ended, in order.
func (a *Approver) Cancelled() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.cancelled...)
}

// Answer answers with one of the ordinary choices.
func (q *Question) Answer(c event.Choice) { q.answer <- Response(c) }

// Response is the permission response of choice c, which must be one of
// the event package's choices.
func Response(c event.Choice) permission.ApprovalResponse {
	r, err := permission.Response(event.ApprovalAnswer{Choice: c})
	if err != nil {
		panic(err) // a test named a choice that does not exist
	}
	return r
}

// Respond answers with r (feedback, a cancelled decision, a label).
func (q *Question) Respond(r permission.ApprovalResponse) { q.answer <- r }
