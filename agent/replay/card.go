package replay

import (
	"encoding/json"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/llm/plainjson"
)

// CardType names a card of the replay stream (spec 02 §6.12).
type CardType string

// Card types.
const (
	CardMessage           CardType = "message"
	CardCompaction        CardType = "compaction"
	CardGoalUpdated       CardType = "goal_updated"
	CardPlanUpdated       CardType = "plan_updated"
	CardConfigUpdated     CardType = "config_updated"
	CardPermissionUpdated CardType = "permission_updated"
	CardApprovalResult    CardType = "approval_result"
)

// Card is one entry of the stream a UI replays when a session is resumed.
// Only the fields of its Type are meaningful and written.
type Card struct {
	Type CardType
	// Time is the time of the record that made the card, in milliseconds.
	Time int64

	// Message is the message a message card shows, as it entered history
	// (origin, isError and note included).
	Message *history.Message
	// Instruction, Result and Cancelled describe a compaction: its custom
	// instruction, the applied result once known, or that it was
	// cancelled.
	Instruction string
	Result      *history.ApplyCompactionRecord
	Cancelled   bool
	// Enabled is plan mode's state on a plan card.
	Enabled bool
	// Mode is the permission mode on a permission card.
	Mode string
	// Fields are the record's own fields: the configuration change of a
	// config card, the approval record of an approval card, the goal
	// change of a goal card.
	Fields json.RawMessage
	// Snapshot is the goal after the change on a goal card (null when
	// there is none).
	Snapshot json.RawMessage
}

// MarshalJSON writes {"type":…,"time":…,…} with the fields of the card's
// type, without HTML escaping.
func (c Card) MarshalJSON() ([]byte, error) {
	m := []member{{"type", c.Type}, {"time", c.Time}}
	switch c.Type {
	case CardMessage:
		m = append(m, member{"message", c.Message})
	case CardCompaction:
		if c.Instruction != "" {
			m = append(m, member{"instruction", c.Instruction})
		}
		switch {
		case c.Cancelled:
			m = append(m, member{"result", "cancelled"})
		case c.Result != nil:
			m = append(m, member{"result", c.Result})
		}
	case CardPlanUpdated:
		m = append(m, member{"enabled", c.Enabled})
	case CardPermissionUpdated:
		m = append(m, member{"mode", c.Mode})
	case CardConfigUpdated:
		m = append(m, member{"config", rawOrEmpty(c.Fields)})
	case CardApprovalResult:
		m = append(m, member{"record", rawOrEmpty(c.Fields)})
	case CardGoalUpdated:
		snap := c.Snapshot
		if len(snap) == 0 {
			snap = json.RawMessage("null")
		}
		m = append(m, member{"snapshot", snap}, member{"change", rawOrEmpty(c.Fields)})
	}
	return writeObject(m)
}

type member struct {
	key string
	val any
}

func writeObject(members []member) ([]byte, error) {
	buf := []byte{'{'}
	for i, m := range members {
		if i > 0 {
			buf = append(buf, ',')
		}
		v, err := plainjson.Marshal(m.val)
		if err != nil {
			return nil, err
		}
		buf = append(append(append(buf, plainjson.Quote(m.key)...), ':'), v...)
	}
	return append(buf, '}'), nil
}

func rawOrEmpty(r json.RawMessage) json.RawMessage {
	if len(r) == 0 {
		return json.RawMessage("{}")
	}
	return r
}

// StartsUserTurn reports whether c begins a user turn: a user message whose
// origin starts one (spec 02 §6.13).
func (c Card) StartsUserTurn() bool {
	return c.Type == CardMessage && c.Message != nil && c.Message.Role == "user" &&
		history.StartsUserTurn(c.Message.Origin)
}
