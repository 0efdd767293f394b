package history_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent/history"
)

// TestToolResultsRenderOnce: a tool result whose rendering builds a new
// text (a note, an error status) is rendered when it enters history, not on
// every request. Projection then gives what RenderToolResult gives, and
// projecting a long history again allocates far less than its text.
func TestToolResultsRenderOnce(t *testing.T) {
	const results, size = 20, 50 << 10
	body := strings.Repeat("a line of the file the model pages through\n", size/44)
	var h []history.Message
	for i := range results {
		id := "c" + string(rune('a'+i))
		tool := T(id, body+id)
		switch i % 3 {
		case 0:
			tool.Note = "<system>" + id + ": 1000 lines read.</system>"
		case 1:
			tool.IsError, tool.Note = true, "<system>see the log</system>"
		case 2:
			tool.IsError = true
		}
		h = append(h, U("read "+id), A("", id), tool)
	}
	mem := memoryWith(t, history.Options{}, h...)
	want := history.Project(h, history.NormalOptions())
	if d := cmp.Diff(want, mem.Messages()); d != "" {
		t.Fatalf("projection differs from rendering every result (-want +got):\n%s", d)
	}
	if d := cmp.Diff(h, mem.History(), cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Seq" }, cmp.Ignore())); d != "" {
		t.Errorf("stored history differs from what was appended (-want +got):\n%s", d)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 5 {
		mem.Messages()
	}
	runtime.ReadMemStats(&after)
	if got, text := after.TotalAlloc-before.TotalAlloc, uint64(results*size); got > text/4 {
		t.Errorf("5 projections allocated %d bytes for %d bytes of tool results; want under %d", got, text, text/4)
	}

	// Undo replaces the history array: what is left keeps its renderings.
	if _, ch := mem.Undo(1); len(ch.Removed) == 0 {
		t.Fatal("undo removed nothing")
	}
	if d := cmp.Diff(want[:len(want)-3], mem.Messages()); d != "" {
		t.Errorf("projection after undo (-want +got):\n%s", d)
	}
}
