package compaction

import (
	"strings"
	"testing"

	"github.com/kimigo/kimigo/agent/history"
	ht "github.com/kimigo/kimigo/agent/history/historytest"
	"github.com/kimigo/kimigo/llm"
)

// FuzzSummaryRequestShape: whatever the history, however broken, and
// whatever the ladder does to the input (overflow shrinks, dropping the
// oldest, fitting a window, stripping media), every summary request is a
// conversation strict services accept, starting with a user message; the
// task prompt in front is the latest real user input before what is kept;
// droppedCount counts exactly what the request leaves out, and every
// shrink leaves out more (ERRATA 28).
func FuzzSummaryRequestShape(f *testing.F) {
	for _, seed := range []struct{ history, steps []byte }{
		{[]byte{ht.OpUser, ht.OpCalls2, ht.OpResult, ht.OpResult, ht.OpAssistantText}, []byte{0, 1, 2}},
		{[]byte{ht.OpUser, ht.OpCalls1, ht.OpResult, ht.OpCalls1, ht.OpResult, ht.OpUser, ht.OpCalls3, ht.OpResultsReversed}, []byte{1, 1, 1, 1}},
		{[]byte{ht.OpAssistantText, ht.OpOrphan, ht.OpUser, ht.OpCalls2}, []byte{4, 0}},
		{[]byte{ht.OpSummary, ht.OpCalls1, ht.OpResult, ht.OpInjection, ht.OpCalls1}, []byte{1, 5}},
		{[]byte{ht.OpUserMedia, ht.OpCalls1, ht.OpResultMedia, ht.OpNotification, ht.OpUser, ht.OpEmptyIDCall, ht.OpEmptyIDResult}, []byte{3, 0, 4, 1}},
		{[]byte{ht.OpUser, ht.OpRepeatInMessage, ht.OpResult, ht.OpDuplicateResult, ht.OpSchema, ht.OpUserWhitespace, ht.OpCalls1}, []byte{2, 6, 10}},
	} {
		f.Add(seed.history, seed.steps)
	}
	f.Fuzz(func(t *testing.T, ops, steps []byte) {
		ops, steps = ops[:min(len(ops), 400)], steps[:min(len(steps), 16)] // shape, not size, is the point
		s := request(history.StripDynamicToolContext(ht.Build(ops)))
		check := func(step string) {
			msgs := s.messages()
			if err := ht.CheckWire(msgs); err != nil {
				t.Fatalf("after %s: %v\nroles %v\nops=%v steps=%v", step, err, roles(msgs), ops, steps)
			}
			if s.dropped != len(s.snapshot)-s.size() {
				t.Fatalf("after %s: dropped %d of %d with %d carried", step, s.dropped, len(s.snapshot), s.size())
			}
			if s.task >= 0 {
				if s.task >= s.from || !history.IsRealUserInput(s.snapshot[s.task]) {
					t.Fatalf("after %s: task %d is not user input before %d", step, s.task, s.from)
				}
				for i := s.task + 1; i < s.from; i++ {
					if history.IsRealUserInput(s.snapshot[i]) {
						t.Fatalf("after %s: task %d is not the latest user input before %d (%d is)", step, s.task, s.from, i)
					}
				}
			}
		}
		check("the first request")
		for i, b := range steps {
			before, size := s.dropped, s.size()
			switch b % 4 {
			case 0:
				if size > 1 {
					s.shrink(int(b/4)%4 + 1)
				}
			case 1:
				if size > 1 {
					s.dropOldest()
				}
			case 2:
				s.fit(estimateRequest("", nil, s.messages()) * int(b/4%8+1) / 8)
			case 3:
				if stripped, changed := stripMedia(s.snapshot); changed {
					s.snapshot = stripped
				}
			}
			check(string(rune('a' + i)))
			if s.dropped < before || (b%4 < 2 && size > 1 && s.dropped == before) {
				t.Fatalf("step %d (%d) left out %d, before %d", i, b, s.dropped, before)
			}
		}
	})
}

// TestSummaryRequestNeverStartsWithAssistant pins the shape of the
// request that bricked sessions: the input of a history over the window
// starts with the task prompt, never with the assistant's tool call, on
// the first request and after every rung of the ladder.
func TestSummaryRequestNeverStartsWithAssistant(t *testing.T) {
	h := []history.Message{U("read every file")}
	for i := range 8 {
		id := "call_" + string(rune('a'+i))
		h = append(h, A("", id), T(id, strings.Repeat("x", 4000)))
	}
	for _, tt := range []struct {
		name string
		do   func(s *summaryRequest)
	}{
		{"fit", func(s *summaryRequest) { s.fit(3_000) }},
		{"overflow shrink", func(s *summaryRequest) { s.shrink(1) }},
		{"empty answer", func(s *summaryRequest) { s.dropOldest() }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := request(h)
			tt.do(s)
			msgs := s.messages()
			if msgs[0].Role != llm.RoleUser || llm.ExtractText(msgs[0], "") != "read every file" || !isNote(msgs[1]) {
				t.Errorf("request starts %v %q; want the task prompt, then the note", roles(msgs[:2]), texts(msgs[:2]))
			}
		})
	}
}
