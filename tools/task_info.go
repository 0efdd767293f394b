package tools

import (
	"fmt"
	"strconv"
	"strings"
)

// TaskStatus is the state of a background task (spec 05 §6.1), as
// persisted.
type TaskStatus string

// Task statuses: running, then exactly one terminal status. Lost is set
// only when a resume finds a task that was running when kimigo stopped.
const (
	TaskRunning   TaskStatus = "running"
	TaskCompleted TaskStatus = "completed"
	TaskFailed    TaskStatus = "failed"
	TaskTimedOut  TaskStatus = "timed_out"
	TaskKilled    TaskStatus = "killed"
	TaskLost      TaskStatus = "lost"
)

// Terminal reports whether s is a final status.
func (s TaskStatus) Terminal() bool { return s != TaskRunning && s != "" }

// TaskKind is what a task runs.
type TaskKind string

// Task kinds and their id prefixes.
const (
	TaskKindProcess  TaskKind = "process"
	TaskKindAgent    TaskKind = "agent"
	TaskKindQuestion TaskKind = "question"
)

// TaskInfo describes one task (spec 05 §6.1); it is also the record
// persisted as tasks/<id>.json.
type TaskInfo struct {
	TaskID      string     `json:"taskId"`
	Description string     `json:"description"`
	Status      TaskStatus `json:"status"`
	// Detached is false while a tool call waits for the task.
	Detached bool `json:"detached"`
	// StartedAt and EndedAt are epoch milliseconds; EndedAt is nil while
	// the task runs.
	StartedAt  int64  `json:"startedAt"`
	EndedAt    *int64 `json:"endedAt"`
	StopReason string `json:"stopReason,omitempty"`
	// TerminalNotificationSuppressed: the model is not told of its end
	// (TaskStop stopped it).
	TerminalNotificationSuppressed bool     `json:"terminalNotificationSuppressed,omitempty"`
	TimeoutMs                      int64    `json:"timeoutMs,omitempty"`
	Kind                           TaskKind `json:"kind"`

	// process.
	Command  string `json:"command,omitempty"`
	Pid      int    `json:"pid,omitempty"`
	ExitCode *int   `json:"exitCode,omitempty"`
	// ProcessStart identifies the process behind Pid (its start time in
	// clock ticks since boot, where the system tells it), so that a
	// resume never mistakes a recycled pid for the task's process.
	ProcessStart uint64 `json:"processStart,omitempty"`

	// agent.
	AgentID        string `json:"agentId,omitempty"`
	SubagentType   string `json:"subagentType,omitempty"`
	Model          string `json:"model,omitempty"`
	ThinkingEffort string `json:"thinkingEffort,omitempty"`

	// question.
	QuestionCount int    `json:"questionCount,omitempty"`
	ToolCallID    string `json:"toolCallId,omitempty"`
}

// OutputSnapshot is a task's output so far (spec 05 §6.5).
type OutputSnapshot struct {
	// OutputPath is the full log; "" when the output was kept only in
	// memory.
	OutputPath      string
	OutputSizeBytes int64
	PreviewBytes    int
	// Truncated: the preview does not start at the first byte.
	Truncated           bool
	FullOutputAvailable bool
	Preview             string
}

// Fields renders the task as `snake_case_key: value` lines in the order of
// spec 05 §4.15, leaving out empty values.
func (i TaskInfo) Fields() []string {
	var out []string
	add := func(k, v string) {
		if v != "" {
			out = append(out, k+": "+v)
		}
	}
	add("task_id", i.TaskID)
	add("description", i.Description)
	add("status", string(i.Status))
	add("detached", strconv.FormatBool(i.Detached))
	add("started_at", strconv.FormatInt(i.StartedAt, 10))
	if i.EndedAt != nil {
		add("ended_at", strconv.FormatInt(*i.EndedAt, 10))
	}
	add("stop_reason", i.StopReason)
	if i.TerminalNotificationSuppressed {
		add("terminal_notification_suppressed", "true")
	}
	if i.TimeoutMs > 0 {
		add("timeout_ms", strconv.FormatInt(i.TimeoutMs, 10))
	}
	add("kind", string(i.Kind))
	switch i.Kind {
	case TaskKindProcess:
		add("command", i.Command)
		if i.Pid > 0 {
			add("pid", strconv.Itoa(i.Pid))
		}
		if i.ExitCode != nil {
			add("exit_code", strconv.Itoa(*i.ExitCode))
		}
	case TaskKindAgent:
		add("agent_id", i.AgentID)
		add("subagent_type", i.SubagentType)
		add("model", i.Model)
		add("thinking_effort", i.ThinkingEffort)
	case TaskKindQuestion:
		add("question_count", strconv.Itoa(i.QuestionCount))
		add("tool_call_id", i.ToolCallID)
	}
	return out
}

// Validate reports what makes a persisted record unusable.
func (i TaskInfo) Validate() error {
	switch {
	case i.TaskID == "":
		return fmt.Errorf("no taskId")
	case i.Kind != TaskKindProcess && i.Kind != TaskKindAgent && i.Kind != TaskKindQuestion:
		return fmt.Errorf("unknown kind %q", i.Kind)
	}
	switch i.Status {
	case TaskRunning, TaskCompleted, TaskFailed, TaskTimedOut, TaskKilled, TaskLost:
		return nil
	}
	return fmt.Errorf("unknown status %q", i.Status)
}

// formatTasks renders records separated by "---" lines.
func formatTasks(infos []TaskInfo) string {
	parts := make([]string, 0, len(infos))
	for _, i := range infos {
		parts = append(parts, strings.Join(i.Fields(), "\n"))
	}
	return strings.Join(parts, "\n---\n")
}
