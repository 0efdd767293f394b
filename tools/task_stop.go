package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"strings"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/workspace"
)

//go:embed task_stop.md
var taskStopMD string

const taskStopSchema = `{
  "type": "object",
  "properties": {
    "task_id": {"type": "string", "minLength": 1, "description": "The task to stop."},
    "reason": {"type": "string", "description": "Why it is stopped, in a few words."}
  },
  "required": ["task_id"],
  "additionalProperties": false
}`

// defaultStopReason is a TaskStop without a reason.
const defaultStopReason = "Stopped by TaskStop"

// TaskStop is the TaskStop tool (spec 05 §4.15).
type TaskStop struct {
	tasks BackgroundTasks
	def   llm.Tool
}

// NewTaskStop returns the TaskStop tool over tasks.
func NewTaskStop(tasks BackgroundTasks) *TaskStop {
	return &TaskStop{tasks: tasks, def: definition(NameTaskStop, taskStopMD, nil, taskStopSchema)}
}

// Definition implements loop.ExecutableTool.
func (t *TaskStop) Definition() llm.Tool { return t.def }

// ResolveExecution implements loop.ExecutableTool.
func (t *TaskStop) ResolveExecution(raw json.RawMessage) (loop.Execution, *loop.ToolResult, error) {
	var a struct {
		TaskID string `json:"task_id"`
		Reason string `json:"reason"`
	}
	if r := decodeArgs(NameTaskStop, raw, &a); r != nil {
		return loop.Execution{}, r, nil
	}
	id, reason := strings.TrimSpace(a.TaskID), strings.TrimSpace(a.Reason)
	if reason == "" {
		reason = defaultStopReason
	}
	return loop.Execution{
		Accesses:     loop.None(),
		Description:  "Stopping " + id,
		ApprovalRule: NameTaskStop,
		MatchesRule:  workspace.StringRuleMatcher(id),
		Execute: func(ctx context.Context, _ loop.ExecCtx) (loop.ToolResult, error) {
			cur, found := t.tasks.Get(id)
			switch {
			case !found:
				return loop.ErrorResult("Task not found: " + id), nil
			case cur.Status.Terminal():
				why := cur.StopReason
				if why == "" {
					why = "Task already in terminal state"
				}
				return loop.ErrorResult(stopAnswer(id, cur.Status, why)), nil
			}
			info, ok, err := t.tasks.Stop(ctx, id, reason)
			switch {
			case !ok:
				return loop.ErrorResult("Task not found: " + id), nil
			case err != nil:
				if ctx.Err() != nil {
					return loop.ToolResult{}, context.Cause(ctx)
				}
				return loop.ErrorResult("Failed to stop task: " + id), nil
			}
			return loop.TextResult(stopAnswer(id, info.Status, info.StopReason)), nil
		},
	}, nil, nil
}

func stopAnswer(id string, status TaskStatus, reason string) string {
	return "task_id: " + id + "\nstatus: " + string(status) + "\nreason: " + reason
}
