package loop

import (
	"encoding/json"
	"fmt"
)

// DisplayKind discriminates an input display block on the wire.
type DisplayKind string

// Input display kinds (spec 05 §1.5). Result display kinds are not defined
// yet; tools will attach them to results when UIs need them.
const (
	DisplayCommand    DisplayKind = "command"
	DisplayFileIO     DisplayKind = "file_io"
	DisplayDiff       DisplayKind = "diff"
	DisplaySearch     DisplayKind = "search"
	DisplayURLFetch   DisplayKind = "url_fetch"
	DisplayAgentCall  DisplayKind = "agent_call"
	DisplaySkillCall  DisplayKind = "skill_call"
	DisplayTodoList   DisplayKind = "todo_list"
	DisplayTask       DisplayKind = "task"
	DisplayTaskStop   DisplayKind = "task_stop"
	DisplayPlanReview DisplayKind = "plan_review"
	DisplayGoalStart  DisplayKind = "goal_start"
	DisplayGeneric    DisplayKind = "generic"
)

// Display is a structured rendering of a tool call for UIs and approval
// prompts. It is sealed: the implementations are the *Display structs of
// this file, and each marshals to {"kind":…,…}.
type Display interface {
	DisplayKind() DisplayKind
	isDisplay()
}

// CommandDisplay shows a shell command.
type CommandDisplay struct {
	Command     string `json:"command"`
	Cwd         string `json:"cwd,omitempty"`
	Description string `json:"description,omitempty"`
	Language    string `json:"language,omitempty"`
}

// FileIODisplay shows a file operation (read, write, edit, glob, grep).
type FileIODisplay struct {
	Operation string `json:"operation"`
	Path      string `json:"path"`
	Detail    string `json:"detail,omitempty"`
	Content   string `json:"content,omitempty"`
	Before    string `json:"before,omitempty"`
	After     string `json:"after,omitempty"`
}

// DiffDisplay shows a change to a file.
type DiffDisplay struct {
	Path   string          `json:"path"`
	Before string          `json:"before"`
	After  string          `json:"after"`
	Hunks  json.RawMessage `json:"hunks,omitempty"`
}

// SearchDisplay shows a search.
type SearchDisplay struct {
	Query string `json:"query"`
	Scope string `json:"scope,omitempty"`
}

// URLFetchDisplay shows a fetch.
type URLFetchDisplay struct {
	URL    string `json:"url"`
	Method string `json:"method,omitempty"`
}

// AgentCallDisplay shows a subagent launch.
type AgentCallDisplay struct {
	AgentName  string `json:"agent_name"`
	Prompt     string `json:"prompt"`
	Background bool   `json:"background,omitempty"`
}

// SkillCallDisplay shows a skill invocation.
type SkillCallDisplay struct {
	SkillName string `json:"skill_name"`
	Args      string `json:"args,omitempty"`
}

// TodoItem is one entry of a TodoListDisplay.
type TodoItem struct {
	Title  string `json:"title"`
	Status string `json:"status"`
}

// TodoListDisplay shows a todo list.
type TodoListDisplay struct {
	Items []TodoItem `json:"items"`
}

// TaskDisplay shows a background task.
type TaskDisplay struct {
	TaskID      string `json:"task_id"`
	Status      string `json:"status"`
	Description string `json:"description"`
	TaskKind    string `json:"task_kind,omitempty"`
}

// TaskStopDisplay shows a request to stop a background task.
type TaskStopDisplay struct {
	TaskID          string `json:"task_id"`
	TaskDescription string `json:"task_description"`
}

// PlanOption is one choice of a PlanReviewDisplay.
type PlanOption struct {
	Label       string `json:"label"`
	Description string `json:"description"`
}

// PlanReviewDisplay shows a plan for approval.
type PlanReviewDisplay struct {
	Plan    string       `json:"plan"`
	Path    string       `json:"path,omitempty"`
	Options []PlanOption `json:"options,omitempty"`
}

// GoalStartDisplay shows a goal being started.
type GoalStartDisplay struct {
	Objective           string `json:"objective"`
	CompletionCriterion string `json:"completionCriterion,omitempty"`
	Mode                string `json:"mode"`
}

// GenericDisplay is a summary with optional detail (any JSON value).
type GenericDisplay struct {
	Summary string `json:"summary"`
	Detail  any    `json:"detail,omitempty"`
}

func (*CommandDisplay) isDisplay()    {}
func (*FileIODisplay) isDisplay()     {}
func (*DiffDisplay) isDisplay()       {}
func (*SearchDisplay) isDisplay()     {}
func (*URLFetchDisplay) isDisplay()   {}
func (*AgentCallDisplay) isDisplay()  {}
func (*SkillCallDisplay) isDisplay()  {}
func (*TodoListDisplay) isDisplay()   {}
func (*TaskDisplay) isDisplay()       {}
func (*TaskStopDisplay) isDisplay()   {}
func (*PlanReviewDisplay) isDisplay() {}
func (*GoalStartDisplay) isDisplay()  {}
func (*GenericDisplay) isDisplay()    {}

