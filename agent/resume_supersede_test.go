package agent_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/agent"
	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
)

// mixedLog builds a log from ops, one record group per byte: turns, tool
// exchanges (answered, left open with a user message deferred behind
// them), compactions with and without keptUserMessageCount and
// tokensAfter, undo, clear, token counts, usage and configuration.
func mixedLog(t *testing.T, ops []byte) []records.Record {
	b := newLog(t)
	turnID, n := 0, 0
	for i, op := range ops {
		n++
		id := strconv.Itoa(n)
		switch op % 11 {
		case 0:
			turnID++
			b.turn(turnID, "prompt "+id+strings.Repeat(" words", int(op)), "answer "+id)
		case 1: // an answered call with a long output
			turnID++
			step := "t" + id
			b.prompt("run "+id, &turnID).user("run "+id).stepBegin(step, turnID).call(step, "c"+id, turnID).
				result("c"+id, strings.Repeat("output "+id+" ", 50+int(op)), op%2 == 0).stepEnd(step, turnID)
		case 2: // a call left open; the message behind it waits
			turnID++
			step := "o" + id
			b.stepBegin(step, turnID).call(step, "p"+id, turnID).user("deferred " + id)
			if i%3 == 0 {
				b.result("p"+id, "late "+id, false).stepEnd(step, turnID)
			}
		case 3:
			kept := int(op) % 4
			r := history.ApplyCompactionRecord{Summary: "summary " + id, CompactedCount: 3, TokensBefore: 100,
				KeptUserMessageCount: &kept}
			if op%2 == 0 {
				after := 40 + int(op)
				r.TokensAfter = &after
			}
			b.add(records.Type(history.TypeApplyCompaction), r)
		case 4: // a legacy compaction keeps a verbatim tail, tool results included
			b.add(records.Type(history.TypeApplyCompaction),
				history.ApplyCompactionRecord{Summary: "legacy " + id, CompactedCount: int(op) % 5, TokensBefore: 50})
		case 5:
			b.add(records.Type(history.TypeUndo), history.UndoRecord{Count: 1 + int(op)%2})
		case 6:
			b.add(records.Type(history.TypeClear), history.ClearRecord{})
		case 7:
			b.add(records.Type(history.TypeUpdateTokenCount), history.UpdateTokenCountRecord{TokenCount: int(op) * 3})
		case 8:
			b.add(agent.TypeUsageRecord, agent.UsageRecord{Model: "m", Usage: llm.TokenUsage{Output: int(op)},
				Scope: agent.UsageScopeTurn})
		case 9: // a tool result with media
			turnID++
			step := "m" + id
			res := loop.ToolResult{Output: loop.PartsOutput(llm.TextPart("shot "+id),
				llm.ImagePart("data:image/png;base64,aGVsbG8="))}
			b.stepBegin(step, turnID).call(step, "i"+id, turnID).
				event(loop.ToolResultEvent{ParentUUID: "i" + id, ToolCallID: "i" + id, Result: res}).stepEnd(step, turnID)
		case 10:
			b.add(agent.TypeConfigUpdate, agent.ConfigUpdate{SystemPrompt: strp("system " + id)})
		}
	}
	return b.records()
}

func strp(s string) *string { return &s }

// TestResumeWithoutCardsAgrees: across record mixes with compactions (and
// without), the resume that elides the tool outputs before the last
// compaction (no replay stream) reaches exactly the state of the full
// replay: history, token count, configuration, tool store, usage, turn
// counter, permission data, the next request byte for byte, and the
// records the resume appends.
func TestResumeWithoutCardsAgrees(t *testing.T) {
	for name, ops := range map[string][]byte{
		"no compaction":              {0, 1, 9, 1, 8, 0},
		"compaction after each turn": {0, 1, 3, 0, 9, 1, 13, 1, 1, 3, 0, 1},
		"legacy compaction last":     {1, 9, 3, 1, 0, 4, 1},
		"modern after legacy":        {1, 0, 4, 9, 1, 3, 1, 0},
		"open call then compaction":  {0, 2, 3, 1, 2},
		"undo and clear around":      {1, 0, 3, 5, 1, 0, 6, 1, 3, 0, 5, 7},
		"config and usage before":    {10, 8, 1, 3, 10, 8, 0},
		"compaction is the end":      {0, 1, 1, 3},
		"only compactions":           {3, 14, 3},
	} {
		t.Run(name, func(t *testing.T) {
			newHarness(t).ExpectResumesAgree(mixedLog(t, ops))
		})
	}
}

// FuzzResumeWithoutCardsAgrees is TestResumeWithoutCardsAgrees over
// arbitrary record mixes.
func FuzzResumeWithoutCardsAgrees(f *testing.F) {
	f.Add([]byte{0, 1, 3, 0, 9, 1, 13, 1, 1, 3, 0, 1})
	f.Add([]byte{1, 0, 4, 9, 1, 3, 1, 0, 2, 5, 3})
	f.Add([]byte{2, 2, 3, 6, 1, 3, 7, 10, 8})
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 64 {
			ops = ops[:64]
		}
		newHarness(t).ExpectResumesAgree(mixedLog(t, ops))
	})
}

// TestResumeWithoutCardsSkipsSupersededToolOutputs shows that the elision
// happens: a tool output before the last compaction that does not decode
// is refused by the full replay (its card would show it) and set aside,
// while the resume without cards never decodes it.
func TestResumeWithoutCardsSkipsSupersededToolOutputs(t *testing.T) {
	b := newLog(t)
	turnID := 1
	b.prompt("run", &turnID).user("run").stepBegin("s", 1).call("s", "c", 1).
		add(records.Type(history.TypeAppendLoopEvent), map[string]any{"event": map[string]any{
			"type": "tool.result", "parentUuid": "c", "toolCallId": "c", "result": map[string]any{"output": 42}}}).
		stepEnd("s", 1)
	kept := 1
	b.add(records.Type(history.TypeApplyCompaction), history.ApplyCompactionRecord{Summary: "s", CompactedCount: 4,
		TokensBefore: 10, KeptUserMessageCount: &kept}).turn(2, "next", "done")
	recs := b.records()

	for _, cards := range []bool{true, false} {
		a := agent.New(agent.Options{Persistence: records.NewMemory(records.MemoryOptions{Records: recs})})
		res, err := a.Resume(t.Context(), agent.ResumeOptions{Cards: cards})
		if want := map[bool]int{true: 1}[cards]; err != nil || res.Refused != want {
			t.Errorf("resume with cards %v: %d records refused, %v; want %d", cards, res.Refused, err, want)
		}
		a.Close(t.Context())
	}
	r := newHarness(t).ResumeWithoutCards(recs)
	h := r.Agent.History()
	if len(h) != 4 || llm.ExtractText(h[0].Message, "") != "run" {
		t.Errorf("history after the resume without cards = %+v; want [run, summary, next, done]", h)
	}
}
