package history

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
)

// maxLoggedIDs bounds the ids named in one log line.
const maxLoggedIDs = 5

// UnknownStepError is returned for a content part or tool call whose step
// was never opened: the log is corrupt there, and a resume sets the record
// aside (agent.Resume).
type UnknownStepError struct {
	// Event is "content_part" or "tool_call".
	Event    string
	StepUUID string
}

func (e *UnknownStepError) Error() string {
	return fmt.Sprintf("received %s for unknown step_uuid '%s' (no open step_begin)", e.Event, e.StepUUID)
}

// AppendLoopEvent applies context.append_loop_event (spec 02 §2.5), the
// state machine that turns recorded loop events into history: step.begin
// opens an assistant message (closing in place any call a previous step
// left open), content parts and tool calls fill it, a result of a pending
// call enters history and may release deferred messages, and step.end
// updates the token count. A result for a call that is not pending is
// ignored. A content part or call for an unknown step is an
// *UnknownStepError. Events may be values or pointers.
func (m *Memory) AppendLoopEvent(ev loop.RecordedEvent) (Change, error) {
	var ch Change
	switch e := ev.(type) {
	case loop.StepBeginEvent:
		m.stepBegin(e, &ch)
	case *loop.StepBeginEvent:
		m.stepBegin(*e, &ch)
	case loop.ContentPartEvent:
		return ch, m.contentPart(e, &ch)
	case *loop.ContentPartEvent:
		return ch, m.contentPart(*e, &ch)
	case loop.ToolCallEvent:
		return ch, m.toolCall(e, &ch)
	case *loop.ToolCallEvent:
		return ch, m.toolCall(*e, &ch)
	case loop.ToolResultEvent:
		m.toolResult(e, &ch)
	case *loop.ToolResultEvent:
		m.toolResult(*e, &ch)
	case loop.StepEndEvent:
		m.stepEnd(e, &ch)
	case *loop.StepEndEvent:
		m.stepEnd(*e, &ch)
	default:
		return ch, fmt.Errorf("append loop event: unsupported event %T", ev)
	}
	return ch, nil
}

func (m *Memory) stepBegin(e loop.StepBeginEvent, ch *Change) {
	if closed := m.closePending(interruptedText, ch); len(closed) > 0 {
		m.log.Warn("closed unresolved tool calls at a step boundary",
			"count", len(closed), "tool_call_ids", closed[:min(len(closed), maxLoggedIDs)])
		ch.Closed = append(ch.Closed, closed...)
	}
	m.push(Message{Message: llm.Message{Role: llm.RoleAssistant}}, ch)
	m.openSteps[e.UUID] = len(m.history) - 1
}

func (m *Memory) contentPart(e loop.ContentPartEvent, ch *Change) error {
	i, ok := m.openSteps[e.StepUUID]
	if !ok {
		return &UnknownStepError{Event: "content_part", StepUUID: e.StepUUID}
	}
	msg := m.mutable(i)
	msg.Content = append(msg.Content, e.Part)
	ch.Updated = append(ch.Updated, *msg)
	return nil
}

func (m *Memory) toolCall(e loop.ToolCallEvent, ch *Change) error {
	i, ok := m.openSteps[e.StepUUID]
	if !ok {
		return &UnknownStepError{Event: "tool_call", StepUUID: e.StepUUID}
	}
	msg := m.mutable(i)
	msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{
		ID: e.ToolCallID, Name: e.Name, Arguments: argumentsText(e.Args), Extras: e.Extras,
	})
	if e.Display != nil {
		// A snapshot may hold the old map: replace it, never write it.
		d := maps.Clone(msg.ToolCallDisplays)
		if d == nil {
			d = map[string]loop.Display{}
		}
		d[e.ToolCallID] = e.Display
		msg.ToolCallDisplays = d
	}
	m.addPending(e.ToolCallID)
	ch.Updated = append(ch.Updated, *msg)
	return nil
}

// argumentsText is the history's argument string: the compact JSON of the
// recorded args with the model's key order, or "" (null) when absent. Args
// that are not JSON are kept as given; replay never fails on them.
func argumentsText(args json.RawMessage) string {
	args = bytes.TrimSpace(args)
	if len(args) == 0 || bytes.Equal(args, []byte("null")) {
		return ""
	}
	var b bytes.Buffer
	if err := json.Compact(&b, args); err != nil {
		return string(args)
	}
	return b.String()
}

func (m *Memory) toolResult(e loop.ToolResultEvent, ch *Change) {
	if _, ok := m.pendingSet[e.ToolCallID]; !ok {
		return
	}
	content := e.Result.Output.Parts()
	if !e.Result.Output.IsParts() {
		content = []llm.ContentPart{llm.TextPart(e.Result.Output.Text())}
	}
	m.push(Message{
		Message: llm.Message{Role: llm.RoleTool, ToolCallID: e.ToolCallID, Content: content},
		IsError: e.Result.IsError,
		Note:    e.Result.Note,
	}, ch)
	m.removePending(e.ToolCallID)
	m.flushDeferred(ch)
}

func (m *Memory) stepEnd(e loop.StepEndEvent, ch *Change) {
	i, known := m.openSteps[e.UUID]
	delete(m.openSteps, e.UUID)
	if e.Usage != nil {
		coveredNew := len(m.history)
		if known {
			coveredNew = i + 1
		}
		if total := e.Usage.GrandTotal(); total > 0 {
			m.tokenCount = total
		} else if coveredNew > m.covered {
			// The provider reported nothing (a content filter, say):
			// grow by an estimate instead of dropping to zero.
			m.tokenCount += estimateHistory(m.history[m.covered:coveredNew])
		}
		m.covered = coveredNew
	}
	m.flushDeferred(ch)
}

func (m *Memory) addPending(id string) {
	if _, ok := m.pendingSet[id]; ok {
		return
	}
	m.pendingSet[id] = struct{}{}
	m.pending = append(m.pending, id)
}

func (m *Memory) removePending(id string) {
	delete(m.pendingSet, id)
	for i, p := range m.pending {
		if p == id {
			m.pending = append(m.pending[:i:i], m.pending[i+1:]...)
			break
		}
	}
}

// closePending answers every pending call with an error result carrying
// output, in call order, and returns the ids.
func (m *Memory) closePending(output string, ch *Change) []string {
	if len(m.pending) == 0 {
		return nil
	}
	evs := m.CloseEvents(output)
	ids := make([]string, 0, len(evs))
	for _, ev := range evs {
		ids = append(ids, ev.ToolCallID)
		m.toolResult(ev, ch)
	}
	return ids
}

// CloseEvents returns the tool.result events that close every pending call
// with an error result carrying output, in call order (spec 02 §2.6). The
// agent commits each as context.append_loop_event; applying them closes the
// exchange and releases deferred messages. FinishResume uses
// InterruptedOnResumeText; the end of a live turn uses the turn layer's
// wording (CloseAbandonedToolExchange, whose count is len of the result).
func (m *Memory) CloseEvents(output string) []loop.ToolResultEvent {
	evs := make([]loop.ToolResultEvent, 0, len(m.pending))
	for _, id := range m.pending {
		evs = append(evs, loop.ToolResultEvent{
			ParentUUID: id, ToolCallID: id,
			Result: loop.ToolResult{Output: loop.TextOutput(output), IsError: true},
		})
	}
	return evs
}

// ForgetOpenSteps drops the open steps after a resume (spec 02 §2.6
// FinishResume): their assistant messages stay, later events for them are
// unknown-step errors. Not a record: every resume re-derives it.
func (m *Memory) ForgetOpenSteps() { clear(m.openSteps) }
