package turn

import (
	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/llm"
)

// The records TurnFlow writes (spec 02 §6.3, spec 03 §1.13). Their apply
// only raises the turn counter: a turn's messages are their own
// context.append_message records.
const (
	TypePrompt records.Type = "turn.prompt"
	TypeSteer  records.Type = "turn.steer"
	TypeCancel records.Type = "turn.cancel"
	// TypeLaunch records the turn that input buffered during a compaction
	// launched when the compaction ended: its turn.prompt was written
	// without a turn id, and a turn blocked or failed before its first
	// step leaves no loop event to count it by.
	TypeLaunch records.Type = "turn.launch"
)

// RecordTypes lists the record types TurnFlow writes, for the agent's
// exhaustive apply test.
func RecordTypes() []records.Type {
	return []records.Type{TypePrompt, TypeSteer, TypeCancel, TypeLaunch}
}

// InputRecord is the payload of turn.prompt and turn.steer.
//
// TurnID is a kimigo addition: the id of the turn the input launched, absent
// when it was buffered or refused. Replaying it restores the turn counter
// even for turns that failed or were blocked before their first step, which
// leave no loop event behind. Logs without it fall back to the loop events'
// turn ids.
type InputRecord struct {
	Input  []llm.ContentPart `json:"input"`
	Origin *history.Origin   `json:"origin,omitempty"`
	TurnID *int              `json:"turnId,omitempty"`
}

// LaunchRecord is the payload of turn.launch: the id of the launched turn.
type LaunchRecord struct {
	TurnID int `json:"turnId"`
}

// CancelRecord is the payload of turn.cancel; TurnID is the id the caller
// asked to cancel, absent for "whatever runs".
type CancelRecord struct {
	TurnID *int `json:"turnId,omitempty"`
}

// LaunchedTurn returns the turn id a turn.prompt or turn.steer record
// launched, if any. It is what applying the record does to the counter.
func (r InputRecord) LaunchedTurn() (int, bool) {
	if r.TurnID == nil {
		return 0, false
	}
	return *r.TurnID, true
}
