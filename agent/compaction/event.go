package compaction

import "github.com/kimigo/kimigo/agent/history"

// EventType names a compaction event (spec 03 §6.15). It is written as the
// event's "type" key.
type EventType string

// Compaction event types. EventError carries a failure the user must see;
// the agent publishes it as its own error event.
const (
	EventStarted   EventType = "compaction.started"
	EventBlocked   EventType = "compaction.blocked"
	EventCompleted EventType = "compaction.completed"
	EventCancelled EventType = "compaction.cancelled"
	EventError     EventType = "error"
)

// Event is one of the *Event structs of this package.
type Event interface {
	EventType() EventType
}

// EventSink receives compaction events. Publish is called synchronously,
// on the goroutine of the operation (the worker, the turn, the caller of
// Compact or Cancel), with no compaction lock held.
type EventSink interface {
	Publish(ev Event)
}

// StartedEvent reports a compaction that began.
type StartedEvent struct {
	Trigger     Source `json:"trigger"`
	Instruction string `json:"instruction,omitempty"`
}

// BlockedEvent reports a turn that waits for the running compaction.
type BlockedEvent struct {
	TurnID int `json:"turnId"`
}

// CompletedEvent reports a compaction that rewrote history.
type CompletedEvent struct {
	Result Result `json:"result"`
}

// CancelledEvent reports a compaction that ended without rewriting
// history: cancelled, raced or failed.
type CancelledEvent struct{}

// ErrorEvent reports a failed compaction that no turn was waiting for.
type ErrorEvent struct {
	Err error `json:"-"`
}

// EventType implementations.
func (StartedEvent) EventType() EventType   { return EventStarted }
func (BlockedEvent) EventType() EventType   { return EventBlocked }
func (CompletedEvent) EventType() EventType { return EventCompleted }
func (CancelledEvent) EventType() EventType { return EventCancelled }
func (ErrorEvent) EventType() EventType     { return EventError }

// Result is what a compaction did, as UIs see it: the applied
// context.apply_compaction without the model-facing summary.
type Result struct {
	Summary                  string `json:"summary"`
	CompactedCount           int    `json:"compactedCount"`
	TokensBefore             int    `json:"tokensBefore"`
	TokensAfter              int    `json:"tokensAfter"`
	KeptUserMessageCount     int    `json:"keptUserMessageCount"`
	KeptHeadUserMessageCount *int   `json:"keptHeadUserMessageCount,omitempty"`
	DroppedCount             *int   `json:"droppedCount,omitempty"`
}

// resultOf is the UI view of an applied record.
func resultOf(r history.ApplyCompactionRecord) Result {
	res := Result{Summary: r.Summary, CompactedCount: r.CompactedCount, TokensBefore: r.TokensBefore,
		KeptHeadUserMessageCount: r.KeptHeadUserMessageCount, DroppedCount: r.DroppedCount}
	if r.TokensAfter != nil {
		res.TokensAfter = *r.TokensAfter
	}
	if r.KeptUserMessageCount != nil {
		res.KeptUserMessageCount = *r.KeptUserMessageCount
	}
	return res
}
