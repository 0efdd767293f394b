package agent

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/kimigo/kimigo/agent/compaction"
	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/agent/turn"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/tools"
)

// CompactionOptions configure the agent's full compaction (spec 03 §6);
// when to compact comes with the model (ModelBinding.Compaction). The
// zero value keeps the system prompt as it is.
type CompactionOptions struct {
	// SystemPrompt re-renders the system prompt after a compaction (spec
	// 03 §6.14); a changed prompt is recorded as config.update, so resume
	// restores it. Nil keeps the prompt; an error is logged and ignored.
	SystemPrompt func(ctx context.Context) (string, error)
}

// ErrCompactionUnavailable refuses a manual compaction on an agent whose
// Options.Compactor cannot compact on request.
var ErrCompactionUnavailable = errors.New("this agent's compactor does not compact on request")

// manualCompactor is what a compactor needs for Compact and
// CancelCompaction; compaction.FullCompaction has it.
type manualCompactor interface {
	Compact(ctx context.Context, instruction string) error
	Wait(ctx context.Context) error
	Cancel(ctx context.Context) error
	IsCompacting() bool
}

// newCompactor is the turn's compactor: Options.Compactor when set,
// else a full compaction over this agent.
func (a *Agent) newCompactor() turn.Compactor {
	if a.o.Compactor != nil {
		return a.o.Compactor
	}
	h := compactionHost{a}
	c := compaction.New(compaction.Options{
		History:             h,
		Commit:              h,
		Turns:               h,
		Model:               a.compactionModel,
		Tools:               a.toolDefinitions,
		Generate:            a.generate,
		Usage:               h,
		Events:              h,
		Hooks:               h,
		RefreshSystemPrompt: a.refreshSystemPrompt,
		Reinject:            a.reinject,
		Todos:               a.todos,
		Logger:              a.logger,
	})
	a.compactor = c
	return c
}

// Compact compacts the conversation now (spec 03 §6.15, the TUI's
// /compact): the model writes a handoff note, optionally focused by
// instruction, and history becomes the user's own messages followed by
// it. It returns when the compaction ended: nil when it completed (or
// yielded to a change of history), a compaction.unable error while a turn
// runs or with nothing to compact, the compaction.failed error of a
// failed round, turn.ErrClosed when Close stopped it, or the error of
// flushing the records it wrote. Cancelling ctx cancels the compaction
// and leaves history as it was. Input that arrives meanwhile waits and is
// delivered afterwards. Safe for concurrent use.
func (a *Agent) Compact(ctx context.Context, instruction string) error {
	c, ok := a.turnsCompactor().(manualCompactor)
	if !ok {
		return ErrCompactionUnavailable
	}
	if err := c.Compact(ctx, instruction); err != nil {
		return err
	}
	err := c.Wait(ctx)
	if ctx.Err() != nil {
		// Wait gave up on ctx: cancel the compaction it waited for and
		// wait until it is over, so history is settled when we return.
		stop := context.WithoutCancel(ctx)
		if cerr := c.Cancel(stop); cerr != nil {
			a.logger.Warn("cancel compaction failed", "error", cerr)
		}
		_ = c.Wait(stop) // its outcome is the cancel
		return ctx.Err()
	}
	if err != nil {
		return err
	}
	// Like a turn's end, the end of a manual compaction is a flush point
	// (ERRATA 6): the rewrite is durable when Compact returns.
	if err := a.log.Flush(ctx); err != nil {
		if errors.Is(err, records.ErrClosed) {
			return turn.ErrClosed // Close stopped the compaction
		}
		return err
	}
	return nil
}

// CancelCompaction stops the running compaction, if any (spec 03 §6.7): it
// records full_compaction.cancel, emits compaction.cancelled and leaves
// history as it was. A compaction already rewriting history completes.
// Safe for concurrent use.
func (a *Agent) CancelCompaction(ctx context.Context) error {
	if c, ok := a.turnsCompactor().(manualCompactor); ok {
		return c.Cancel(ctx)
	}
	return nil
}

// IsCompacting reports a compaction in flight.
func (a *Agent) IsCompacting() bool {
	if c, ok := a.turnsCompactor().(manualCompactor); ok {
		return c.IsCompacting()
	}
	return false
}

// estimateCurrentRequestTokens is the local estimate of the next request
// (system prompt, offered tools, projected history) that compaction sizes
// against (spec 03 §5.5); 0 with a compactor that does not estimate.
func (a *Agent) estimateCurrentRequestTokens() int {
	return a.turnsCompactor().EstimateCurrentRequestTokens()
}

func (a *Agent) turnsCompactor() turn.Compactor {
	if a.compactor != nil {
		return a.compactor
	}
	if a.o.Compactor != nil {
		return a.o.Compactor
	}
	return turn.NoCompaction{}
}

