package goal

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/tools"
)

// RecordType is the "type" of a record goal mode owns (spec 02 §6.3).
type RecordType string

// Goal mode's record types. The agent commits them and applies them with
// Store.Apply, live and on resume.
const (
	TypeCreate RecordType = "goal.create"
	TypeUpdate RecordType = "goal.update"
	TypeClear  RecordType = "goal.clear"
	// TypeQueue holds the goals queued to start after the current one
	// (/goal next), the whole queue after each change.
	TypeQueue RecordType = "goal.queue"
)

// RecordTypes lists every record type goal mode owns.
func RecordTypes() []RecordType { return []RecordType{TypeCreate, TypeUpdate, TypeClear, TypeQueue} }

// Payload is the content of one of goal mode's records; its JSON is the
// record's fields without "type" and "time".
type Payload interface {
	RecordType() RecordType
}

// CreateRecord is goal.create: a new active goal with nothing used and no
// budgets.
type CreateRecord struct {
	GoalID              string `json:"goalId"`
	Objective           string `json:"objective"`
	CompletionCriterion string `json:"completionCriterion,omitempty"`
}

// UpdateRecord is goal.update: the fields present change. Counters are
// totals, not increments, so a record read twice changes nothing twice.
// WallClockMs is the active time up to the record's own time: every update
// kimigo writes carries it, so a crash loses at most the time since the
// last record.
type UpdateRecord struct {
	Status       tools.GoalStatus        `json:"status,omitempty"`
	Reason       string                  `json:"reason,omitempty"`
	TurnsUsed    *int                    `json:"turnsUsed,omitempty"`
	TokensUsed   *int                    `json:"tokensUsed,omitempty"`
	WallClockMs  *int64                  `json:"wallClockMs,omitempty"`
	BudgetLimits *tools.GoalBudgetLimits `json:"budgetLimits,omitempty"`
	Actor        Actor                   `json:"actor,omitempty"`
}

// ClearRecord is goal.clear: the goal is gone.
type ClearRecord struct{}

// QueueRecord is goal.queue: the queue of upcoming goals as it is after
// the change, oldest first. A goal.create whose goalId names a queued goal
// takes it off the queue, so starting the next goal is one record.
type QueueRecord struct {
	Upcoming []Upcoming `json:"upcoming"`
}

// Upcoming is a goal queued by /goal next: the id the goal will have once
// it starts, and its objective.
type Upcoming struct {
	ID        string `json:"id"`
	Objective string `json:"objective"`
}

// RecordType implementations.
func (CreateRecord) RecordType() RecordType { return TypeCreate }
func (UpdateRecord) RecordType() RecordType { return TypeUpdate }
func (ClearRecord) RecordType() RecordType  { return TypeClear }
func (QueueRecord) RecordType() RecordType  { return TypeQueue }

// DecodeRecord reads the payload of a record of type t from data. An
// unknown type or a malformed payload is an error naming the type and the
// field.
func DecodeRecord(t RecordType, data []byte) (Payload, error) {
	var (
		p   Payload
		err error
	)
	switch t {
	case TypeCreate:
		var r CreateRecord
		if err = json.Unmarshal(data, &r); err == nil && r.Objective == "" {
			err = fmt.Errorf("objective is empty")
		}
		p = r
	case TypeUpdate:
		var r UpdateRecord
		if err = json.Unmarshal(data, &r); err == nil {
			err = r.check()
		}
		p = r
	case TypeClear:
		p = ClearRecord{}
	case TypeQueue:
		var r QueueRecord
		if err = json.Unmarshal(data, &r); err == nil {
			err = r.check()
		}
		p = r
	default:
		return nil, fmt.Errorf("decode record: %q is not a goal record", t)
	}
	if err != nil {
		return nil, fmt.Errorf("decode %s record: %w", t, err)
	}
	return p, nil
}

// check refuses a queue with a goal without an id or an objective.
func (r QueueRecord) check() error {
	for i, u := range r.Upcoming {
		switch {
		case u.ID == "":
			return fmt.Errorf("upcoming[%d].id is empty", i)
		case strings.TrimSpace(u.Objective) == "":
			return fmt.Errorf("upcoming[%d].objective is empty", i)
		}
	}
	return nil
}

// check refuses an update no goal could have written.
func (r UpdateRecord) check() error {
	switch r.Status {
	case "", tools.GoalActive, tools.GoalPaused, tools.GoalBlocked, tools.GoalComplete:
	default:
		return fmt.Errorf("status %q is not a goal status", r.Status)
	}
	switch {
	case r.TurnsUsed != nil && *r.TurnsUsed < 0:
		return fmt.Errorf("turnsUsed %d is negative", *r.TurnsUsed)
	case r.TokensUsed != nil && *r.TokensUsed < 0:
		return fmt.Errorf("tokensUsed %d is negative", *r.TokensUsed)
	case r.WallClockMs != nil && *r.WallClockMs < 0:
		return fmt.Errorf("wallClockMs %d is negative", *r.WallClockMs)
	}
	return nil
}

// Actor says who changed a goal.
type Actor string

// Actors (spec 04 §6.1).
const (
	ActorUser    Actor = "user"
	ActorModel   Actor = "model"
	ActorRuntime Actor = "runtime"
	ActorSystem  Actor = "system"
)

// Host is the agent as goal mode sees it. Every method is safe for
// concurrent use and is called with none of the Store's locks held, except
// that Commit holds the store's operation lock (not its state lock).
type Host interface {
	// Commit makes p durable in order and applies it through Store.Apply
	// before it returns.
	Commit(ctx context.Context, p Payload) error
	// Publish sends a goal.updated event to the agent's subscribers.
	Publish(ev Event)
	// AppendMessage commits a message to history.
	AppendMessage(ctx context.Context, m history.Message) error
	// PermissionMode is the agent's permission mode (manual, yolo, auto).
	PermissionMode() string
	// SetPermissionMode switches it, recorded (the goal-start review).
	SetPermissionMode(ctx context.Context, mode string) error
}
