package tools

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/profile/skill"
)

// The interfaces below are what tools need from the rest of kimigo. Each is
// declared here, where it is consumed, and implemented elsewhere (the agent
// wires the implementations when it builds the Manager), so tools never
// imports agent or session.

// BackgroundTasks is one agent's background task manager as tools see
// it (agent/background implements it, spec 05 §6). Bash hands it the
// processes it starts, in the foreground and in the background; the task
// tools list, inspect and stop what it holds; AskUserQuestion runs
// background questions on it. Every method is safe for concurrent use and
// returns without waiting for a task unless it says otherwise.
type BackgroundTasks interface {
	// StartProcess registers p as a detached background task and returns
	// its id. On error the caller kills the process; the error's message
	// reaches the model (for example "Too many background tasks are
	// already running.").
	StartProcess(ctx context.Context, p BackgroundProcess) (BackgroundTask, error)
	// RunProcess registers p as a foreground task: the manager reads its
	// output and owns its deadline, and the caller waits for the task to
	// end or to leave the foreground (ForegroundTask). ctx is the call's:
	// when it ends while the task is attached, the task is stopped as
	// interrupted by the user.
	RunProcess(ctx context.Context, p ForegroundProcess) (ForegroundTask, error)
	// StartQuestion registers a background question (spec 05 §4.10).
	StartQuestion(ctx context.Context, q BackgroundQuestion) (BackgroundTask, error)
	// RunAgent registers a subagent run as an agent task (spec 05 §5.6
	// step 4): detached from the start when a.Background, else as the
	// foreground task of the call whose context is ctx (when ctx ends
	// while the task is attached, it is stopped as interrupted by the
	// user). A background registration over the cap is refused.
	RunAgent(ctx context.Context, a AgentTask) (ForegroundTask, error)
	// List returns the tasks, oldest first: the active ones, or with
	// activeOnly false also the finished background tasks and those a
	// resume found lost. Finished foreground tasks are never listed.
	List(activeOnly bool) []TaskInfo
	// Get returns one task; ok is false for an unknown id.
	Get(id string) (info TaskInfo, ok bool)
	// Snapshot returns what a task printed so far, waiting for pending
	// writes: the last maxPreviewBytes bytes and where the full log is.
	// ok is false for an unknown id.
	Snapshot(ctx context.Context, id string, maxPreviewBytes int) (snap OutputSnapshot, info TaskInfo, ok bool)
	// Stop stops a running task without notifying the model of its end,
	// and waits until it is over (or ctx ends). ok is false for an
	// unknown id; a finished task is returned as it is.
	Stop(ctx context.Context, id, reason string) (info TaskInfo, ok bool, err error)
}

// BackgroundProcess is a started process handed to BackgroundTasks.
type BackgroundProcess struct {
	Process     osenv.Process
	Command     string
	Description string
	// Timeout is the task's deadline; 0 means none.
	Timeout time.Duration
}

// ForegroundProcess is a started process a tool call waits for.
type ForegroundProcess struct {
	BackgroundProcess
	// AutoBackground moves the task to the background when Timeout
	// passes, instead of killing it (spec 05 §4.6).
	AutoBackground bool
	// DetachTimeout is the deadline armed when the task moves to the
	// background; 0 means none.
	DetachTimeout time.Duration
	// PersistAfter starts saving the full output to the task's log once
	// that many bytes were printed (0: the manager's default), so that a
	// call whose inline output was cut can point at the whole of it.
	PersistAfter int64
	// OnOutput receives every chunk the process prints, in order, until
	// the task leaves the foreground or the output ceiling stops it. It
	// is called on the manager's reader goroutine and must not block.
	OnOutput func(p []byte)
}

// ForegroundTask is a registered foreground task.
type ForegroundTask interface {
	// ID is the task id.
	ID() string
	// Released is closed when the task ended or left the foreground.
	Released() <-chan struct{}
	// Release says how the task left the foreground; it is valid once
	// Released is closed.
	Release() ForegroundRelease
}

