package agent_test

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/agent/turn"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
)

// logBuilder writes records by hand, the way an agent (or an older one)
// would have, for resume and replay tests.
type logBuilder struct {
	t    *testing.T
	recs []records.Record
	time int64
}

func newLog(t *testing.T) *logBuilder {
	b := &logBuilder{t: t, time: 1_700_000_000_000}
	b.add(records.TypeMetadata, map[string]any{"protocol_version": records.ProtocolVersion, "created_at": b.time})
	return b
}

func (b *logBuilder) add(typ records.Type, fields any) *logBuilder {
	b.t.Helper()
	rec, err := records.New(typ, fields)
	if err != nil {
		b.t.Fatal(err)
	}
	if typ != records.TypeMetadata {
		b.time++
		rec.Time = b.time
	}
	b.recs = append(b.recs, rec)
	return b
}

func (b *logBuilder) message(m history.Message) *logBuilder {
	return b.add(records.Type(history.TypeAppendMessage), history.AppendMessageRecord{Message: m})
}

func (b *logBuilder) user(text string) *logBuilder {
	return b.message(history.Message{Message: llm.UserMessage(text), Origin: history.UserOrigin()})
}

func (b *logBuilder) event(ev loop.RecordedEvent) *logBuilder {
	return b.add(records.Type(history.TypeAppendLoopEvent), history.AppendLoopEventRecord{Event: ev})
}

func (b *logBuilder) prompt(text string, turnID *int) *logBuilder {
	return b.add(turn.TypePrompt, turn.InputRecord{Input: []llm.ContentPart{llm.TextPart(text)},
		Origin: history.UserOrigin(), TurnID: turnID})
}

func (b *logBuilder) stepBegin(step string, turnID int) *logBuilder {
	return b.event(loop.StepBeginEvent{UUID: step, TurnID: strconv.Itoa(turnID), Step: 1})
}

func (b *logBuilder) text(step, text string, turnID int) *logBuilder {
	return b.event(loop.ContentPartEvent{UUID: step + "-part", TurnID: strconv.Itoa(turnID), Step: 1, StepUUID: step,
		Part: llm.TextPart(text)})
}

func (b *logBuilder) call(step, id string, turnID int) *logBuilder {
	return b.event(loop.ToolCallEvent{UUID: id, TurnID: strconv.Itoa(turnID), Step: 1, StepUUID: step, ToolCallID: id,
		Name: "Read", Args: json.RawMessage(`{"path":"a.go"}`)})
}

func (b *logBuilder) result(id, output string, isError bool) *logBuilder {
	res := loop.TextResult(output)
	res.IsError = isError
	return b.event(loop.ToolResultEvent{ParentUUID: id, ToolCallID: id, Result: res})
}

func (b *logBuilder) stepEnd(step string, turnID int) *logBuilder {
	return b.event(loop.StepEndEvent{UUID: step, TurnID: strconv.Itoa(turnID), Step: 1, Usage: &llm.TokenUsage{},
		FinishReason: loop.StopEndTurn})
}

// turn writes a complete text-only turn.
func (b *logBuilder) turn(turnID int, prompt, answer string) *logBuilder {
	id := turnID
	step := "s" + strconv.Itoa(turnID)
	return b.prompt(prompt, &id).user(prompt).stepBegin(step, turnID).text(step, answer, turnID).stepEnd(step, turnID)
}

func (b *logBuilder) records() []records.Record { return append([]records.Record(nil), b.recs...) }

func intp(n int) *int { return &n }
