package goal

import "github.com/kimigo/kimigo/tools"

// EventUpdated is the type of the goal event.
const EventUpdated = "goal.updated"

// Event is goal.updated (spec 04 §6.1): the goal as it is now (nil when
// there is none) and, for a lifecycle change or a completion, what
// changed.
type Event struct {
	Snapshot *tools.GoalSnapshot `json:"snapshot"`
	Change   *Change             `json:"change,omitempty"`
}

// EventType is goal.updated.
func (Event) EventType() string { return EventUpdated }

// ChangeKind classifies a goal change.
type ChangeKind string

// Change kinds. Created appears only in the replay stream.
const (
	ChangeCreated    ChangeKind = "created"
	ChangeLifecycle  ChangeKind = "lifecycle"
	ChangeCompletion ChangeKind = "completion"
)

// Change is what a goal.updated event or a replay card reports as changed.
type Change struct {
	Kind   ChangeKind       `json:"kind"`
	Status tools.GoalStatus `json:"status,omitempty"`
	Reason string           `json:"reason,omitempty"`
	Stats  *Stats           `json:"stats,omitempty"`
	Actor  Actor            `json:"actor,omitempty"`
}

// Stats are a goal's totals when it completed.
type Stats struct {
	TurnsUsed   int   `json:"turnsUsed"`
	TokensUsed  int   `json:"tokensUsed"`
	WallClockMs int64 `json:"wallClockMs"`
}

func statsOf(s tools.GoalSnapshot) *Stats {
	return &Stats{TurnsUsed: s.TurnsUsed, TokensUsed: s.TokensUsed, WallClockMs: s.WallClockMs}
}
