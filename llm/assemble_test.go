package llm_test

import (
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/scripted"
)

// referenceMerge is the merge table of spec 01 §2.3 written the plain way,
// appending to strings, with the fresh ids for repeated tool-call ids: the
// oracle for the assembler, which must agree with it on every sequence.
func referenceMerge(parts []llm.StreamPart) llm.Message {
	msg := llm.Message{Role: llm.RoleAssistant}
	var pending *llm.StreamPart
	index := map[int]int{}
	seen := map[string]bool{}
	flush := func() {
		if pending == nil {
			return
		}
		switch pending.Kind {
		case llm.KindContent:
			msg.Content = append(msg.Content, pending.Content)
		case llm.KindToolCall:
			msg.ToolCalls = append(msg.ToolCalls, pending.ToolCall)
			if pending.Indexed {
				index[pending.Index] = len(msg.ToolCalls) - 1
			}
		}
		pending = nil
	}
	for _, p := range parts {
		if p.Kind == llm.KindToolCall {
			id := p.ToolCall.ID
			for n := 2; seen[id]; n++ {
				base := p.ToolCall.ID
				if base == "" {
					base = "tool_call"
				}
				id = base + "_" + strconv.Itoa(n)
			}
			seen[id] = true
			p.ToolCall.ID = id
		}
		if p.Kind == llm.KindToolCallPart && p.Indexed {
			here := pending != nil && pending.Kind == llm.KindToolCall && pending.Indexed && pending.Index == p.Index
			if pos, ok := index[p.Index]; ok && !here {
				msg.ToolCalls[pos].Arguments += p.ArgumentsPart
				continue
			}
		}
		if pending != nil {
			t := pending
			merged := false
			switch {
			case t.Kind == llm.KindContent && p.Kind == llm.KindContent:
				tc, sc := &t.Content, p.Content
				switch {
				case tc.Type == llm.PartText && sc.Type == llm.PartText:
					tc.Text += sc.Text
					merged = true
				case tc.Type == llm.PartThink && sc.Type == llm.PartThink && tc.Encrypted == "":
					tc.Think += sc.Think
					if sc.Encrypted != "" {
						tc.Encrypted = sc.Encrypted
					}
					merged = true
				}
			case t.Kind == llm.KindToolCall && p.Kind == llm.KindToolCallPart:
				t.ToolCall.Arguments += p.ArgumentsPart
				merged = true
			}
			if merged {
				continue
			}
			flush()
		}
		q := p
		pending = &q
	}
	flush()
	return msg
}

// fuzzParts turns bytes into a stream: each byte picks a part kind and an
// index, and the next byte a short piece of text.
func fuzzParts(data []byte) []llm.StreamPart {
	pieces := []string{"", "a", "bc", "{\"k\":", "1}", "é", strings.Repeat("x", 300), strings.Repeat("y", 1500),
		strings.Repeat("z", 70<<10)}
	ids := []string{"a", "b", "a_2", ""}
	var parts []llm.StreamPart
	for i := 0; i+1 < len(data); i += 2 {
		op, arg := data[i], int(data[i+1])
		s := pieces[arg%len(pieces)]
		idx := int(op>>4) % 3
		indexed := op&8 != 0
		switch op % 7 {
		case 0:
			parts = append(parts, text(s))
		case 1:
			parts = append(parts, think(s))
		case 2:
			parts = append(parts, signed(s, "sig"+strconv.Itoa(arg%3)))
		case 3:
			parts = append(parts, header(ids[arg%len(ids)], "f", s, idx, indexed))
		case 4, 5:
			parts = append(parts, argPart(s, idx, indexed))
		case 6:
			parts = append(parts, llm.ContentStreamPart(llm.ImagePart("u"+strconv.Itoa(arg))))
		}
	}
	return parts
}

// FuzzMergeParts checks the assembler against the plain merge on any
// sequence of parts.
func FuzzMergeParts(f *testing.F) {
	f.Add([]byte{0, 1, 0, 2, 3, 3, 4, 4, 51, 0, 4, 1, 12, 2, 12, 3})
	f.Add([]byte{3, 0, 3, 0, 11, 3, 11, 0, 12, 1, 28, 2, 5, 6})
	f.Add([]byte{1, 1, 1, 2, 2, 0, 1, 3, 0, 6, 0, 6, 6, 1, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		parts := fuzzParts(data)
		if d := cmp.Diff(referenceMerge(parts), llm.MergeParts(parts)); d != "" {
			t.Fatalf("MergeParts disagrees with the plain merge (-want +got):\n%s", d)
		}
	})
}

