package records_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent/records"
)

const typeCompaction records.Type = "context.apply_compaction"

// supersedeByKept accepts a compaction record that carries
// keptUserMessageCount, the way the agent does.
var supersedeByKept = &records.Supersede{Type: typeCompaction, Accept: func(rec records.Record) bool {
	return bytes.Contains(rec.Fields(), []byte(`"keptUserMessageCount"`))
}}

func toolResult(t *testing.T, id string, output any) records.Record {
	t.Helper()
	return mustNew(t, "context.append_loop_event", map[string]any{"event": map[string]any{
		"type": "tool.result", "toolCallId": id, "result": map[string]any{"output": output, "isError": true, "note": "n"},
	}})
}

func imageOutput(url string) []any {
	return []any{map[string]any{"type": "text", "text": "shot"},
		map[string]any{"type": "image_url", "imageUrl": map[string]any{"url": url}}}
}

// supersedeLog writes a log where tool results a, b sit before the last
// accepted compaction, c and e after it, behind a refused compaction and a
// corrupt line that starts like a compaction.
func supersedeLog(t *testing.T, dir string) []records.Record {
	t.Helper()
	recs := []records.Record{
		toolResult(t, "a", imageOutput("data:image/png;base64,"+b64(8192, 1))),
		mustNew(t, typeCompaction, map[string]any{"summary": "s1", "compactedCount": 2, "tokensBefore": 9, "keptUserMessageCount": 0}),
		toolResult(t, "b", "bbb"),
		mustNew(t, "context.append_loop_event", map[string]any{"event": map[string]any{"type": "step.begin", "uuid": "u"}}),
		mustNew(t, typeCompaction, map[string]any{"summary": "s2", "compactedCount": 2, "tokensBefore": 9, "keptUserMessageCount": 1}),
		toolResult(t, "c", imageOutput("data:image/png;base64,"+b64(8192, 2))),
		mustNew(t, typeCompaction, map[string]any{"summary": "legacy", "compactedCount": 1, "tokensBefore": 9}),
	}
	o := openLog(t, dir)
	o.record(t, recs...)
	o.close(t)
	f, err := os.OpenFile(wirePath(dir), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Corrupt, so replay skips it; it must not count as the last compaction.
	if _, err := f.WriteString(`{"type":"context.apply_compaction","keptUserMessageCount":1,` + "\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	o = openLog(t, dir)
	o.record(t, toolResult(t, "e", "eee"))
	o.close(t)
	return recs
}

// replayDir replays the log in dir with opts and closes it.
func replayDir(t *testing.T, dir string, opts records.ReplayOptions) []string {
	t.Helper()
	o := openLog(t, dir)
	defer o.close(t)
	return replayWith(t, o.log, opts)
}

func replayWith(t *testing.T, l *records.Log, opts records.ReplayOptions) []string {
	t.Helper()
	var out []string
	if _, err := l.ReplayWith(t.Context(), opts, func(rec records.Record) error {
		out = append(out, string(rec.Type)+" "+string(rec.Fields()))
		return nil
	}); err != nil {
		t.Fatalf("ReplayWith: %v", err)
	}
	return out
}

// TestReplaySupersedeFile: before the last accepted compaction, tool
// outputs come empty and their blobs are not read; everything else, and
// everything from the compaction on, is what a plain replay yields.
func TestReplaySupersedeFile(t *testing.T) {
	dir := t.TempDir()
	supersedeLog(t, dir)
	plain := replayDir(t, dir, records.ReplayOptions{})

	// Take away the blob of the elided output: reading it would turn the
	// image into the media-missing text, which the plain replay shows.
	blobA := filepath.Join(dir, "blobs", hashOf(b64(8192, 1)))
	if err := os.Remove(blobA); err != nil {
		t.Fatalf("the image of tool result a was not offloaded: %v", err)
	}
	elided := replayDir(t, dir, records.ReplayOptions{Supersede: supersedeByKept})
	want := append([]string(nil), plain...)
	want[1] = `context.append_loop_event {"event":{"result":{"isError":true,"note":"n","output":""},"toolCallId":"a","type":"tool.result"}}`
	want[3] = `context.append_loop_event {"event":{"result":{"isError":true,"note":"n","output":""},"toolCallId":"b","type":"tool.result"}}`
	if d := cmp.Diff(want, elided); d != "" {
		t.Errorf("elided replay (-want +got):\n%s", d)
	}
	if len(plain) != 10 {
		t.Errorf("plain replay yielded %d records, want 10 (the corrupt line skipped):\n%v", len(plain), plain)
	}
}

// TestReplaySupersedeMemory: the in-memory log elides the same records.
func TestReplaySupersedeMemory(t *testing.T) {
	dir := t.TempDir()
	supersedeLog(t, dir)
	o := openLog(t, dir)
	recs, _ := o.replayAll(t)
	o.close(t)
	fileElided := replayDir(t, dir, records.ReplayOptions{Supersede: supersedeByKept})
	mem := records.NewLog(records.LogOptions{Persistence: records.NewMemory(records.MemoryOptions{Records: recs})})
	if d := cmp.Diff(fileElided, replayWith(t, mem, records.ReplayOptions{Supersede: supersedeByKept})); d != "" {
		t.Errorf("memory replay differs from the file's (-file +memory):\n%s", d)
	}
}

// TestReplaySupersedeNeedsCurrentVersion: a log that is migrated is
// replayed as stored (after migration), and without an accepted record
// nothing is elided.
func TestReplaySupersedeNeedsCurrentVersion(t *testing.T) {
	dir := t.TempDir()
	writeWire(t, dir,
		`{"type":"metadata","protocol_version":"1.3","created_at":1}`,
		`{"type":"context.append_loop_event","event":{"type":"tool.result","toolCallId":"a","result":{"output":"aaa"}}}`,
		`{"type":"context.apply_compaction","summary":"s","compactedCount":1,"tokensBefore":1,"keptUserMessageCount":0}`)
	o := openLog(t, dir)
	o.log = records.NewLog(records.LogOptions{Persistence: o.file, KeepOldFormat: true})
	got := replayWith(t, o.log, records.ReplayOptions{Supersede: supersedeByKept})
	o.close(t)
	if !bytes.Contains([]byte(got[1]), []byte(`"aaa"`)) {
		t.Errorf("a migrated log was elided: %s", got[1])
	}

	dir = t.TempDir()
	writeWire(t, dir, meta14,
		`{"type":"context.append_loop_event","event":{"type":"tool.result","toolCallId":"a","result":{"output":"aaa"}}}`,
		`{"type":"context.apply_compaction","summary":"s","compactedCount":1,"tokensBefore":1}`)
	got = replayDir(t, dir, records.ReplayOptions{Supersede: supersedeByKept})
	if !bytes.Contains([]byte(got[1]), []byte(`"aaa"`)) {
		t.Errorf("elided without an accepted compaction: %s", got[1])
	}
}
