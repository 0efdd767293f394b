package turn

import (
	"context"
	"time"

	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
)

// The small interfaces TurnFlow reaches the rest of the agent through
// (spec 03 §7.1). The agent implements them; tests may script any of them.
// TurnFlow never holds its own lock while calling one.

// History is the agent's context memory as a turn sees it. Every method is
// safe for concurrent use: the agent takes its state lock inside.
type History interface {
	// View projects the current history for the request view p (the
	// normal view for ProjectionNormal). The result is read-only.
	View(p loop.Projection) []llm.Message
	// CloseEvents returns the tool.result events that would close every
	// call still waiting for its result with an error carrying output, in
	// call order. Committing them closes the exchange.
	CloseEvents(output string) []loop.ToolResultEvent
}

// Committer is the agent's commit path: Commit makes one record of type typ
// with payload durable-in-order and applies it; Flush waits until every
// committed record is on stable storage; Written waits until every
// committed record is in the file (a killed process leaves it there), its
// fsync maybe still running. All are safe for concurrent use.
type Committer interface {
	Commit(ctx context.Context, typ records.Type, payload any) error
	Flush(ctx context.Context) error
	Written(ctx context.Context) error
}

// Compactor is the full-compaction seam (spec 03 §6). NoCompaction is the
// implementation used until compaction exists. Methods are called from the
// turn worker; IsCompacting also from Prompt and Steer, and must not call
// back into TurnFlow.
type Compactor interface {
	// ResetForTurn clears the per-turn counters at the start of a turn.
	ResetForTurn()
	// IsCompacting reports a compaction in flight; input arriving meanwhile
	// is buffered until OnCompactionFinished.
	IsCompacting() bool
	// BeforeStep may start a compaction and block the step on it.
	BeforeStep(ctx context.Context, turnID int) error
	// AfterStep runs after every sealed step.
	AfterStep(ctx context.Context)
	// EstimateCurrentRequestTokens estimates the next request's size.
	EstimateCurrentRequestTokens() int
	// ShouldRecoverFromContextOverflow reports whether a failed run is an
	// overflow compaction can fix.
	ShouldRecoverFromContextOverflow(err error, estimate int) bool
	// ObserveContextOverflow learns a smaller window from an overflow.
	ObserveContextOverflow(estimate int)
	// HandleOverflowError compacts after an overflow; an error fails the
	// turn, nil starts a new run.
	HandleOverflowError(ctx context.Context, err error) error
}

// NoCompaction is the Compactor of an agent without compaction: it never
// compacts, and an overflow fails the turn.
type NoCompaction struct{}

// ResetForTurn does nothing.
func (NoCompaction) ResetForTurn() {}

// IsCompacting reports false.
func (NoCompaction) IsCompacting() bool { return false }

// BeforeStep does nothing.
func (NoCompaction) BeforeStep(context.Context, int) error { return nil }

// AfterStep does nothing.
func (NoCompaction) AfterStep(context.Context) {}

// EstimateCurrentRequestTokens reports 0.
func (NoCompaction) EstimateCurrentRequestTokens() int { return 0 }

// ShouldRecoverFromContextOverflow reports false.
func (NoCompaction) ShouldRecoverFromContextOverflow(error, int) bool { return false }

// ObserveContextOverflow does nothing.
func (NoCompaction) ObserveContextOverflow(int) {}

// HandleOverflowError returns err: nothing can shrink the context.
func (NoCompaction) HandleOverflowError(_ context.Context, err error) error { return err }

// Injector adds reminders to history at turn and step boundaries (spec 03
// §1.6–1.7). Nil means no injections.
type Injector interface {
	// InjectForTurn runs once per turn, before the first step.
	InjectForTurn(ctx context.Context) error
	// InjectForStep runs in every step's BeforeStep, after compaction and
	// after buffered steers were delivered.
	InjectForStep(ctx context.Context) error
}

// PermissionGate decides whether a tool call may run (ERRATA 8). It is
// called on the turn goroutine and may block on an approval.
type PermissionGate interface {
	Authorize(ctx context.Context, call loop.ToolCtx) (loop.Authorization, error)
}