// TestRepeatedToolCallIDsGetFreshIDs: two calls of one response with the
// same id (a provider quirk) are told apart on receipt, before any
// callback sees them, so every call pairs with its own result.
func TestRepeatedToolCallIDsGetFreshIDs(t *testing.T) {
	parts := []llm.StreamPart{
		header("call_1", "Read", `{"path":"a"}`, 0, true),
		header("call_1", "Read", `{"path":"b"}`, 1, true),
		header("call_1_2", "Read", `{"path":"c"}`, 2, true),
		header("call_1", "Read", "", 3, true), argPart(`{"path":"d"}`, 3, true),
	}
	var streamed, called []string
	res, err := generate(t, scripted.Response{Parts: parts}, llm.Callbacks{
		OnMessagePart: func(p llm.StreamPart) {
			if p.Kind == llm.KindToolCall {
				streamed = append(streamed, p.ToolCall.ID)
			}
		},
		OnToolCall: func(c llm.ToolCall) { called = append(called, c.ID) },
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.ToolCall{
		{ID: "call_1", Name: "Read", Arguments: `{"path":"a"}`},
		{ID: "call_1_2", Name: "Read", Arguments: `{"path":"b"}`},
		{ID: "call_1_2_2", Name: "Read", Arguments: `{"path":"c"}`},
		{ID: "call_1_3", Name: "Read", Arguments: `{"path":"d"}`},
	}
	if d := cmp.Diff(want, res.Message.ToolCalls); d != "" {
		t.Errorf("tool calls (-want +got):\n%s", d)
	}
	ids := []string{"call_1", "call_1_2", "call_1_2_2", "call_1_3"}
	if d := cmp.Diff(ids, streamed); d != "" {
		t.Errorf("ids seen by OnMessagePart (-want +got):\n%s", d)
	}
	if d := cmp.Diff(ids, called); d != "" {
		t.Errorf("ids seen by OnToolCall (-want +got):\n%s", d)
	}
}

// TestMergePartsIsLinear: a 1 MiB argument text in 16-byte deltas
// allocates a small multiple of its size (appending to a string allocated
// about 32 GiB for it). Allocation is counted, not timed.
func TestMergePartsIsLinear(t *testing.T) {
	const size, delta = 1 << 20, 16
	arg := strings.Repeat(`{"k":"0123456789"}`, size/18)
	parts := []llm.StreamPart{header("c", "Write", "", 0, true)}
	for i := 0; i < len(arg); i += delta {
		parts = append(parts, argPart(arg[i:min(i+delta, len(arg))], 0, true))
	}
	text := strings.Repeat("word ", size/5)
	for i := 0; i < len(text); i += delta {
		parts = append(parts, llm.ContentStreamPart(llm.TextPart(text[i:min(i+delta, len(text))])))
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	msg := llm.MergeParts(parts)
	runtime.ReadMemStats(&after)
	if len(msg.ToolCalls) != 1 || msg.ToolCalls[0].Arguments != arg || llm.ExtractText(msg, "") != text {
		t.Fatalf("MergeParts assembled %d calls and %d bytes of text", len(msg.ToolCalls), len(llm.ExtractText(msg, "")))
	}
	got := after.TotalAlloc - before.TotalAlloc
	if limit := uint64(3 * (len(arg) + len(text))); got > limit {
		t.Errorf("MergeParts allocated %d bytes for %d bytes of deltas; want at most %d", got, len(arg)+len(text), limit)
	}
}

// TestMergePartsKeepsLargePieces: pieces of a kilobyte or more (deltas a
// provider handed out together) are kept, not copied, so the argument text
// is allocated once, by the final join.
func TestMergePartsKeepsLargePieces(t *testing.T) {
	const size, piece = 2 << 20, 5000
	arg := strings.Repeat(`{"k":"0123456789"}`, size/18)
	parts := []llm.StreamPart{header("c", "Write", "", 0, true)}
	for i := 0; i < len(arg); i += piece {
		parts = append(parts, argPart(arg[i:min(i+piece, len(arg))], 0, true), argPart("", 0, true), argPart("x", 0, true))
	}
	want := llm.MergeParts(parts).ToolCalls[0].Arguments
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	msg := llm.MergeParts(parts)
	runtime.ReadMemStats(&after)
	if got := msg.ToolCalls[0].Arguments; got != want || len(got) != len(arg)+(len(arg)+piece-1)/piece {
		t.Fatalf("assembled %d bytes of arguments", len(got))
	}
	got := after.TotalAlloc - before.TotalAlloc
	if limit := uint64(len(arg) + len(arg)/8); got > limit {
		t.Errorf("MergeParts allocated %d bytes for %d bytes of arguments in %d-byte pieces; want at most %d",
			got, len(arg), piece, limit)
	}
}
