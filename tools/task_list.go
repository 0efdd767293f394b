package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/workspace"
)

//go:embed task_list.md
var taskListMD string

const taskListSchema = `{
  "type": "object",
  "properties": {
    "active_only": {"type": "boolean", "default": true, "description": "List only the tasks still running."},
    "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20, "description": "How many tasks to list at most (the most recent)."}
  },
  "additionalProperties": false
}`

// TaskList is the TaskList tool (spec 05 §4.15).
type TaskList struct {
	tasks BackgroundTasks
	def   llm.Tool
}

// NewTaskList returns the TaskList tool over tasks.
func NewTaskList(tasks BackgroundTasks) *TaskList {
	return &TaskList{tasks: tasks, def: definition(NameTaskList, taskListMD, nil, taskListSchema)}
}

// Definition implements loop.ExecutableTool.
func (t *TaskList) Definition() llm.Tool { return t.def }

// ResolveExecution implements loop.ExecutableTool. Listing reads nothing
// the scheduler guards, so it runs beside anything.
func (t *TaskList) ResolveExecution(raw json.RawMessage) (loop.Execution, *loop.ToolResult, error) {
	var a struct {
		ActiveOnly *bool `json:"active_only"`
		Limit      *int  `json:"limit"`
	}
	if r := decodeArgs(NameTaskList, raw, &a); r != nil {
		return loop.Execution{}, r, nil
	}
	active, limit := true, 20
	if a.ActiveOnly != nil {
		active = *a.ActiveOnly
	}
	if a.Limit != nil {
		if *a.Limit < 1 || *a.Limit > 100 {
			return loop.Execution{}, errorResult("limit must be between 1 and 100; got %d.", *a.Limit), nil
		}
		limit = *a.Limit
	}
	scope := "all"
	if active {
		scope = "active"
	}
	return loop.Execution{
		Accesses:     loop.None(),
		Description:  "Listing background tasks",
		ApprovalRule: NameTaskList,
		MatchesRule:  workspace.StringRuleMatcher(scope),
		Execute: func(context.Context, loop.ExecCtx) (loop.ToolResult, error) {
			infos := t.tasks.List(active)
			if len(infos) > limit {
				infos = infos[len(infos)-limit:]
			}
			return loop.TextResult(FormatTaskList(infos, active)), nil
		},
	}, nil, nil
}

// FormatTaskList renders tasks as TaskList shows them; the background
// status reminder after a compaction uses it too.
func FormatTaskList(infos []TaskInfo, activeOnly bool) string {
	label := "background_tasks"
	if activeOnly {
		label = "active_background_tasks"
	}
	header := fmt.Sprintf("%s: %d", label, len(infos))
	if len(infos) == 0 {
		return header + "\nNo background tasks found."
	}
	return header + "\n" + formatTasks(infos)
}
