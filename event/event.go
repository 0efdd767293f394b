package event

import (
	"encoding/json"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/plainjson"
	"github.com/kimigo/kimigo/loop"
)

// Type names an event. It is written as the event's "type" key.
type Type string

// Event types (spec 03 §1.11, §5.6, §6.15, spec 06 §9).
const (
	TypeTurnStarted         Type = "turn.started"
	TypeStepStarted         Type = "turn.step.started"
	TypeAssistantDelta      Type = "assistant.delta"
	TypeThinkingDelta       Type = "thinking.delta"
	TypeToolCallDelta       Type = "tool.call.delta"
	TypeToolCallStarted     Type = "tool.call.started"
	TypeToolProgress        Type = "tool.progress"
	TypeToolResult          Type = "tool.result"
	TypeStepCompleted       Type = "turn.step.completed"
	TypeStepRetrying        Type = "turn.step.retrying"
	TypeStepInterrupted     Type = "turn.step.interrupted"
	TypeTurnEnded           Type = "turn.ended"
	TypeError               Type = "error"
	TypeHookResult          Type = "hook.result"
	TypeStatus              Type = "agent.status.updated"
	TypeCompactionStarted   Type = "compaction.started"
	TypeCompactionBlocked   Type = "compaction.blocked"
	TypeCompactionCompleted Type = "compaction.completed"
	TypeCompactionCancelled Type = "compaction.cancelled"
	TypeApprovalRequested   Type = "approval.requested"
	TypeQuestionRequested   Type = "question.requested"
	TypeRequestClosed       Type = "request.closed"
	TypeNotice              Type = "notice"
	TypeTaskStarted         Type = "background.task.started"
	TypeTaskTerminated      Type = "background.task.terminated"
	TypeCronFired           Type = "cron.fired"
	TypeMCPServer           Type = "mcp.server.updated"
	TypeShellStarted        Type = "shell.started"
	TypeShellOutput         Type = "shell.output"
	TypeGoalUpdated         Type = "goal.updated"
	TypeSubagentSpawned     Type = "subagent.spawned"
	TypeSubagentStarted     Type = "subagent.started"
	TypeSubagentCompleted   Type = "subagent.completed"
	TypeSubagentFailed      Type = "subagent.failed"
	TypeSubagentSuspended   Type = "subagent.suspended"
)

// NoTurn is the TurnID of an event that belongs to no turn: a status
// update, a compaction the user asked for between turns, a notice.
const NoTurn = -1

// Header is what every event carries: the agent that published it, the
// turn it belongs to (NoTurn for none) and its place in the stream. Seq
// is set by the Bus: it increases strictly along one bus's stream, which
// carries a main agent and its subagents alike; coalesced deltas leave
// gaps in it.
type Header struct {
	AgentID string `json:"agentId,omitempty"`
	TurnID  int    `json:"turnId"`
	Seq     uint64 `json:"seq,omitempty"`
}

// EventHeader returns h; every event has it through its embedded Header.
func (h Header) EventHeader() Header { return h }

// InTurn is the header of an event of turn id, before the publisher
// stamps its agent id and the bus its sequence number.
func InTurn(id int) Header { return Header{TurnID: id} }

// Event is one event of the stream a front end reads: one of the structs
// of this package, each embedding a Header. The set is closed, so a front
// end can switch over it exhaustively; a type it does not render it may
// skip. Every event marshals (Marshal) to one JSON object whose first key
// is "type", followed by the header's and the event's own fields.
type Event interface {
	EventType() Type
	EventHeader() Header
	// withHeader returns a copy of the event with h as its header.
	withHeader(h Header) Event
}

// WithAgent returns ev with its header's AgentID set to id: what an
// agent does to every event it publishes.
func WithAgent(ev Event, id string) Event {
	h := ev.EventHeader()
	h.AgentID = id
	return ev.withHeader(h)
}

// EndReason says how a turn ended.
type EndReason string

