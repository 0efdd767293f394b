package background

import (
	"context"

	"github.com/kimigo/kimigo/tools"
)

// Task is one kind of background work (spec 05 §6.1): the manager owns
// registration, deadlines, stopping, output capture, persistence and
// notifications; a Task owns only its execution.
type Task interface {
	// Kind is the task's kind; its id prefix follows from it.
	Kind() tools.TaskKind
	// Description is the one line the user and the model see.
	Description() string
	// Start runs the work on a goroutine the manager owns. It reports
	// output through sink and must end by settling it; it must settle soon
	// after ctx ends (the stop signal; context.Cause says why) or, at the
	// latest, after ForceStop.
	Start(ctx context.Context, sink Sink)
	// Info fills the kind's fields of base.
	Info(base tools.TaskInfo) tools.TaskInfo
}

// ForceStopper is a Task that can be forced to end when it did not settle
// within the grace after its stop signal (process tasks: SIGKILL).
type ForceStopper interface {
	ForceStop()
}

// Detacher is a Task told when it leaves the foreground (agent tasks mark
// their subagent as running in the background).
type Detacher interface {
	OnDetach()
}

// Sink is how a running Task reports. Both methods are called from the
// task's own goroutines, never concurrently with each other.
type Sink interface {
	// AppendOutput adds a chunk of output; p may be reused afterwards.
	AppendOutput(p []byte)
	// Settle ends the task; the first settlement wins and later ones
	// report false.
	Settle(s Settlement) bool
}

// Settlement is how a task's work ended.
type Settlement struct {
	// Status is completed, failed, timed_out or killed.
	Status tools.TaskStatus
	// Reason explains a status other than completed, when known.
	Reason string
	// ExitCode is a process's exit status, when it exited.
	ExitCode *int
}

// idPrefix is the prefix of a kind's task ids (spec 05 §6.1).
func idPrefix(k tools.TaskKind) string {
	switch k {
	case tools.TaskKindProcess:
		return "bash"
	case tools.TaskKindAgent:
		return "agent"
	case tools.TaskKindQuestion:
		return "question"
	}
	return "task"
}
