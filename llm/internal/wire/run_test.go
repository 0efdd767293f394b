package wire

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/llm"
)

// TestRun: deltas of one part join; a delta of another part, or a flush,
// ends the run, and parts keep their order.
func TestRun(t *testing.T) {
	var r Run
	var out []llm.StreamPart
	out = r.Add(out, TextRun, []byte("Hel"))
	out = r.AddString(out, TextRun, "lo")
	out = r.Add(out, ThinkRun, []byte("hm"))
	out = r.Add(out, ArgsRun(0, true), []byte(`{"a"`))
	out = r.Add(out, ArgsRun(0, true), []byte(`:1}`))
	out = r.Add(out, ArgsRun(1, true), []byte(`{}`))
	out = r.Add(out, ArgsRun(1, false), []byte(`x`))
	if !r.Active() {
		t.Fatal("run with a pending delta is not active")
	}
	out = r.Flush(out)
	out = r.Flush(out)
	out = r.AddString(out, TextRun, "")
	out = r.Flush(out)
	want := []llm.StreamPart{
		llm.ContentStreamPart(llm.TextPart("Hello")),
		llm.ContentStreamPart(llm.ThinkPart("hm", "")),
		{Kind: llm.KindToolCallPart, ArgumentsPart: `{"a":1}`, Index: 0, Indexed: true},
		{Kind: llm.KindToolCallPart, ArgumentsPart: `{}`, Index: 1, Indexed: true},
		{Kind: llm.KindToolCallPart, ArgumentsPart: `x`, Index: 1},
		llm.ContentStreamPart(llm.TextPart("")),
	}
	if d := cmp.Diff(want, out); d != "" {
		t.Errorf("parts (-want +got):\n%s", d)
	}
	if r.Active() {
		t.Error("flushed run is still active")
	}
}
