package agenttest

import (
	"context"
	"sync"
	"testing"

	"github.com/kimigo/kimigo/agent/turn"
	"github.com/kimigo/kimigo/loop"
)

// Approvals is a scripted permission gate that asks the test: every call
// waits in Authorize until the test answers the Approval it receives from
// Next, or the turn is cancelled. It holds a call at authorization for
// tests of the turn itself; tests of permissions use the real manager
// (Permission, Approver).
type Approvals struct {
	pending chan *Approval
	mu      sync.Mutex
	asked   []string // guarded by mu; call ids, in order
}

// Approval is one pending question.
type Approval struct {
	Call   loop.ToolCtx
	answer chan loop.Authorization
}

var _ turn.PermissionGate = (*Approvals)(nil)

// NewApprovals returns a gate with no pending question.
func NewApprovals() *Approvals { return &Approvals{pending: make(chan *Approval, 16)} }

// Authorize implements turn.PermissionGate.
func (a *Approvals) Authorize(ctx context.Context, call loop.ToolCtx) (loop.Authorization, error) {
	ap := &Approval{Call: call, answer: make(chan loop.Authorization, 1)}
	a.mu.Lock()
	a.asked = append(a.asked, call.ToolCall.ID)
	a.mu.Unlock()
	a.pending <- ap
	select {
	case v := <-ap.answer:
		return v, nil
	case <-ctx.Done():
		return loop.Authorization{}, context.Cause(ctx)
	}
}

// Next waits for the next question.
func (a *Approvals) Next(t testing.TB) *Approval {
	t.Helper()
	select {
	case ap := <-a.pending:
		return ap
	case <-t.Context().Done():
		t.Fatal("no approval was requested")
		return nil
	}
}

// Asked lists the call ids the gate was asked about, in order.
func (a *Approvals) Asked() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.asked...)
}

// Approve lets the call run.
func (ap *Approval) Approve() { ap.answer <- loop.Authorization{} }

// Reject blocks the call with reason.
func (ap *Approval) Reject(reason string) {
	ap.answer <- loop.Authorization{Block: true, Reason: reason}
}