// ReleaseKind says why a foreground task stopped holding its call.
type ReleaseKind string

// Release kinds.
const (
	ReleaseTerminal        ReleaseKind = "terminal"
	ReleaseDetached        ReleaseKind = "detached"
	ReleaseTimeoutDetached ReleaseKind = "timeout_detached"
)

// ForegroundRelease is the end of a foreground wait.
type ForegroundRelease struct {
	Kind ReleaseKind
	// Info is the task as it was at release.
	Info TaskInfo
	// OutputPath is the full log, when the output was saved; OutputSize
	// is how many bytes the task printed.
	OutputPath string
	OutputSize int64
}

// BackgroundQuestion is an AskUserQuestion call that runs as a task.
type BackgroundQuestion struct {
	Description   string
	QuestionCount int
	ToolCallID    string
	// Ask runs the question and returns the tool's result; ctx ends when
	// the task is stopped.
	Ask func(ctx context.Context) (loop.ToolResult, error)
}

// AgentTask is a subagent run handed to BackgroundTasks.
type AgentTask struct {
	Description    string
	AgentID        string
	SubagentType   string
	Model          string
	ThinkingEffort string
	// Background registers the task detached.
	Background bool
	// Timeout is the task's deadline; 0 means none.
	Timeout time.Duration
	// Run runs the subagent to its handoff and returns its final text;
	// ctx ends when the task is stopped or timed out.
	Run func(ctx context.Context) (string, error)
	// OnDetach, when set, is told the task left the foreground.
	OnDetach func()
}

// BackgroundTask identifies a registered task.
type BackgroundTask struct {
	ID string
}

// CronScheduler is the main agent's cron manager as the cron tools see it
// (agent/cron implements it, spec 05 §7). Every method is safe for
// concurrent use.
type CronScheduler interface {
	// Disabled reports that scheduling is switched off (KIMI_DISABLE_CRON).
	Disabled() bool
	// Plan parses expr and finds its first fire from now. A malformed
	// expression is an error whose message names the field.
	Plan(expr string, recurring bool) (CronPlan, error)
	// Count is how many jobs are scheduled.
	Count() int
	// Add schedules a job created now; it fails with ErrCronCapReached
	// when the cap is reached.
	Add(ctx context.Context, spec CronJobSpec) (CronJob, error)
	// List returns the jobs in the order they were added.
	List() []CronJob
	// Remove deletes a job; ok is false when there is none with that id.
	Remove(ctx context.Context, id string) (ok bool, err error)
	// Now is the scheduler's clock.
	Now() time.Time
}

// CronMaxJobs caps the jobs of a session; CronMaxPromptBytes a job's
// prompt (spec 05 §7.6).
const (
	CronMaxJobs        = 50
	CronMaxPromptBytes = 8192
)

// ErrCronCapReached refuses a job over CronMaxJobs.
var ErrCronCapReached = fmt.Errorf("Cron job cap reached (max %d per session).", CronMaxJobs) //lint:ignore ST1005 the model reads it verbatim

// CronPlan is a parsed schedule.
type CronPlan struct {
	// Cron is the whitespace-normalised expression.
	Cron string
	// Human says it in words ("every 5 minutes"), or repeats it.
	Human string
	// FirstFire is the first ideal fire after now; zero when none comes
	// within five years.
	FirstFire time.Time
}

// CronJobSpec is a job to schedule.
type CronJobSpec struct {
	Cron      string
	Prompt    string
	Recurring bool
}