// Turn end reasons.
const (
	EndCompleted EndReason = "completed"
	EndCancelled EndReason = "cancelled"
	EndFailed    EndReason = "failed"
	EndBlocked   EndReason = "blocked"
)

// TurnStarted opens a turn; every other event of the turn follows it.
// Origin is the kind of input that started it ("user", "system_trigger",
// "background_task", "cron_job", "retry", …; spec 02 §1.3).
type TurnStarted struct {
	Header
	Origin string `json:"origin,omitempty"`
}

// StepStarted opens a step: one model response and the tool calls it
// asked for.
type StepStarted struct {
	Header
	Step   int    `json:"step"`
	StepID string `json:"stepId"`
}

// AssistantDelta is streamed answer text. A subscriber that falls behind
// may get several deltas of one turn merged into one.
type AssistantDelta struct {
	Header
	Delta string `json:"delta"`
}

// ThinkingDelta is streamed reasoning; it coalesces like AssistantDelta.
type ThinkingDelta struct {
	Header
	Delta string `json:"delta"`
}

// ToolCallDelta is a streamed piece of a tool call's arguments. Deltas of
// one call coalesce.
type ToolCallDelta struct {
	Header
	ToolCallID    string `json:"toolCallId"`
	Name          string `json:"name,omitempty"`
	ArgumentsPart string `json:"argumentsPart,omitempty"`
}

// ToolCallStarted is a tool call the model made, recorded before it runs.
// Args are the model's arguments as JSON, in the model's key order.
type ToolCallStarted struct {
	Header
	ToolCallID  string          `json:"toolCallId"`
	Name        string          `json:"name"`
	Args        json.RawMessage `json:"args"`
	Description string          `json:"description,omitempty"`
	Display     loop.Display    `json:"display,omitempty"`
}

// ToolProgress is progress of a running tool. Text-only updates of one
// call and kind (a command's output) coalesce.
type ToolProgress struct {
	Header
	ToolCallID string              `json:"toolCallId"`
	Update     loop.ProgressUpdate `json:"update"`
}

// ToolResult is a tool call's result. Output is the raw output; a front
// end styles failures from IsError. Message and Brief are the tool's
// summaries for people.
type ToolResult struct {
	Header
	ToolCallID string      `json:"toolCallId"`
	Output     loop.Output `json:"output"`
	IsError    bool        `json:"isError,omitempty"`
	Message    string      `json:"message,omitempty"`
	Brief      string      `json:"brief,omitempty"`
}

// StepCompleted seals a step, with its usage and stream timing.
type StepCompleted struct {
	Header
	Step                   int              `json:"step"`
	StepID                 string           `json:"stepId"`
	Usage                  *llm.TokenUsage  `json:"usage,omitempty"`
	FinishReason           loop.StopReason  `json:"finishReason,omitempty"`
	LLMFirstTokenLatencyMs *int64           `json:"llmFirstTokenLatencyMs,omitempty"`
	LLMStreamDurationMs    *int64           `json:"llmStreamDurationMs,omitempty"`
	LLMRequestBuildMs      *int64           `json:"llmRequestBuildMs,omitempty"`
	LLMServerFirstTokenMs  *int64           `json:"llmServerFirstTokenMs,omitempty"`
	LLMServerDecodeMs      *int64           `json:"llmServerDecodeMs,omitempty"`
	LLMClientConsumeMs     *int64           `json:"llmClientConsumeMs,omitempty"`
	ProviderFinishReason   llm.FinishReason `json:"providerFinishReason,omitempty"`
	RawFinishReason        string           `json:"rawFinishReason,omitempty"`
}

// StepRetrying announces a retry of the step's request; a front end drops
// the text the failed attempt streamed.
type StepRetrying struct {
	Header
	Step          int    `json:"step"`
	StepID        string `json:"stepId"`
	FailedAttempt int    `json:"failedAttempt"`
	NextAttempt   int    `json:"nextAttempt"`
	MaxAttempts   int    `json:"maxAttempts"`
	DelayMs       int64  `json:"delayMs"`
	ErrorName     string `json:"errorName"`
	ErrorMessage  string `json:"errorMessage"`
	StatusCode    int    `json:"statusCode,omitempty"`
}

