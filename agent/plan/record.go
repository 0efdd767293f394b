package plan

import (
	"context"
	"encoding/json"
	"fmt"
)

// RecordType is the "type" of a record plan mode owns (spec 02 §6.3).
type RecordType string

// Plan mode's record types. The agent commits them and applies them with
// Mode.Apply, live and on resume.
const (
	TypeEnter  RecordType = "plan_mode.enter"
	TypeCancel RecordType = "plan_mode.cancel"
	TypeExit   RecordType = "plan_mode.exit"
)

// RecordTypes lists every record type plan mode owns.
func RecordTypes() []RecordType { return []RecordType{TypeEnter, TypeCancel, TypeExit} }

// Payload is the content of one of plan mode's records; its JSON is the
// record's fields without "type" and "time".
type Payload interface {
	RecordType() RecordType
}

// EnterRecord is plan_mode.enter {id}: plan mode turned on with the plan
// file named by id.
type EnterRecord struct {
	ID string `json:"id"`
}

// CancelRecord is plan_mode.cancel {id?}: the user turned plan mode off.
type CancelRecord struct {
	ID string `json:"id,omitempty"`
}

// ExitRecord is plan_mode.exit {id?}: plan mode ended with ExitPlanMode.
type ExitRecord struct {
	ID string `json:"id,omitempty"`
}

// RecordType implementations.
func (EnterRecord) RecordType() RecordType  { return TypeEnter }
func (CancelRecord) RecordType() RecordType { return TypeCancel }
func (ExitRecord) RecordType() RecordType   { return TypeExit }

// DecodeRecord reads the payload of a record of type t from data. An
// unknown type or a malformed payload is an error naming the type.
func DecodeRecord(t RecordType, data []byte) (Payload, error) {
	var (
		p   Payload
		err error
	)
	switch t {
	case TypeEnter:
		var r EnterRecord
		err = json.Unmarshal(data, &r)
		if err == nil && r.ID == "" {
			err = fmt.Errorf("missing id")
		}
		p = r
	case TypeCancel:
		var r CancelRecord
		err = json.Unmarshal(data, &r)
		p = r
	case TypeExit:
		var r ExitRecord
		err = json.Unmarshal(data, &r)
		p = r
	default:
		return nil, fmt.Errorf("decode record: %q is not a plan mode record", t)
	}
	if err != nil {
		return nil, fmt.Errorf("decode %s record: %w", t, err)
	}
	return p, nil
}

// Host is the agent as plan mode sees it. Every method is safe for
// concurrent use and is called with none of the Mode's locks held.
type Host interface {
	// Commit makes p durable in order and applies it through Mode.Apply
	// before it returns.
	Commit(ctx context.Context, p Payload) error
	// PermissionMode is the agent's permission mode (manual, yolo, auto).
	PermissionMode() string
}