// ApproveAll is the PermissionGate that allows every call: the default of
// an agent without a permission manager (library use).
type ApproveAll struct{}

// Authorize allows the call.
func (ApproveAll) Authorize(context.Context, loop.ToolCtx) (loop.Authorization, error) {
	return loop.Authorization{}, nil
}

// GoalStore is the goal driver's view of goal mode (spec 03 §1.4). Nil
// means the agent has no goals. Its methods make their own records.
type GoalStore interface {
	// Active reports an active goal.
	Active() bool
	// OverBudget reports that the active goal used up a budget.
	OverBudget() bool
	// IncrementTurn counts a goal turn.
	IncrementTurn(ctx context.Context) error
	// RecordTokenUsage adds output tokens and reports whether the goal is
	// now over its token budget.
	RecordTokenUsage(ctx context.Context, output int) (overBudget bool, err error)
	// MarkBlocked, PauseActive and PauseOnInterrupt stop the goal driver
	// with a reason.
	MarkBlocked(ctx context.Context, reason string) error
	PauseActive(ctx context.Context, reason string) error
	PauseOnInterrupt(ctx context.Context, reason string) error
}

// GoalQueue is the goal driver's view of the queue of upcoming goals
// (/goal next), when the GoalStore has one: the next goal starts in the
// same worker, its objective as the user's prompt, once the turn that
// ended the last goal (or ran while a goal was queued with none current)
// completed.
type GoalQueue interface {
	// NextPending reports that a queued goal is due to start.
	NextPending() bool
	// TakeNext starts it and returns its objective; ok is false when none
	// is due.
	TakeNext(ctx context.Context) (objective string, ok bool, err error)
}

// HookEvent names a lifecycle hook event (spec 06 §6.4).
type HookEvent string

// The hook events a turn triggers.
const (
	HookUserPromptSubmit   HookEvent = "UserPromptSubmit"
	HookStop               HookEvent = "Stop"
	HookStopFailure        HookEvent = "StopFailure"
	HookInterrupt          HookEvent = "Interrupt"
	HookPostToolUse        HookEvent = "PostToolUse"
	HookPostToolUseFailure HookEvent = "PostToolUseFailure"
	// The compaction hooks; the agent runs them for its compaction.
	HookPreCompact  HookEvent = "PreCompact"
	HookPostCompact HookEvent = "PostCompact"
)

// HookResult is what one hook command decided.
type HookResult struct {
	// Block stops what the event guards; Reason and Message explain why.
	Block   bool
	Reason  string
	Message string
	// Stdout is the command's raw output when it was not structured.
	Stdout   string
	TimedOut bool
	ExitCode int
}

// HookRunner runs the user's lifecycle hooks (spec 03 §7.1, ERRATA 15).
// Nil means no hooks. Input keys are camelCase; the engine converts them.
type HookRunner interface {
	// Block runs the hooks of event that match matcher and waits for them.
	Block(ctx context.Context, event HookEvent, matcher string, input map[string]any) ([]HookResult, error)
	// Fire starts the hooks and does not wait.
	Fire(event HookEvent, matcher string, input map[string]any)
}

// UsageRecorder accounts token usage (spec 03 §5.2).
type UsageRecorder interface {
	// BeginTurn and EndTurn reset the current turn's usage.
	BeginTurn()
	EndTurn()
	// RecordStep records one step's usage under model, for the current
	// turn and the session.
	RecordStep(ctx context.Context, model string, u llm.TokenUsage) error
}

// LoopControl is the resolved loop_control of the configuration (ERRATA
// 16): TurnFlow reads no environment, it asks its getter at the start of
// every run.
type LoopControl struct {
	// MaxStepsPerTurn caps the steps of a run; 0 means no cap.
	MaxStepsPerTurn int
	// MaxRetriesPerStep is the attempts per request; 0 means the loop's
	// default.
	MaxRetriesPerStep int
	// StallTimeout and MaxRetryAfter are loop.RunTurnInput's: 0 means the
	// loop's default, negative no bound.
	StallTimeout  time.Duration
	MaxRetryAfter time.Duration
}
