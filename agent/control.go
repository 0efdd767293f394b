package agent

import (
	"context"
	"fmt"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/event"
)

// BusyError refuses an operation that cannot run beside a turn.
type BusyError struct {
	Op     string
	TurnID int
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("cannot %s while turn %d is active", e.Op, e.TurnID)
}

// Code returns event.CodeAgentBusy.
func (e *BusyError) Code() string { return event.CodeAgentBusy }

// Undo removes the last count user prompts and what followed them (spec
// 02 §2.9). Fewer undoable prompts than asked is a *history.Error, after
// the partial undo was recorded and applied. It refuses while a turn runs.
func (a *Agent) Undo(ctx context.Context, count int) error {
	if a.turns.HasActiveTurn() {
		return &BusyError{Op: "undo", TurnID: a.turns.CurrentID()}
	}
	a.mu.Lock()
	rec, ok := a.mem.UndoRecord(count)
	a.mu.Unlock()
	if !ok {
		return nil
	}
	ch, err := a.commitPayload(ctx, records.Type(history.TypeUndo), rec)
	if err != nil {
		return err
	}
	if ch.Undone != nil {
		return ch.Undone.Err()
	}
	return nil
}

// Clear empties the conversation (spec 02 §2.10). It refuses while a turn
// runs.
func (a *Agent) Clear(ctx context.Context) error {
	if a.turns.HasActiveTurn() {
		return &BusyError{Op: "clear", TurnID: a.turns.CurrentID()}
	}
	_, err := a.commitPayload(ctx, records.Type(history.TypeClear), history.ClearRecord{})
	return err
}