// StepInterrupted reports the step a cancelled or failed run stopped in.
type StepInterrupted struct {
	Header
	Step    int                  `json:"step"`
	Reason  loop.InterruptReason `json:"reason"`
	Message string               `json:"message,omitempty"`
}

// TurnEnded closes a turn. Only the turn's Error event may follow it.
type TurnEnded struct {
	Header
	Reason     EndReason     `json:"reason"`
	Error      *ErrorPayload `json:"error,omitempty"`
	DurationMs int64         `json:"durationMs"`
	// RepeatStop is set when the repeat guard ended the turn (spec 03
	// §3.4). The turn still ends completed (§1.15); a front end that needs
	// the task finished, such as print mode, treats it as a failure.
	RepeatStop *RepeatStop `json:"repeatStop,omitempty"`
}

// RepeatStop says that the repeat guard stopped a turn: the model called
// Tool with the same arguments Calls times in a row.
type RepeatStop struct {
	Tool  string `json:"tool"`
	Calls int    `json:"calls"`
}

// Error reports an error the user should see: a failed turn (after its
// TurnEnded), a prompt refused while a turn runs, a failed compaction.
type Error struct {
	Header
	ErrorPayload
}

// HookResult reports what a UserPromptSubmit hook added or blocked.
type HookResult struct {
	Header
	HookEvent string `json:"hookEvent"`
	Content   string `json:"content"`
	Blocked   bool   `json:"blocked,omitempty"`
}

// Status is what a status line shows (spec 03 §5.6), published after the
// context size, the usage, the model or the permission mode changed.
type Status struct {
	Header
	Model            string   `json:"model,omitempty"`
	ContextTokens    int      `json:"contextTokens"`
	MaxContextTokens int      `json:"maxContextTokens,omitempty"`
	ContextUsage     *float64 `json:"contextUsage,omitempty"`
	// Permission is the permission mode; empty for an agent without a
	// permission manager.
	Permission PermissionMode `json:"permission,omitempty"`
	// PlanMode is set while plan mode is on (spec 04 §1.4).
	PlanMode bool `json:"planMode,omitempty"`
	// SwarmMode is set while swarm mode is on (spec 04 §7).
	SwarmMode bool   `json:"swarmMode,omitempty"`
	Usage     *Usage `json:"usage,omitempty"`
}

// Usage is an agent's token accounting: per model, in total, and for the
// running turn. Nil fields have nothing to report.
type Usage struct {
	ByModel     map[string]llm.TokenUsage `json:"byModel,omitempty"`
	Total       *llm.TokenUsage           `json:"total,omitempty"`
	CurrentTurn *llm.TokenUsage           `json:"currentTurn,omitempty"`
}

// PermissionMode is an agent's permission mode (spec 04 §1): "manual"
// asks before side effects, "auto" never asks, "yolo" approves ordinary
// calls and still asks about risky ones.
type PermissionMode string

// Permission modes.
const (
	ModeManual PermissionMode = "manual"
	ModeAuto   PermissionMode = "auto"
	ModeYolo   PermissionMode = "yolo"
)

// CompactionStarted reports a compaction that began; Trigger is "manual"
// or "auto".
type CompactionStarted struct {
	Header
	Trigger     string `json:"trigger"`
	Instruction string `json:"instruction,omitempty"`
}

// CompactionBlocked reports a turn that waits for the running compaction.
type CompactionBlocked struct {
	Header
}

// CompactionCompleted reports a compaction that rewrote history.
type CompactionCompleted struct {
	Header
	Result CompactionResult `json:"result"`
}

// CompactionResult is what a compaction did.
type CompactionResult struct {
	Summary                  string `json:"summary"`
	CompactedCount           int    `json:"compactedCount"`
	TokensBefore             int    `json:"tokensBefore"`
	TokensAfter              int    `json:"tokensAfter"`
	KeptUserMessageCount     int    `json:"keptUserMessageCount"`
	KeptHeadUserMessageCount *int   `json:"keptHeadUserMessageCount,omitempty"`
	DroppedCount             *int   `json:"droppedCount,omitempty"`
}

