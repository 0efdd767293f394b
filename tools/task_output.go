package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/workspace"
)

// TaskOutputPreview is how much output TaskOutput shows (spec 05 §4.15).
const TaskOutputPreview = 32 << 10

//go:embed task_output.md
var taskOutputMD string

const taskOutputSchema = `{
  "type": "object",
  "properties": {
    "task_id": {"type": "string", "minLength": 1, "description": "The task's id, from TaskList or the call that started it."}
  },
  "required": ["task_id"],
  "additionalProperties": false
}`

// TaskOutput is the TaskOutput tool (spec 05 §4.15).
type TaskOutput struct {
	tasks BackgroundTasks
	def   llm.Tool
}

// NewTaskOutput returns the TaskOutput tool over tasks.
func NewTaskOutput(tasks BackgroundTasks) *TaskOutput {
	return &TaskOutput{tasks: tasks, def: definition(NameTaskOutput, taskOutputMD,
		struct{ PreviewBytes int }{TaskOutputPreview}, taskOutputSchema)}
}

// Definition implements loop.ExecutableTool.
func (t *TaskOutput) Definition() llm.Tool { return t.def }

// ResolveExecution implements loop.ExecutableTool.
func (t *TaskOutput) ResolveExecution(raw json.RawMessage) (loop.Execution, *loop.ToolResult, error) {
	var a struct {
		TaskID string `json:"task_id"`
	}
	if r := decodeArgs(NameTaskOutput, raw, &a); r != nil {
		return loop.Execution{}, r, nil
	}
	id := strings.TrimSpace(a.TaskID)
	return loop.Execution{
		Accesses:     loop.None(),
		Description:  "Reading the output of " + id,
		ApprovalRule: NameTaskOutput,
		MatchesRule:  workspace.StringRuleMatcher(id),
		Execute: func(ctx context.Context, _ loop.ExecCtx) (loop.ToolResult, error) {
			snap, info, ok := t.tasks.Snapshot(ctx, id, TaskOutputPreview)
			if !ok {
				return loop.ErrorResult("Task not found: " + id), nil
			}
			return loop.ToolResult{Output: loop.TextOutput(formatSnapshot(info, snap)), Message: "Task snapshot retrieved."}, nil
		},
	}, nil, nil
}

// formatSnapshot renders the TaskOutput answer: the task, the facts about
// its output, then the preview.
func formatSnapshot(info TaskInfo, s OutputSnapshot) string {
	status := "not_ready"
	if info.Status.Terminal() {
		status = "success"
	}
	lines := []string{"retrieval_status: " + status}
	lines = append(lines, info.Fields()...)
	if s.OutputPath != "" {
		lines = append(lines, "output_path: "+s.OutputPath)
	}
	switch {
	case info.Status == TaskTimedOut:
		lines = append(lines, "terminal_reason: timed_out")
	case info.Status == TaskKilled && info.StopReason != "":
		lines = append(lines, "terminal_reason: stopped")
	case info.Status == TaskFailed && info.StopReason != "":
		lines = append(lines, "terminal_reason: failed")
	}
	lines = append(lines,
		"output_size_bytes: "+strconv.FormatInt(s.OutputSizeBytes, 10),
		"output_preview_bytes: "+strconv.Itoa(s.PreviewBytes),
		"output_truncated: "+strconv.FormatBool(s.Truncated),
		"full_output_available: "+strconv.FormatBool(s.FullOutputAvailable))
	if s.FullOutputAvailable {
		lines = append(lines, "full_output_tool: "+NameRead)
		if s.Truncated {
			lines = append(lines, fmt.Sprintf("full_output_hint: Only the last %d bytes are shown. Read output_path for the rest, about 300 lines at a time.", TaskOutputPreview))
		} else {
			lines = append(lines, "full_output_hint: The preview holds the whole output; Read output_path to see it again later.")
		}
	}
	lines = append(lines, "")
	if s.Truncated {
		if s.OutputPath != "" {
			lines = append(lines, "[Truncated. Full output: "+s.OutputPath+"]")
		} else {
			lines = append(lines, "[Truncated. No persisted full log is available for this task.]")
		}
	}
	lines = append(lines, "[output]")
	if s.Preview == "" {
		lines = append(lines, "[no output available]")
	} else {
		lines = append(lines, s.Preview)
	}
	return strings.Join(lines, "\n")
}
