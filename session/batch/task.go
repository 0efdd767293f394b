package batch

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/kimigo/kimigo/llm"
)

// Kind says how a task's first attempt reaches its child.
type Kind string

// The kinds of task.
const (
	// KindSpawn creates a new child from a profile.
	KindSpawn Kind = "spawn"
	// KindResume continues an existing child by agent id.
	KindResume Kind = "resume"
)

// Task is one subagent of a batch (spec 05 §5.7 "Tasks").
type Task struct {
	Kind Kind
	// ResumeAgentID is the child a KindResume task continues.
	ResumeAgentID string
	// Profile is the profile a KindSpawn task's child is built from.
	Profile string
	// Prompt is the child's prompt; Description labels it on the parent.
	Prompt      string
	Description string
	// Index is the task's 1-based place in the swarm.
	Index int
	// Item is the swarm item the task works on ("" for none).
	Item string
	// Timeout bounds each attempt; 0 means none.
	Timeout time.Duration
}

// Status is how a task ended.
type Status string

// The task statuses.
const (
	StatusCompleted Status = "completed"
	StatusFailed    Status = "failed"
	StatusAborted   Status = "aborted"
)

// State says whether an unfinished task's child had started.
type State string

// The task states; a completed task has none.
const (
	StateStarted    State = "started"
	StateNotStarted State = "not_started"
)

// Result is how one task ended.
type Result struct {
	Task Task
	// AgentID is the child's id, "" when none was created.
	AgentID string
	Status  Status
	// State is set for failed and aborted tasks.
	State State
	// Output is the child's handoff (completed only); Usage its tokens.
	Output string
	Usage  llm.TokenUsage
	// Error says why a task did not complete.
	Error string
}

// Completion is what a child hands back when its run completes.
type Completion struct {
	Output string
	Usage  llm.TokenUsage
}

// Handle is a launched child. Safe for concurrent use.
type Handle interface {
	// AgentID is the child's id.
	AgentID() string
	// Wait blocks until the child's run ends and returns its completion,
	// or why it failed. It returns soon after the run's ctx (the one
	// given to the Launcher) is cancelled.
	Wait() (Completion, error)
}

// Launch is what every launch carries besides its task.
type Launch struct {
	// OnReady is called when the child sends its first model request; it
	// may be called from any goroutine, more than once, or never.
	OnReady func()
}

// Launcher starts children for a batch; the session implements it over
// its subagent host. Each method is called on an attempt's own goroutine
// with the attempt's ctx, which ends the child's run when cancelled; a
// method returns once the child exists (or could not be made).
type Launcher interface {
	// Spawn creates a child from t.Profile and starts it on t.Prompt.
	Spawn(ctx context.Context, t Task, r Launch) (Handle, error)
	// Resume continues child agentID with t.Prompt appended.
	Resume(ctx context.Context, agentID string, t Task, r Launch) (Handle, error)
	// Retry re-runs child agentID's last turn without a new prompt.
	Retry(ctx context.Context, agentID string, t Task, r Launch) (Handle, error)
	// Suspended reports a rate-limited task requeued for a retry (the
	// parent's subagent.suspended event). It is called on the scheduler's
	// goroutine and must not block.
	Suspended(t Task, agentID, reason string)
}

// SuspendedReason is the reason Launcher.Suspended gives.
const SuspendedReason = "Provider rate limit; subagent requeued for retry."

// Messages of unfinished tasks (spec 05 §5.7 "Results and cancellation").
const (
	msgTimedOut         = "Subagent timed out."
	msgUserInterrupted  = "The user manually interrupted this subagent batch."
	msgAbortedStarted   = "The user manually interrupted this subagent batch before this subagent finished."
	msgAbortedUnstarted = "The user manually interrupted this subagent batch before this subagent was started."
)

// MaxConcurrencyEnv is the variable that caps a batch's normal phase.
const MaxConcurrencyEnv = "KIMI_CODE_AGENT_SWARM_MAX_CONCURRENCY"

// ParseMaxConcurrency reads the cap from the raw value of
// MaxConcurrencyEnv: 0 (no cap) when blank, the number when it is a
// positive integer, and otherwise an error naming the value.
func ParseMaxConcurrency(raw string) (int, error) {
	if strings.TrimSpace(raw) == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(raw))
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%s must be a positive integer, got %s.", MaxConcurrencyEnv, strconv.Quote(raw)) //lint:ignore ST1005 the wording is spec 05 §5.7's
	}
	return n, nil
}

// errTimedOut is the cancel cause of an attempt past its task's timeout.
var errTimedOut = errors.New("subagent timed out")
