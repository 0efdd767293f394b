package history

import (
	"encoding/json"
	"fmt"

	"github.com/kimigo/kimigo/loop"
)

// RecordType is the "type" of a record history owns (spec 02 §6.3).
type RecordType string

// History's record types. The agent commits them and applies them with
// Memory.Apply, live and on resume.
const (
	TypeAppendMessage    RecordType = "context.append_message"
	TypeAppendLoopEvent  RecordType = "context.append_loop_event"
	TypeUpdateTokenCount RecordType = "context.update_token_count"
	TypeClear            RecordType = "context.clear"
	TypeUndo             RecordType = "context.undo"
	TypeApplyCompaction  RecordType = "context.apply_compaction"
)

// RecordTypes lists every record type history owns, for the agent's
// exhaustive apply test.
func RecordTypes() []RecordType {
	return []RecordType{TypeAppendMessage, TypeAppendLoopEvent, TypeUpdateTokenCount,
		TypeClear, TypeUndo, TypeApplyCompaction}
}

// Payload is the type-specific content of one of history's records. Its
// JSON is the record's fields without "type" and "time", which belong to
// the envelope; the envelope writes them at the top level next to these.
type Payload interface {
	RecordType() RecordType
}

// AppendMessageRecord is context.append_message {message}.
type AppendMessageRecord struct {
	Message Message `json:"message"`
}

// AppendLoopEventRecord is context.append_loop_event {event}; the event is
// stored verbatim in the loop's recorded shape (spec 02 §6.4).
type AppendLoopEventRecord struct {
	Event loop.RecordedEvent `json:"event"`
}

// UpdateTokenCountRecord is context.update_token_count {tokenCount}.
type UpdateTokenCountRecord struct {
	TokenCount int `json:"tokenCount"`
}

// ClearRecord is context.clear, which has no fields.
type ClearRecord struct{}

// UndoRecord is context.undo {count}, the count requested.
type UndoRecord struct {
	Count int `json:"count"`
}

// ApplyCompactionRecord is context.apply_compaction (spec 02 §5 step 6).
// Live records carry every derived field; pointers are absent in records
// from older versions, and apply then falls back to the legacy rules.
type ApplyCompactionRecord struct {
	Summary                  string  `json:"summary"`
	ContextSummary           *string `json:"contextSummary,omitempty"`
	CompactedCount           int     `json:"compactedCount"`
	TokensBefore             int     `json:"tokensBefore"`
	TokensAfter              *int    `json:"tokensAfter,omitempty"`
	KeptUserMessageCount     *int    `json:"keptUserMessageCount,omitempty"`
	KeptHeadUserMessageCount *int    `json:"keptHeadUserMessageCount,omitempty"`
	DroppedCount             *int    `json:"droppedCount,omitempty"`
}

// RecordType implementations.
func (AppendMessageRecord) RecordType() RecordType    { return TypeAppendMessage }
func (AppendLoopEventRecord) RecordType() RecordType  { return TypeAppendLoopEvent }
func (UpdateTokenCountRecord) RecordType() RecordType { return TypeUpdateTokenCount }
func (ClearRecord) RecordType() RecordType            { return TypeClear }
func (UndoRecord) RecordType() RecordType             { return TypeUndo }
func (ApplyCompactionRecord) RecordType() RecordType  { return TypeApplyCompaction }

// MarshalJSON writes {"message":…} without HTML escaping.
func (r AppendMessageRecord) MarshalJSON() ([]byte, error) {
	w := objectWriter{}
	w.val("message", r.Message)
	return w.close()
}

// MarshalJSON writes {"event":…}.
func (r AppendLoopEventRecord) MarshalJSON() ([]byte, error) {
	if r.Event == nil {
		return nil, fmt.Errorf("marshal %s: no event", TypeAppendLoopEvent)
	}
	w := objectWriter{}
	w.val("event", r.Event)
	return w.close()
}

// UnmarshalJSON reads {"event":…} with loop.DecodeRecordedEvent.
func (r *AppendLoopEventRecord) UnmarshalJSON(data []byte) error {
	var aux struct {
		Event json.RawMessage `json:"event"`
	}
	if err := json.Unmarshal(data, &aux); err != nil {
		return err
	}
	if len(aux.Event) == 0 {
		return fmt.Errorf("missing event")
	}
	ev, err := loop.DecodeRecordedEvent(aux.Event)
	if err != nil {
		return err
	}
	r.Event = ev
	return nil
}

// DecodeRecord reads the payload of a record of type t from data, the
// record's JSON object (its "type" and "time" keys are ignored). An
// unknown type or a malformed payload is an error naming the type.
func DecodeRecord(t RecordType, data []byte) (Payload, error) {
	var (
		p   Payload
		err error
	)
	switch t {
	case TypeAppendMessage:
		p, err = decodePayload[AppendMessageRecord](data)
	case TypeAppendLoopEvent:
		// Not through json.Unmarshal: it would scan the record twice more
		// before handing it to UnmarshalJSON.
		var r AppendLoopEventRecord
		if err = r.UnmarshalJSON(data); err == nil {
			p = r
		}
	case TypeUpdateTokenCount:
		p, err = decodePayload[UpdateTokenCountRecord](data)
	case TypeClear:
		p = ClearRecord{}
	case TypeUndo:
		p, err = decodePayload[UndoRecord](data)
	case TypeApplyCompaction:
		p, err = decodePayload[ApplyCompactionRecord](data)
	default:
		return nil, fmt.Errorf("decode record: %q is not a history record", t)
	}
	if err != nil {
		return nil, fmt.Errorf("decode %s record: %w", t, err)
	}
	return p, nil
}

func decodePayload[T Payload](data []byte) (Payload, error) {
	var v T
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	return v, nil
}

// Apply applies one of history's records; the agent's apply calls it for
// every context.* record, live right after the commit and on resume. A
// short undo is not an error here, since replay must never fail on it: a
// live undo reports Change.Undone.Err() to its caller. Errors are corrupt
// records, refused before anything changes: an event for an unknown step
// (*UnknownStepError), content no request can carry
// (*InvalidRecordError).
func (m *Memory) Apply(p Payload) (Change, error) {
	if err := validate(p); err != nil {
		return Change{}, err
	}
	switch r := p.(type) {
	case *AppendMessageRecord:
		return m.Apply(*r)
	case *AppendLoopEventRecord:
		return m.Apply(*r)
	case *UpdateTokenCountRecord:
		return m.Apply(*r)
	case *ClearRecord:
		return m.Apply(*r)
	case *UndoRecord:
		return m.Apply(*r)
	case *ApplyCompactionRecord:
		return m.Apply(*r)
	case AppendMessageRecord:
		return m.AppendMessage(r.Message), nil
	case AppendLoopEventRecord:
		if r.Event == nil {
			return Change{}, fmt.Errorf("apply %s: no event", TypeAppendLoopEvent)
		}
		return m.AppendLoopEvent(r.Event)
	case UpdateTokenCountRecord:
		m.UpdateTokenCount(r.TokenCount)
		return Change{}, nil
	case ClearRecord:
		return m.Clear(), nil
	case UndoRecord:
		res, ch := m.Undo(r.Count)
		ch.Undone = &res
		return ch, nil
	case ApplyCompactionRecord:
		res, ch := m.ApplyCompaction(r)
		ch.Compacted = &res
		return ch, nil
	}
	return Change{}, fmt.Errorf("apply history record: unsupported payload %T", p)
}