// CompactionCancelled reports a compaction that ended without rewriting
// history: cancelled, raced or failed (a failure also sends an Error).
type CompactionCancelled struct {
	Header
}

// ApprovalRequested asks the user whether a tool call may run. The turn
// waits until the front end answers RequestID (Session.AnswerApproval) or
// the turn is cancelled; RequestClosed follows either way.
type ApprovalRequested struct {
	Header
	RequestID  string `json:"requestId"`
	ToolCallID string `json:"toolCallId"`
	ToolName   string `json:"toolName"`
	// Action is a one-line description of the call ("Running: make").
	Action  string       `json:"action"`
	Display loop.Display `json:"display,omitempty"`
	// OnceOnly marks a request whose answer is never remembered (a plan
	// review, a goal start): front ends offer no "for the session" or
	// "always" choice, and such an answer approves this call only.
	OnceOnly bool `json:"onceOnly,omitempty"`
}

// ApprovalAnswer is the user's answer to an ApprovalRequested.
type ApprovalAnswer struct {
	Choice Choice `json:"choice"`
	// Feedback is what the user typed with a rejection; the model reads
	// it.
	Feedback string `json:"feedback,omitempty"`
	// SelectedLabel is the option the user picked when the request offered
	// labelled options (a plan review).
	SelectedLabel string `json:"selectedLabel,omitempty"`
}

// Choice is one of the answers a front end offers (ERRATA 10).
type Choice string

// Choices.
const (
	// ApproveOnce runs this call.
	ApproveOnce Choice = "approve_once"
	// ApproveSession runs it and every call of the same rule for the rest
	// of the session.
	ApproveSession Choice = "approve_session"
	// ApproveAlways also writes an allow rule to the user's config.toml.
	ApproveAlways Choice = "approve_always"
	// Reject refuses the call; the model reads why.
	Reject Choice = "reject"
	// Dismiss closes the request without a decision: the call is not run.
	Dismiss Choice = "dismiss"
)

// QuestionRequested puts structured questions to the user (the
// AskUserQuestion tool). The turn waits until the front end answers
// RequestID (Session.AnswerQuestion) or the turn is cancelled;
// RequestClosed follows either way.
type QuestionRequested struct {
	Header
	RequestID  string     `json:"requestId"`
	ToolCallID string     `json:"toolCallId"`
	Questions  []Question `json:"questions"`
}

// Question is one question with the answers the user may pick.
type Question struct {
	Question    string           `json:"question"`
	Header      string           `json:"header"`
	Options     []QuestionOption `json:"options"`
	MultiSelect bool             `json:"multiSelect,omitempty"`
}

// QuestionOption is one answer the user may pick.
type QuestionOption struct {
	Label       string `json:"label"`
	Description string `json:"description"`
}

// RequestClosed says an approval or question request is no longer open:
// answered, or withdrawn because its turn was cancelled or nobody can
// answer it. A front end closes its panel.
type RequestClosed struct {
	Header
	RequestID string `json:"requestId"`
	// Outcome is "answered", "cancelled" or "declined" (no front end
	// answers requests, so it was denied or dismissed at once).
	Outcome string `json:"outcome"`
}

// Request outcomes.
const (
	OutcomeAnswered  = "answered"
	OutcomeCancelled = "cancelled"
	OutcomeDeclined  = "declined"
)

// Notice is something the user should hear that is neither an error nor
// part of a turn: a resumed session's model fell back to the default, a
// record kimigo cannot restore yet was kept unapplied.
type Notice struct {
	Header
	Level NoticeLevel `json:"level"`
	Text  string      `json:"text"`
}

// NoticeLevel grades a Notice.
type NoticeLevel string

// Notice levels.
const (
	NoticeInfo    NoticeLevel = "info"
	NoticeWarning NoticeLevel = "warning"
)

