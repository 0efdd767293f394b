package swarm

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/kimigo/kimigo/agent/history"
)

// RecordType is the "type" of a record swarm mode owns (spec 02 §6.3).
type RecordType string

// Swarm mode's record types. The agent commits them and applies them with
// Mode.Apply, live and on resume.
const (
	TypeEnter RecordType = "swarm_mode.enter"
	TypeExit  RecordType = "swarm_mode.exit"
)

// RecordTypes lists every record type swarm mode owns.
func RecordTypes() []RecordType { return []RecordType{TypeEnter, TypeExit} }

// Trigger says how swarm mode was entered (spec 04 §7.1).
type Trigger string

// The triggers.
const (
	// TriggerManual is /swarm on: it stays on until /swarm off.
	TriggerManual Trigger = "manual"
	// TriggerTask is /swarm <task>: on for the task's turn.
	TriggerTask Trigger = "task"
	// TriggerTool is an AgentSwarm call: on for the call's turn, with no
	// reminder.
	TriggerTool Trigger = "tool"
)

// valid reports a trigger this package knows.
func (t Trigger) valid() bool { return t == TriggerManual || t == TriggerTask || t == TriggerTool }

// Payload is the content of one of swarm mode's records; its JSON is the
// record's fields without "type" and "time".
type Payload interface {
	RecordType() RecordType
}

// EnterRecord is swarm_mode.enter {trigger}.
type EnterRecord struct {
	Trigger Trigger `json:"trigger"`
}

// ExitRecord is swarm_mode.exit {}.
type ExitRecord struct{}

// RecordType implementations.
func (EnterRecord) RecordType() RecordType { return TypeEnter }
func (ExitRecord) RecordType() RecordType  { return TypeExit }

// DecodeRecord reads the payload of a record of type t from data. An
// unknown type, a malformed payload or an unknown trigger is an error
// naming the type.
func DecodeRecord(t RecordType, data []byte) (Payload, error) {
	switch t {
	case TypeEnter:
		var r EnterRecord
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, fmt.Errorf("decode %s record: %w", t, err)
		}
		if !r.Trigger.valid() {
			return nil, fmt.Errorf("decode %s record: unknown trigger %q", t, r.Trigger)
		}
		return r, nil
	case TypeExit:
		var r ExitRecord
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, fmt.Errorf("decode %s record: %w", t, err)
		}
		return r, nil
	}
	return nil, fmt.Errorf("decode record: %q is not a swarm mode record", t)
}

// Host is the agent as swarm mode sees it. Every method is safe for
// concurrent use and is called with none of the Mode's locks held.
type Host interface {
	// Commit makes p durable in order and applies it through the agent,
	// which calls Mode.Apply, before it returns.
	Commit(ctx context.Context, p Payload) error
	// AppendMessage commits m to history (context.append_message).
	AppendMessage(ctx context.Context, m history.Message) error
}
