package permission

// The built-in tools the chain knows by name: rule subjects (Bash(...),
// Write(...)) and the policies written for one tool. They are the tools
// package's names; permission does not import tools (STYLE.md §2), and
// the agent's TestPermissionToolNamesAreTheTools checks they agree.
const (
	toolBash            = "Bash"
	toolWrite           = "Write"
	toolEdit            = "Edit"
	toolRead            = "Read"
	toolAskUserQuestion = "AskUserQuestion"
)

// ToolNames are the tool names the chain refers to, for that check.
func ToolNames() []string {
	return []string{toolBash, toolWrite, toolEdit, toolRead, toolAskUserQuestion}
}
