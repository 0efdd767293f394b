package tools

import (
	"context"
	"errors"
	"time"

	"github.com/kimigo/kimigo/osenv"
)

// The interfaces below are what tools need from the rest of kimigo. Each is
// declared here, where it is consumed, and implemented elsewhere (the agent
// wires the implementations when it builds the Manager), so tools never
// imports agent or session.

// BackgroundTasks runs commands that outlive the tool call
// (agent/background implements it, spec 05 §6). Bash hands it an already
// started process; from then on the manager owns the process: its
// timeout, its output, stopping it and notifying the model when it ends.
type BackgroundTasks interface {
	// StartProcess registers p as a detached background task and returns
	// its id. It must not block beyond bookkeeping. On error the caller
	// kills the process; the error's message reaches the model (for
	// example "Too many background tasks are already running.").
	// Safe for concurrent use.
	StartProcess(ctx context.Context, p BackgroundProcess) (BackgroundTask, error)
}

// BackgroundProcess is a started process handed to BackgroundTasks.
type BackgroundProcess struct {
	Process     osenv.Process
	Command     string
	Description string
	// Timeout is the task's deadline; 0 means none.
	Timeout time.Duration
}

// BackgroundTask identifies a registered task.
type BackgroundTask struct {
	ID string
}

// QuestionAsker puts structured questions to the user; the UI (or ACP
// client) implements it.
type QuestionAsker interface {
	// AskQuestions blocks until the user answers, dismisses or ctx is
	// done. Answers are keyed by question text; empty or nil means the
	// user dismissed the questions. ErrQuestionsUnsupported means the
	// client cannot ask. Safe for concurrent use.
	AskQuestions(ctx context.Context, req QuestionRequest) (map[string]string, error)
}

// ErrQuestionsUnsupported reports a client without interactive questions.
var ErrQuestionsUnsupported = errors.New("the client does not support interactive questions")

// QuestionRequest is one AskUserQuestion call as the UI sees it.
type QuestionRequest struct {
	TurnID     string
	ToolCallID string
	Questions  []Question
}

// Question is one question with its options.
type Question struct {
	Question    string           `json:"question"`
	Header      string           `json:"header"`
	Options     []QuestionOption `json:"options"`
	MultiSelect bool             `json:"multi_select"`
}

// QuestionOption is one answer the user may pick.
type QuestionOption struct {
	Label       string `json:"label"`
	Description string `json:"description"`
}

// URLFetcher downloads a page for FetchURL (LocalFetcher is the built-in
// implementation; a vendor service may wrap it).
type URLFetcher interface {
	// Fetch returns the page's content, either verbatim or as extracted
	// text. An HTTP failure is a *FetchStatusError. Safe for concurrent
	// use.
	Fetch(ctx context.Context, url string) (FetchedPage, error)
}

// FetchKind says how FetchedPage.Content relates to the response body.
type FetchKind string

// Fetch kinds.
const (
	FetchPassthrough FetchKind = "passthrough"
	FetchExtracted   FetchKind = "extracted"
)

// FetchedPage is a fetched page.
type FetchedPage struct {
	Content string
	Kind    FetchKind
}

// Later collaborators (spec 05 §4.11–4.17, §11.1). Each arrives with the
// tools that use it:
//
// TODO(tools): SubagentLauncher (spawn/resume/delegatable set) with the Agent and AgentSwarm tools.
// TODO(tools): CronScheduler (add/remove/list, next fire) with the Cron tools.
// TODO(tools): SkillRegistry (model-invocable skills) with the Skill tool.
// TODO(tools): PlanModeControl (enter/exit, plan file) with EnterPlanMode and ExitPlanMode.
// TODO(tools): GoalControl (create/get/budget/update) with the goal tools.
// TODO(tools): ContextAppender (messages with an origin) with select_tools and Skill.
