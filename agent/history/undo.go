package history

import (
	"fmt"
	"time"

	"github.com/kimigo/kimigo/llm"
)

// UndoResult is what an undo removed.
type UndoResult struct {
	// Requested is the count asked for.
	Requested int
	// RemovedPrompts counts the removed real user inputs.
	RemovedPrompts int
	// StoppedAtCompaction is set when the walk reached a compaction
	// summary.
	StoppedAtCompaction bool
}

// Err is the request.invalid error a live undo returns when fewer prompts
// than requested could be undone (spec 02 §2.9); the partial undo is kept
// and recorded either way. Replay ignores it.
func (r UndoResult) Err() error {
	if !r.StoppedAtCompaction && r.RemovedPrompts >= r.Requested {
		return nil
	}
	msg := fmt.Sprintf("Cannot undo %s; only %s can be undone in the active context",
		prompts(r.Requested), prompts(r.RemovedPrompts))
	if r.StoppedAtCompaction {
		msg += " after the last compaction"
	}
	return &Error{
		Code: CodeRequestInvalid, Reason: ReasonUndoLimit, Message: msg + ".",
		Details: map[string]any{
			"requestedCount":      r.Requested,
			"undoableCount":       r.RemovedPrompts,
			"stoppedAtCompaction": r.StoppedAtCompaction,
		},
	}
}

func prompts(n int) string {
	if n == 1 {
		return "1 prompt"
	}
	return fmt.Sprintf("%d prompts", n)
}

// UndoRecord returns the context.undo record for count, or false when
// nothing is to be done (count ≤ 0 or empty history) and no record is
// written.
func (m *Memory) UndoRecord(count int) (UndoRecord, bool) {
	if count <= 0 || len(m.history) == 0 {
		return UndoRecord{}, false
	}
	return UndoRecord{Count: count}, true
}

// Undo applies context.undo (spec 02 §2.9): walking back from the end it
// keeps injections in place, stops at a compaction summary, and removes
// everything else until count real user inputs are gone. Open steps,
// pending calls and deferred messages are forgotten. It never fails; a live
// caller turns a short undo into an error with UndoResult.Err.
func (m *Memory) Undo(count int) (UndoResult, Change) {
	res := UndoResult{Requested: count}
	var ch Change
	if count <= 0 || len(m.history) == 0 {
		return res, ch
	}
	removed := make([]bool, len(m.history))
	for i := len(m.history) - 1; i >= 0; i-- {
		msg := m.history[i]
		if msg.Origin.Is(OriginInjection) {
			continue
		}
		if msg.Origin.Is(OriginCompactionSummary) {
			res.StoppedAtCompaction = true
			break
		}
		removed[i] = true
		ch.Removed = append(ch.Removed, msg)
		if i < m.covered {
			m.covered--
			m.tokenCount = max(0, m.tokenCount-llm.EstimateMessage(msg.Message))
		}
		if m.hooks.MessageRemoved != nil {
			m.hooks.MessageRemoved(i, msg)
		}
		if IsRealUserInput(msg) {
			res.RemovedPrompts++
			if res.RemovedPrompts == count {
				break
			}
		}
	}
	kept := make([]Message, 0, len(m.history)-len(ch.Removed))
	for i, msg := range m.history {
		if !removed[i] {
			kept = append(kept, msg)
		}
	}
	m.replaceHistory(kept)
	m.resetExchange()
	if m.hooks.LimitMicroCompaction != nil {
		m.hooks.LimitMicroCompaction(len(m.history))
	}
	return res, ch
}

// Clear applies context.clear (spec 02 §2.10): history, counts, open
// steps, pending calls, deferred messages and the last assistant time are
// reset. Change.Replaced is set; the replay stream treats it as a segment
// boundary.
func (m *Memory) Clear() Change {
	m.replaceHistory(nil)
	m.tokenCount, m.covered = 0, 0
	m.resetExchange()
	m.lastAssistantAt = time.Time{}
	if m.hooks.LimitMicroCompaction != nil {
		m.hooks.LimitMicroCompaction(0)
	}
	if m.hooks.Cleared != nil {
		m.hooks.Cleared()
	}
	return Change{Replaced: true}
}

// PopMatchedMessage removes the newest message, deferred or else in
// history, when match accepts its origin (spec 02 §2.2). It is part of
// another record's apply (swarm_mode.exit, say) and writes no record of its
// own: replay reproduces it through that record.
func (m *Memory) PopMatchedMessage(match func(*Origin) bool) (bool, Change) {
	var ch Change
	if n := len(m.deferred); n > 0 {
		if !match(m.deferred[n-1].Origin) {
			return false, ch
		}
		m.deferred = m.deferred[: n-1 : n-1]
		return true, ch
	}
	n := len(m.history)
	if n == 0 || !match(m.history[n-1].Origin) {
		return false, ch
	}
	last := m.history[n-1]
	ch.Removed = append(ch.Removed, last)
	h := make([]Message, n-1, n+8)
	copy(h, m.history)
	m.replaceHistory(h)
	if m.covered > len(h) {
		m.covered = len(h)
		m.tokenCount = max(0, m.tokenCount-llm.EstimateMessage(last.Message))
	}
	for uuid, i := range m.openSteps {
		if i >= len(h) {
			delete(m.openSteps, uuid)
		}
	}
	return true, ch
}
