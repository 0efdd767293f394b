package background

import "github.com/kimigo/kimigo/tools"

// EventType names a task event (spec 05 §6.8). It is written as the
// event's "type" key.
type EventType string

// Task event types.
const (
	EventTaskStarted    EventType = "background.task.started"
	EventTaskTerminated EventType = "background.task.terminated"
)

// Event is one of the *Event structs of this package; the agent publishes
// them to its front ends.
type Event interface {
	EventType() EventType
}

// TaskStarted reports a task that runs in the background: registered
// there, or moved there from the foreground.
type TaskStarted struct {
	Info tools.TaskInfo `json:"info"`
}

// TaskTerminated reports a background task that ended, or one a resume
// found lost.
type TaskTerminated struct {
	Info tools.TaskInfo `json:"info"`
}

// EventType implements Event.
func (TaskStarted) EventType() EventType { return EventTaskStarted }

// EventType implements Event.
func (TaskTerminated) EventType() EventType { return EventTaskTerminated }