// compactionModel is the model a compaction sizes against and summarises
// with, read at every use so that a model switch applies at once: its
// provider, window, budget and strategy come from the binding in use.
func (a *Agent) compactionModel() (compaction.Model, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	b := a.bound
	if b.Provider == nil {
		return compaction.Model{}, turn.ErrModelNotConfigured
	}
	return compaction.Model{Provider: b.Provider, Alias: a.config.ModelAlias, SystemPrompt: a.config.SystemPrompt,
		Capability: b.Capability, Budget: b.Budget, Strategy: b.Compaction}, nil
}

// refreshSystemPrompt re-renders the system prompt after a compaction and
// records it when it changed.
func (a *Agent) refreshSystemPrompt(ctx context.Context) error {
	if a.o.Compaction.SystemPrompt == nil {
		return nil
	}
	prompt, err := a.o.Compaction.SystemPrompt(ctx)
	if err != nil {
		return err
	}
	if prompt == a.Config().SystemPrompt {
		return nil
	}
	return a.updateConfig(ctx, ConfigUpdate{SystemPrompt: &prompt})
}

// todos is the todo list the summary carries (spec 03 §6.9 step 10).
func (a *Agent) todos() []compaction.Todo {
	a.mu.Lock()
	raw, ok := a.store.Get(tools.StoreKeyTodo)
	a.mu.Unlock()
	if !ok {
		return nil
	}
	var items []tools.TodoItem
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil // a malformed stored list reads as empty, as the tool reads it
	}
	out := make([]compaction.Todo, 0, len(items))
	for _, it := range items {
		out = append(out, compaction.Todo{Title: it.Title, Status: string(it.Status)})
	}
	return out
}

// compactionHost is the agent as its full compaction sees it: history,
// the commit path, TurnFlow, usage, events and hooks (the collaborator
// interfaces of agent/compaction).
type compactionHost struct{ a *Agent }

// History implements compaction.History.
func (h compactionHost) History() []history.Message { return h.a.History() }

// TokenCountWithPending implements compaction.History.
func (h compactionHost) TokenCountWithPending() int { return h.a.TokenCountWithPending() }

// Messages implements compaction.History: the normal projection.
func (h compactionHost) Messages() []llm.Message { return historyView(h).View(loop.ProjectionNormal) }

// Commit implements compaction.Committer.
func (h compactionHost) Commit(ctx context.Context, typ records.Type, payload any) error {
	_, err := h.a.commitPayload(ctx, typ, payload)
	return err
}

// CommitCompaction implements compaction.Committer: build runs on the live
// memory under the state lock, and its record is appended and applied
// before the lock is released.
func (h compactionHost) CommitCompaction(_ context.Context,
	build func(m *history.Memory) (history.ApplyCompactionRecord, error)) error {
	a := h.a
	a.mu.Lock()
	rec, err := build(a.mem)
	var env records.Record
	if err == nil {
		env, err = records.New(records.Type(history.TypeApplyCompaction), rec)
	}
	if err != nil {
		a.mu.Unlock()
		return err
	}
	_, events, err := a.commitLocked(env)
	a.mu.Unlock()
	a.publishAll(events)
	return err
}

// HasActiveTurn implements compaction.Turns.
func (h compactionHost) HasActiveTurn() bool { return h.a.turns.HasActiveTurn() }

// CurrentID implements compaction.Turns.
func (h compactionHost) CurrentID() int { return h.a.turns.CurrentID() }

// OnCompactionFinished implements compaction.Turns.
func (h compactionHost) OnCompactionFinished(ctx context.Context) {
	h.a.turns.OnCompactionFinished(ctx)
}

// RecordUsage implements compaction.UsageRecorder with session scope.
func (h compactionHost) RecordUsage(ctx context.Context, model string, u llm.TokenUsage) error {
	return h.a.recordUsage(ctx, model, u, UsageScopeSession)
}

// Publish implements compaction.EventSink.
func (h compactionHost) Publish(ev event.Event) { h.a.events.Publish(ev) }

// Failed implements compaction.EventSink: a failure nobody waited for is
// the agent's error event.
func (h compactionHost) Failed(err error) {
	h.a.events.Publish(event.Error{Header: event.InTurn(event.NoTurn), ErrorPayload: event.ErrorOf(err)})
}

// PreCompact implements compaction.Hooks on the agent's hook runner.
func (h compactionHost) PreCompact(ctx context.Context, trigger compaction.Source, tokenCount int) {
	if h.a.o.Hooks == nil {
		return
	}
	if _, err := h.a.o.Hooks.Block(ctx, turn.HookPreCompact, string(trigger),
		map[string]any{"trigger": string(trigger), "tokenCount": tokenCount}); err != nil {
		h.a.logger.Warn("PreCompact hook failed", "error", err)
	}
}

// PostCompact implements compaction.Hooks.
func (h compactionHost) PostCompact(trigger compaction.Source, estimatedTokenCount int) {
	if h.a.o.Hooks == nil {
		return
	}
	h.a.o.Hooks.Fire(turn.HookPostCompact, string(trigger),
		map[string]any{"trigger": string(trigger), "estimatedTokenCount": estimatedTokenCount})
}