// DisplayKind implementations.
func (*CommandDisplay) DisplayKind() DisplayKind    { return DisplayCommand }
func (*FileIODisplay) DisplayKind() DisplayKind     { return DisplayFileIO }
func (*DiffDisplay) DisplayKind() DisplayKind       { return DisplayDiff }
func (*SearchDisplay) DisplayKind() DisplayKind     { return DisplaySearch }
func (*URLFetchDisplay) DisplayKind() DisplayKind   { return DisplayURLFetch }
func (*AgentCallDisplay) DisplayKind() DisplayKind  { return DisplayAgentCall }
func (*SkillCallDisplay) DisplayKind() DisplayKind  { return DisplaySkillCall }
func (*TodoListDisplay) DisplayKind() DisplayKind   { return DisplayTodoList }
func (*TaskDisplay) DisplayKind() DisplayKind       { return DisplayTask }
func (*TaskStopDisplay) DisplayKind() DisplayKind   { return DisplayTaskStop }
func (*PlanReviewDisplay) DisplayKind() DisplayKind { return DisplayPlanReview }
func (*GoalStartDisplay) DisplayKind() DisplayKind  { return DisplayGoalStart }
func (*GenericDisplay) DisplayKind() DisplayKind    { return DisplayGeneric }

// MarshalJSON writes {"kind":"…",…}.
func (d *CommandDisplay) MarshalJSON() ([]byte, error) {
	type plain CommandDisplay
	return marshalTagged("kind", string(DisplayCommand), (*plain)(d))
}

// MarshalJSON writes {"kind":"…",…}.
func (d *FileIODisplay) MarshalJSON() ([]byte, error) {
	type plain FileIODisplay
	return marshalTagged("kind", string(DisplayFileIO), (*plain)(d))
}

// MarshalJSON writes {"kind":"…",…}.
func (d *DiffDisplay) MarshalJSON() ([]byte, error) {
	type plain DiffDisplay
	return marshalTagged("kind", string(DisplayDiff), (*plain)(d))
}

// MarshalJSON writes {"kind":"…",…}.
func (d *SearchDisplay) MarshalJSON() ([]byte, error) {
	type plain SearchDisplay
	return marshalTagged("kind", string(DisplaySearch), (*plain)(d))
}

// MarshalJSON writes {"kind":"…",…}.
func (d *URLFetchDisplay) MarshalJSON() ([]byte, error) {
	type plain URLFetchDisplay
	return marshalTagged("kind", string(DisplayURLFetch), (*plain)(d))
}

// MarshalJSON writes {"kind":"…",…}.
func (d *AgentCallDisplay) MarshalJSON() ([]byte, error) {
	type plain AgentCallDisplay
	return marshalTagged("kind", string(DisplayAgentCall), (*plain)(d))
}

// MarshalJSON writes {"kind":"…",…}.
func (d *SkillCallDisplay) MarshalJSON() ([]byte, error) {
	type plain SkillCallDisplay
	return marshalTagged("kind", string(DisplaySkillCall), (*plain)(d))
}

// MarshalJSON writes {"kind":"…",…}.
func (d *TodoListDisplay) MarshalJSON() ([]byte, error) {
	type plain TodoListDisplay
	return marshalTagged("kind", string(DisplayTodoList), (*plain)(d))
}

// MarshalJSON writes {"kind":"…",…}.
func (d *TaskDisplay) MarshalJSON() ([]byte, error) {
	type plain TaskDisplay
	return marshalTagged("kind", string(DisplayTask), (*plain)(d))
}

// MarshalJSON writes {"kind":"…",…}.
func (d *TaskStopDisplay) MarshalJSON() ([]byte, error) {
	type plain TaskStopDisplay
	return marshalTagged("kind", string(DisplayTaskStop), (*plain)(d))
}

// MarshalJSON writes {"kind":"…",…}.
func (d *PlanReviewDisplay) MarshalJSON() ([]byte, error) {
	type plain PlanReviewDisplay
	return marshalTagged("kind", string(DisplayPlanReview), (*plain)(d))
}

// MarshalJSON writes {"kind":"…",…}.
func (d *GoalStartDisplay) MarshalJSON() ([]byte, error) {
	type plain GoalStartDisplay
	return marshalTagged("kind", string(DisplayGoalStart), (*plain)(d))
}

// MarshalJSON writes {"kind":"…",…}.
func (d *GenericDisplay) MarshalJSON() ([]byte, error) {
	type plain GenericDisplay
	return marshalTagged("kind", string(DisplayGeneric), (*plain)(d))
}

// DecodeDisplay reads a display block {"kind":…,…}.
func DecodeDisplay(data []byte) (Display, error) {
	var head struct {
		Kind DisplayKind `json:"kind"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("display: %w", err)
	}
	d := newDisplay(head.Kind)
	if d == nil {
		return nil, fmt.Errorf("display: unknown kind %q", head.Kind)
	}
	if err := json.Unmarshal(data, d); err != nil {
		return nil, fmt.Errorf("display %s: %w", head.Kind, err)
	}
	return d, nil
}

func newDisplay(k DisplayKind) Display {
	switch k {
	case DisplayCommand:
		return &CommandDisplay{}
	case DisplayFileIO:
		return &FileIODisplay{}
	case DisplayDiff:
		return &DiffDisplay{}
	case DisplaySearch:
		return &SearchDisplay{}
	case DisplayURLFetch:
		return &URLFetchDisplay{}
	case DisplayAgentCall:
		return &AgentCallDisplay{}
	case DisplaySkillCall:
		return &SkillCallDisplay{}
	case DisplayTodoList:
		return &TodoListDisplay{}
	case DisplayTask:
		return &TaskDisplay{}
	case DisplayTaskStop:
		return &TaskStopDisplay{}
	case DisplayPlanReview:
		return &PlanReviewDisplay{}
	case DisplayGoalStart:
		return &GoalStartDisplay{}
	case DisplayGeneric:
		return &GenericDisplay{}
	}
	return nil
}