// TaskStarted reports a background task that started, or moved to the
// background from the foreground (spec 05 §6.8).
type TaskStarted struct {
	Header
	Task Task `json:"task"`
}

// TaskTerminated reports a background task that ended, or that a resume
// found lost.
type TaskTerminated struct {
	Header
	Task Task `json:"task"`
}

// Task is a background task as a front end shows it (spec 05 §6.1).
type Task struct {
	ID          string `json:"taskId"`
	Kind        string `json:"kind"` // process, agent, question
	Description string `json:"description"`
	// Status is running, then completed, failed, timed_out, killed or
	// lost.
	Status string `json:"status"`
	// Detached is false while a tool call waits for the task.
	Detached bool `json:"detached"`
	// StartedAt and EndedAt are epoch milliseconds; EndedAt is nil while
	// the task runs.
	StartedAt  int64  `json:"startedAt"`
	EndedAt    *int64 `json:"endedAt,omitempty"`
	StopReason string `json:"stopReason,omitempty"`
	// Command and ExitCode are a process task's.
	Command  string `json:"command,omitempty"`
	ExitCode *int   `json:"exitCode,omitempty"`
	// SubagentID is an agent task's agent.
	SubagentID string `json:"subagentId,omitempty"`
}

// SubagentSpawned reports a subagent created (or resumed) by the agent
// of the header (spec 05 §5.3 step 5); the child's own events carry
// SubagentID as their AgentID.
type SubagentSpawned struct {
	Header
	SubagentID       string `json:"subagentId"`
	SubagentName     string `json:"subagentName"`
	ParentToolCallID string `json:"parentToolCallId,omitempty"`
	ParentAgentID    string `json:"parentAgentId"`
	Description      string `json:"description,omitempty"`
	SwarmIndex       *int   `json:"swarmIndex,omitempty"`
	RunInBackground  bool   `json:"runInBackground"`
	Resumed          bool   `json:"resumed,omitempty"`
}

// SubagentStarted reports a subagent's turn about to start (spec 05 §5.4).
type SubagentStarted struct {
	Header
	SubagentID string `json:"subagentId"`
}

// SubagentCompleted reports a subagent's handoff (spec 05 §5.5 step 5):
// its final text, its total usage and its context size.
type SubagentCompleted struct {
	Header
	SubagentID    string `json:"subagentId"`
	ResultSummary string `json:"resultSummary"`
	Usage         Usage  `json:"usage"`
	ContextTokens int    `json:"contextTokens"`
}

// SubagentFailed reports a subagent that ended without a handoff.
type SubagentFailed struct {
	Header
	SubagentID string `json:"subagentId"`
	Error      string `json:"error"`
}

// SubagentSuspended reports a subagent held back, for example by a
// provider's rate limit, to be retried later.
type SubagentSuspended struct {
	Header
	SubagentID string `json:"subagentId"`
	Reason     string `json:"reason"`
}

// CronFired reports a scheduled prompt that fired (spec 05 §7.5): it goes
// to the agent as steered input.
type CronFired struct {
	Header
	JobID  string `json:"jobId"`
	Prompt string `json:"prompt"`
}

// MCPServer reports an MCP server's status after it changed (spec 06
// §7.3): connecting (pending), connected with its tool count, failed with
// the reason and the stderr tail, or disabled.
type MCPServer struct {
	Header
	Name      string `json:"name"`
	Status    string `json:"status"`
	ToolCount int    `json:"toolCount"`
	Error     string `json:"error,omitempty"`
}

// ShellStarted reports that a user shell command (!cmd, spec 05 §2.7)
// registered its foreground task.
type ShellStarted struct {
	Header
	CommandID string `json:"commandId"`
	TaskID    string `json:"taskId"`
}

// ShellOutput is a chunk of a user shell command's output.
type ShellOutput struct {
	Header
	CommandID string `json:"commandId"`
	Text      string `json:"text"`
}