// CronJob is a scheduled job as the tools report it.
type CronJob struct {
	ID        string
	Cron      string
	Human     string
	Prompt    string
	Recurring bool
	CreatedAt time.Time
	// NextFire is the next (jittered) fire; zero when none.
	NextFire time.Time
	// Stale: a recurring job older than seven days; its next fire is its
	// last.
	Stale bool
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

// ContextAppender puts what select_tools and Skill load into the agent's
// history (the agent implements it). A message appended while a tool
// exchange is open is deferred until the exchange closes, so it lands
// right after the tool results. Safe for concurrent use.
type ContextAppender interface {
	// AppendToolSchemas appends a schema message: a system message with
	// no content carrying defs (origin injection, dynamic_tool_schema).
	AppendToolSchemas(ctx context.Context, defs []llm.Tool) error
	// AppendSkill appends the user message of a skill activation (origin
	// skill_activation).
	AppendSkill(ctx context.Context, a SkillActivation) error
	// LoadedTools are the dynamic tools whose schemas history carries.
	LoadedTools() []string
}

// SkillActivation is one skill the Skill tool loaded (spec 05 §9.5).
type SkillActivation struct {
	Name    string
	Args    string
	Source  string
	Dir     string
	Path    string
	Type    string
	Trigger string // "model-tool" or "nested-skill"
	// Text is the whole user message: the instruction line and the
	// <kimi-skill-loaded> block with the rendered body.
	Text string
}

// SkillRegistry is the session's skills as the Skill tool sees them
// (profile/skill.Registry implements it). Safe for concurrent use.
type SkillRegistry interface {
	// Lookup finds a skill by name, ignoring case.
	Lookup(name string) (skill.Skill, bool)
	// HasModelInvocable reports whether the model may load any skill.
	HasModelInvocable() bool
}

// SubagentLauncher is one agent's subagent host as the Agent tool sees it
// (the session implements it, spec 05 §5). Safe for concurrent use.
type SubagentLauncher interface {
	// Types are the profiles the agent may delegate to (spec 05 §5.2),
	// sorted by name.
	Types() []SubagentType
	// Timeout is the subagent deadline (spec 05 §5.8); 0 means none.
	Timeout() time.Duration
	// ProfileOf is the profile of the agent's child id, "" when id is not
	// one of its children.
	ProfileOf(id string) string
	// Prepare checks a request and readies its child: a new one from a
	// profile, or the earlier child req.Resume names. A request that
	// cannot run (unknown or disallowed profile, a model that does not
	// resolve, an unknown or foreign or running child) is an error naming
	// the value, and nothing is spawned. The run starts with Run, or is
	// given up with Abandon.
	Prepare(ctx context.Context, req SubagentRequest) (SubagentRun, error)
}

// SubagentType is a profile a subagent can be spawned from, as the Agent
// tool's description lists it.
type SubagentType struct {
	Name, Description, WhenToUse string
	Tools, DisallowedTools       []string
}

// SubagentRequest is one Agent call.
type SubagentRequest struct {
	// Profile is the profile of a new child; Resume the agent id of an
	// earlier one (then Profile is empty).
	Profile, Resume string
	Prompt          string
	Description     string
	ToolCallID      string
	TurnID          string
	Background      bool
}

// SubagentRun is a prepared subagent run.
type SubagentRun interface {
	// AgentID is the child's agent id ("agent-3"); Profile its profile.
	AgentID() string
	Profile() string
	// Model and ThinkingEffort are the child's model alias and effort.
	Model() string
	ThinkingEffort() string
	// Run runs the child's turn to its handoff (re-asking once when it is
	// short) and returns the handoff text. ctx ending cancels the child
	// with ctx's cause. It is called once.
	Run(ctx context.Context) (string, error)
	// Abandon gives the run up before Run (the task could not be
	// registered).
	Abandon()
	// Detached tells the host the run left the foreground: a cancel of
	// the parent's turn no longer reaches it.
	Detached()
}

// Later collaborators (spec 05 §4.11–4.17, §11.1). Each arrives with the
// tools that use it:
//
// TODO(tools): PlanModeControl (enter/exit, plan file) with EnterPlanMode and ExitPlanMode.
// TODO(tools): GoalControl (create/get/budget/update) with the goal tools.
