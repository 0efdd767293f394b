package permission

import (
	"context"
	"encoding/json"
	"fmt"
)

// RecordType is the "type" of a record permission owns (spec 02 §6.3).
type RecordType string

// Permission's record types. The agent commits them and applies them with
// Manager.Apply, live and on resume.
const (
	TypeSetMode        RecordType = "permission.set_mode"
	TypeApprovalResult RecordType = "permission.record_approval_result"
)

// RecordTypes lists every record type permission owns, for the agent's
// exhaustive apply test.
func RecordTypes() []RecordType { return []RecordType{TypeSetMode, TypeApprovalResult} }

// Payload is the type-specific content of one of permission's records. Its
// JSON is the record's fields without "type" and "time".
type Payload interface {
	RecordType() RecordType
}

// SetModeRecord is permission.set_mode {mode}.
type SetModeRecord struct {
	Mode Mode `json:"mode"`
}

// ApprovalResultRecord is permission.record_approval_result: the answer to
// one approval request, written for approvals and rejections alike.
// SessionApprovalRule is set when the answer approved the call for the
// session (or always); applying the record remembers it.
type ApprovalResultRecord struct {
	TurnID              int              `json:"turnId"`
	ToolCallID          string           `json:"toolCallId"`
	ToolName            string           `json:"toolName"`
	Action              string           `json:"action"`
	SessionApprovalRule string           `json:"sessionApprovalRule,omitempty"`
	Result              ApprovalResponse `json:"result"`
}

// RecordType implementations.
func (SetModeRecord) RecordType() RecordType        { return TypeSetMode }
func (ApprovalResultRecord) RecordType() RecordType { return TypeApprovalResult }

// DecodeRecord reads the payload of a record of type t from data, the
// record's JSON object ("type" and "time" are ignored). An unknown type or
// a malformed payload is an error naming the type.
func DecodeRecord(t RecordType, data []byte) (Payload, error) {
	var (
		p   Payload
		err error
	)
	switch t {
	case TypeSetMode:
		var r SetModeRecord
		err = json.Unmarshal(data, &r)
		p = r
	case TypeApprovalResult:
		var r ApprovalResultRecord
		err = json.Unmarshal(data, &r)
		p = r
	default:
		return nil, fmt.Errorf("decode record: %q is not a permission record", t)
	}
	if err != nil {
		return nil, fmt.Errorf("decode %s record: %w", t, err)
	}
	return p, nil
}

// Recorder is the agent's commit path for permission's records. Commit
// makes p durable in order and applies it through Manager.Apply before it
// returns. It is called from the turn goroutine (approval results) and
// from whoever changes the mode, never with the Manager's lock held.
type Recorder interface {
	Commit(ctx context.Context, p Payload) error
}

// Apply applies one of permission's records, live right after the commit
// and on resume. It never appends, emits or does I/O. Errors are corrupt
// records.
func (m *Manager) Apply(p Payload) error {
	switch r := p.(type) {
	case *SetModeRecord:
		return m.Apply(*r)
	case *ApprovalResultRecord:
		return m.Apply(*r)
	case SetModeRecord:
		if _, err := ParseMode(string(r.Mode)); err != nil {
			return fmt.Errorf("apply %s: %w", TypeSetMode, err)
		}
		m.mu.Lock()
		m.mode = r.Mode
		m.mu.Unlock()
		return nil
	case ApprovalResultRecord:
		if r.Result.Decision == ApprovalApproved && r.Result.Scope.remembered() && r.SessionApprovalRule != "" {
			m.addSessionPattern(r.SessionApprovalRule)
		}
		return nil
	}
	return fmt.Errorf("apply permission record: unsupported payload %T", p)
}

// commit hands p to the Recorder, or applies it directly when there is none
// (an agent without persistence).
func (m *Manager) commit(ctx context.Context, p Payload) error {
	if m.o.Recorder == nil {
		return m.Apply(p)
	}
	if err := m.o.Recorder.Commit(ctx, p); err != nil {
		return fmt.Errorf("commit %s: %w", p.RecordType(), err)
	}
	return nil
}