// GoalUpdated reports a change of the agent's goal (spec 04 §6.1): the
// goal as it is now, nil when there is none, and, for a change of status
// or a completion, what changed.
type GoalUpdated struct {
	Header
	Goal   *Goal       `json:"snapshot"`
	Change *GoalChange `json:"change,omitempty"`
}

// Goal is a goal as a front end shows it: status, work done and budgets.
// WallClockMs is the active time when the event was published.
type Goal struct {
	GoalID              string `json:"goalId,omitempty"`
	Objective           string `json:"objective"`
	CompletionCriterion string `json:"completionCriterion,omitempty"`
	// Status is active, paused, blocked or complete.
	Status      string `json:"status"`
	TurnsUsed   int    `json:"turnsUsed"`
	TokensUsed  int    `json:"tokensUsed"`
	WallClockMs int64  `json:"wallClockMs"`
	// The budgets; nil means none.
	TurnBudget        *int   `json:"turnBudget,omitempty"`
	TokenBudget       *int   `json:"tokenBudget,omitempty"`
	WallClockBudgetMs *int64 `json:"wallClockBudgetMs,omitempty"`
	// TerminalReason says why the goal last stopped or completed.
	TerminalReason string `json:"terminalReason,omitempty"`
}

// GoalChange is what changed: Kind is lifecycle (a status change) or
// completion (with the totals in Stats); Actor is user, model, runtime or
// system.
type GoalChange struct {
	Kind   string     `json:"kind"`
	Status string     `json:"status,omitempty"`
	Reason string     `json:"reason,omitempty"`
	Stats  *GoalStats `json:"stats,omitempty"`
	Actor  string     `json:"actor,omitempty"`
}

// GoalStats are a goal's totals when it completed.
type GoalStats struct {
	TurnsUsed   int   `json:"turnsUsed"`
	TokensUsed  int   `json:"tokensUsed"`
	WallClockMs int64 `json:"wallClockMs"`
}

// EventType implementations.
func (TurnStarted) EventType() Type         { return TypeTurnStarted }
func (StepStarted) EventType() Type         { return TypeStepStarted }
func (AssistantDelta) EventType() Type      { return TypeAssistantDelta }
func (ThinkingDelta) EventType() Type       { return TypeThinkingDelta }
func (ToolCallDelta) EventType() Type       { return TypeToolCallDelta }
func (ToolCallStarted) EventType() Type     { return TypeToolCallStarted }
func (ToolProgress) EventType() Type        { return TypeToolProgress }
func (ToolResult) EventType() Type          { return TypeToolResult }
func (StepCompleted) EventType() Type       { return TypeStepCompleted }
func (StepRetrying) EventType() Type        { return TypeStepRetrying }
func (StepInterrupted) EventType() Type     { return TypeStepInterrupted }
func (TurnEnded) EventType() Type           { return TypeTurnEnded }
func (Error) EventType() Type               { return TypeError }
func (HookResult) EventType() Type          { return TypeHookResult }
func (Status) EventType() Type              { return TypeStatus }
func (CompactionStarted) EventType() Type   { return TypeCompactionStarted }
func (CompactionBlocked) EventType() Type   { return TypeCompactionBlocked }
func (CompactionCompleted) EventType() Type { return TypeCompactionCompleted }
func (CompactionCancelled) EventType() Type { return TypeCompactionCancelled }
func (ApprovalRequested) EventType() Type   { return TypeApprovalRequested }
func (QuestionRequested) EventType() Type   { return TypeQuestionRequested }
func (RequestClosed) EventType() Type       { return TypeRequestClosed }
func (Notice) EventType() Type              { return TypeNotice }
func (TaskStarted) EventType() Type         { return TypeTaskStarted }
func (TaskTerminated) EventType() Type      { return TypeTaskTerminated }
func (CronFired) EventType() Type           { return TypeCronFired }
func (MCPServer) EventType() Type           { return TypeMCPServer }
func (ShellStarted) EventType() Type        { return TypeShellStarted }
func (ShellOutput) EventType() Type         { return TypeShellOutput }
func (GoalUpdated) EventType() Type         { return TypeGoalUpdated }
func (SubagentSpawned) EventType() Type     { return TypeSubagentSpawned }
func (SubagentStarted) EventType() Type     { return TypeSubagentStarted }
func (SubagentCompleted) EventType() Type   { return TypeSubagentCompleted }
func (SubagentFailed) EventType() Type      { return TypeSubagentFailed }
func (SubagentSuspended) EventType() Type   { return TypeSubagentSuspended }

