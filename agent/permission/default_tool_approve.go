package permission

import "context"

// defaultToolApprove approves the tools that only read or talk (spec 04
// §2.5, policy 17). The list is by name: Read of a path outside the
// workspace is approved too.
type defaultToolApprove struct{}

func (defaultToolApprove) Name() string { return "default-tool-approve" }

func (defaultToolApprove) Evaluate(_ context.Context, c *Call) (Verdict, error) {
	switch c.Name() {
	case "Read", "Grep", "Glob", "ReadMediaFile", "SetTodoList", "TodoList", "TaskList", "TaskOutput",
		"CronList", "WebSearch", "FetchURL", "Agent", "AskUserQuestion", "Skill", "GetGoal",
		"SetGoalBudget", "UpdateGoal", "select_tools":
		return Verdict{Kind: Approve}, nil
	}
	return Verdict{}, nil
}
