package agent

import (
	"context"
	"errors"
	"slices"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
)

// What a side conversation (spec 05 §5.12) copies from the agent it
// starts from, and how it starts: the session builds the child and seeds
// it; the agent knows nothing of side conversations.

// ToolTable is the tool table the agent's next step offers and runs: the
// manager's tools (with the dynamic tools history loaded), then
// Options.Tools. A child built with it as its Options.Tools offers the
// same definitions in the same order.
func (a *Agent) ToolTable(ctx context.Context) []loop.ExecutableTool {
	table, _ := a.toolTable(ctx) // the table never fails
	return slices.Clip(table)
}

// ProjectedHistory is the normal view of the conversation now: the
// messages the next request would carry (a trailing exchange still
// waiting for its results included).
func (a *Agent) ProjectedHistory() []llm.Message {
	return historyView{a}.View(loop.ProjectionNormal)
}

// ErrSeedNotEmpty refuses Seed on an agent that already has a history.
var ErrSeedNotEmpty = errors.New("seed history: the agent already has a conversation")

// Seed starts an empty agent's conversation with msgs, each committed as
// context.append_message in order, so its first request carries them.
// tokenCount, when positive, is the context size they were measured at
// (the source agent's TokenCount), committed after them as
// context.update_token_count: the completion cap of the first request is
// then clamped as the source's next request would be. It refuses an agent
// that has a history or a turn.
func (a *Agent) Seed(ctx context.Context, msgs []history.Message, tokenCount int) error {
	a.mu.Lock()
	empty := a.mem.Len() == 0
	a.mu.Unlock()
	if !empty || a.HasActiveTurn() {
		return ErrSeedNotEmpty
	}
	for _, m := range msgs {
		if _, err := a.commitPayload(ctx, records.Type(history.TypeAppendMessage),
			history.AppendMessageRecord{Message: m}); err != nil {
			return err
		}
	}
	if tokenCount <= 0 {
		return nil
	}
	_, err := a.commitPayload(ctx, records.Type(history.TypeUpdateTokenCount),
		history.UpdateTokenCountRecord{TokenCount: tokenCount})
	return err
}
