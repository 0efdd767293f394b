package compaction

import (
	"context"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
)

// The small interfaces a FullCompaction reaches its agent through (spec 03
// §7.1, §7.5). The agent implements them with adapters; tests script them.
// A FullCompaction never holds its own lock while calling one of them.

// History is the agent's context memory as a compaction reads it. Every
// method is safe for concurrent use: the agent takes its state lock inside.
type History interface {
	// History returns a snapshot of the stored conversation. It never
	// changes afterwards and must be treated as read-only.
	History() []history.Message
	// TokenCountWithPending is the last reported context size plus the
	// estimate of the messages it does not cover yet.
	TokenCountWithPending() int
	// Messages is the normal projection of the current history: what the
	// next request would carry.
	Messages() []llm.Message
}

// Committer is the agent's commit path. Both methods are safe for
// concurrent use.
type Committer interface {
	// Commit makes one record of type typ with payload durable-in-order
	// and applies it.
	Commit(ctx context.Context, typ records.Type, payload any) error
	// CommitCompaction calls build with the live memory under the agent's
	// state lock. When build fails nothing is written and its error is
	// returned; otherwise the record it returns is committed as
	// context.apply_compaction and applied before the lock is released, so
	// nothing can slip in between the race checks and the rewrite.
	CommitCompaction(ctx context.Context, build func(m *history.Memory) (history.ApplyCompactionRecord, error)) error
}

// Turns is the agent's TurnFlow as a compaction sees it. The lock order is
// TurnFlow, then FullCompaction: TurnFlow may call IsCompacting with its
// lock held, so a FullCompaction calls these only with its own lock
// released.
type Turns interface {
	// HasActiveTurn reports a running turn.
	HasActiveTurn() bool
	// CurrentID is the last allocated turn id.
	CurrentID() int
	// OnCompactionFinished delivers the input that waited for the
	// compaction (spec 03 §1.2). It is called once per compaction, in
	// every terminal path.
	OnCompactionFinished(ctx context.Context)
}

// GenerateFunc is the agent's choke point for model requests (spec 03
// §2.1): request records, durability, credentials. Compaction requests
// carry loop.RequestLogFields{Kind: "compaction", DroppedCount: …}.
type GenerateFunc func(ctx context.Context, p llm.Provider, req llm.Request, cb llm.Callbacks,
	fields loop.RequestLogFields) (*llm.Result, error)

// Model is the model a compaction sizes against and summarises with, read
// at every use so that a model switch applies at once.
type Model struct {
	// Provider is the long-lived provider; the compaction never modifies
	// it. Nil means no model is configured.
	Provider llm.Provider
	// Alias names the model for the observed window (spec 03 §6.2); empty
	// means the provider's model name.
	Alias string
	// SystemPrompt is the loop's system prompt; the summary request reuses
	// it so that the provider's prompt cache stays warm.
	SystemPrompt string
	// Capability is the resolved capability; the zero value is unknown.
	Capability llm.Capability
	// Budget holds the completion-cap settings; a compaction caps its
	// output at min(window, 131,072) unless they say otherwise (spec 03
	// §2.5).
	Budget llm.BudgetInputs
	// Strategy decides when to compact (config loop_control).
	Strategy StrategyOptions
}

// UsageRecorder accounts the summariser's token usage with session scope:
// it counts for the session, never for the running turn (spec 03 §5.3).
type UsageRecorder interface {
	RecordUsage(ctx context.Context, model string, u llm.TokenUsage) error
}

// Hooks runs the user's compaction hooks (spec 03 §6.15). The agent adapts
// the hook engine: the matcher is the trigger, and the inputs are
// {trigger, tokenCount} and {trigger, estimatedTokenCount}.
type Hooks interface {
	// PreCompact runs the PreCompact hooks and waits for them; it returns
	// early when ctx ends.
	PreCompact(ctx context.Context, trigger Source, tokenCount int)
	// PostCompact starts the PostCompact hooks and does not wait.
	PostCompact(trigger Source, estimatedTokenCount int)
}

// Todo is one item of the agent's todo list, re-attached to every summary.
type Todo struct {
	Title string
	// Status is pending, in_progress or done.
	Status string
}