// withHeader implementations.
func (e TurnStarted) withHeader(h Header) Event         { e.Header = h; return e }
func (e StepStarted) withHeader(h Header) Event         { e.Header = h; return e }
func (e AssistantDelta) withHeader(h Header) Event      { e.Header = h; return e }
func (e ThinkingDelta) withHeader(h Header) Event       { e.Header = h; return e }
func (e ToolCallDelta) withHeader(h Header) Event       { e.Header = h; return e }
func (e ToolCallStarted) withHeader(h Header) Event     { e.Header = h; return e }
func (e ToolProgress) withHeader(h Header) Event        { e.Header = h; return e }
func (e ToolResult) withHeader(h Header) Event          { e.Header = h; return e }
func (e StepCompleted) withHeader(h Header) Event       { e.Header = h; return e }
func (e StepRetrying) withHeader(h Header) Event        { e.Header = h; return e }
func (e StepInterrupted) withHeader(h Header) Event     { e.Header = h; return e }
func (e TurnEnded) withHeader(h Header) Event           { e.Header = h; return e }
func (e Error) withHeader(h Header) Event               { e.Header = h; return e }
func (e HookResult) withHeader(h Header) Event          { e.Header = h; return e }
func (e Status) withHeader(h Header) Event              { e.Header = h; return e }
func (e CompactionStarted) withHeader(h Header) Event   { e.Header = h; return e }
func (e CompactionBlocked) withHeader(h Header) Event   { e.Header = h; return e }
func (e CompactionCompleted) withHeader(h Header) Event { e.Header = h; return e }
func (e CompactionCancelled) withHeader(h Header) Event { e.Header = h; return e }
func (e ApprovalRequested) withHeader(h Header) Event   { e.Header = h; return e }
func (e QuestionRequested) withHeader(h Header) Event   { e.Header = h; return e }
func (e RequestClosed) withHeader(h Header) Event       { e.Header = h; return e }
func (e Notice) withHeader(h Header) Event              { e.Header = h; return e }
func (e TaskStarted) withHeader(h Header) Event         { e.Header = h; return e }
func (e TaskTerminated) withHeader(h Header) Event      { e.Header = h; return e }
func (e CronFired) withHeader(h Header) Event           { e.Header = h; return e }
func (e MCPServer) withHeader(h Header) Event           { e.Header = h; return e }
func (e ShellStarted) withHeader(h Header) Event        { e.Header = h; return e }
func (e ShellOutput) withHeader(h Header) Event         { e.Header = h; return e }
func (e GoalUpdated) withHeader(h Header) Event         { e.Header = h; return e }
func (e SubagentSpawned) withHeader(h Header) Event     { e.Header = h; return e }
func (e SubagentStarted) withHeader(h Header) Event     { e.Header = h; return e }
func (e SubagentCompleted) withHeader(h Header) Event   { e.Header = h; return e }
func (e SubagentFailed) withHeader(h Header) Event      { e.Header = h; return e }
func (e SubagentSuspended) withHeader(h Header) Event   { e.Header = h; return e }

// Marshal encodes ev as one JSON object whose first key is "type",
// followed by the header's fields and the event's own, without HTML
// escaping.
func Marshal(ev Event) ([]byte, error) {
	body, err := plainjson.Marshal(ev)
	if err != nil {
		return nil, err
	}
	out := append([]byte(`{"type":`), plainjson.Quote(string(ev.EventType()))...)
	if len(body) > 2 {
		out = append(out, ',')
		out = append(out, body[1:len(body)-1]...)
	}
	return append(out, '}'), nil
}
