package records_test

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/osenv/osenvtest"
)

const meta14 = `{"type":"metadata","protocol_version":"1.4","created_at":1}`

func TestS38Metadata(t *testing.T) {
	t.Run("fresh log writes metadata then the record", func(t *testing.T) {
		dir := t.TempDir()
		o := openLog(t, dir)
		o.record(t, prompt(t, "hi"))
		o.flush(t)
		want := []string{
			`{"type":"metadata","protocol_version":"1.4","created_at":1700000000000}`,
			`{"type":"turn.prompt","input":[{"text":"hi","type":"text"}],"origin":{"kind":"user"},"time":1700000000000}`,
		}
		if d := cmp.Diff(want, readLines(t, dir)); d != "" {
			t.Fatalf("lines (-want +got):\n%s", d)
		}
		o.close(t)

		o = openLog(t, dir)
		recs, _ := o.replayAll(t)
		if d := cmp.Diff([]records.Type{records.TypeMetadata, "turn.prompt"}, types(recs)); d != "" {
			t.Fatalf("replayed types (-want +got):\n%s", d)
		}
		o.record(t, prompt(t, "again"))
		o.close(t)
		lines := readLines(t, dir)
		metas := 0
		for _, l := range lines {
			if strings.Contains(l, `"type":"metadata"`) {
				metas++
			}
		}
		if len(lines) != 3 || metas != 1 {
			t.Fatalf("after resume: %d lines with %d metadata records, want 3 and 1:\n%s",
				len(lines), metas, strings.Join(lines, "\n"))
		}
	})
	t.Run("missing file replays and writes nothing", func(t *testing.T) {
		dir := t.TempDir()
		o := openLog(t, dir)
		if recs, _ := o.replayAll(t); len(recs) != 0 {
			t.Fatalf("replayed %d records from no file", len(recs))
		}
		o.close(t)
		if _, err := os.Stat(wirePath(dir)); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("replay of a missing log created it: %v", err)
		}
	})
	t.Run("empty file replays and writes nothing", func(t *testing.T) {
		dir := t.TempDir()
		writeRaw(t, dir, nil)
		o := openLog(t, dir)
		if recs, _ := o.replayAll(t); len(recs) != 0 {
			t.Fatalf("replayed %d records from an empty file", len(recs))
		}
		o.close(t)
		if b := readRaw(t, dir); len(b) != 0 {
			t.Fatalf("replay of an empty log wrote %q", b)
		}
	})
	t.Run("first record after an empty replay brings metadata", func(t *testing.T) {
		dir := t.TempDir()
		o := openLog(t, dir)
		o.replayAll(t)
		o.record(t, prompt(t, "hi"))
		o.close(t)
		if lines := readLines(t, dir); len(lines) != 2 || !strings.Contains(lines[0], `"type":"metadata"`) {
			t.Fatalf("lines = %q, want metadata then the prompt", lines)
		}
	})
}

func TestS39NoMetadata(t *testing.T) {
	dir := t.TempDir()
	writeWire(t, dir, `{"type":"turn.prompt","input":[],"time":5}`)
	o := openLog(t, dir)
	_, err := o.log.Replay(t.Context(), func(records.Record) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "AgentRecords replay expected metadata as the first record") {
		t.Fatalf("Replay = %v, want the missing-metadata error", err)
	}
	if !strings.Contains(err.Error(), wirePath(dir)) || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("error %q does not name the file and line", err)
	}
}

func TestS40CrashMidWrite(t *testing.T) {
	complete := []string{meta14, `{"type":"turn.prompt","input":[],"time":2}`}
	last := `{"type":"context.append_message","message":{"role":"user","content":[]},"time":3}`
	for cut := 1; cut <= len(last); cut++ {
		t.Run(fmt.Sprintf("cut at %d of %d", cut, len(last)), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			content := strings.Join(complete, "\n") + "\n" + last[:cut]
			writeRaw(t, dir, []byte(content))
			want := len(complete)
			if cut == len(last) {
				want++ // a complete last line that only lost its newline
			}
			o := openLog(t, dir)
			recs, _ := o.replayAll(t)
			if len(recs) != want {
				t.Fatalf("first resume restored %d records, want %d", len(recs), want)
			}
			o.record(t, prompt(t, "after the crash"))
			o.close(t)

			o = openLog(t, dir)
			recs, _ = o.replayAll(t)
			o.close(t)
			if len(recs) != want+1 || recs[want].Type != "turn.prompt" {
				t.Fatalf("second resume restored %q, want %d records then the new prompt", types(recs), want)
			}
			readLines(t, dir) // fails unless the file ends with "\n"
		})
	}
}

// TestS41Corruption: the hostile-conditions issue replaces "refuse" by
// quarantine for lines after the metadata record (quarantine_test.go); a
// corrupt first line still refuses, naming the file and the line, and
// leaves the log as it was.
func TestS41Corruption(t *testing.T) {
	dir := t.TempDir()
	writeWire(t, dir, `{"type":"metadata","protocol_vers`, `{"type":"turn.prompt","input":[],"time":3}`)
	before := readRaw(t, dir)
	o := openLog(t, dir)
	_, err := o.log.Replay(t.Context(), func(records.Record) error { return nil })
	var le *records.LineError
	if !errors.As(err, &le) || le.Line != 1 {
		t.Fatalf("Replay = %v, want a *LineError for line 1", err)
	}
	want := "wire.jsonl: corrupted line 1 in " + wirePath(dir) + ": "
	if !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %q does not start with %q", err, want)
	}
	o.close(t)
	if after := readRaw(t, dir); !bytes.Equal(before, after) {
		t.Errorf("a failed replay changed the log:\n%q\n%q", before, after)
	}
	if _, err := os.Stat(wirePath(dir) + records.QuarantineSuffix); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a refused log got a quarantine file: %v", err)
	}
}

// TestS42WriteFailure follows ERRATA 6: write errors are not sticky.
func TestS42WriteFailure(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(wirePath(dir), 0o700); err != nil { // the log path is a directory
		t.Fatal(err)
	}
	o := openLog(t, dir)
	o.record(t, prompt(t, "one"))
	err := o.log.Flush(t.Context())
	checkWriteErr := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, syscall.EISDIR) || !strings.Contains(err.Error(), wirePath(dir)) {
			t.Errorf("%s = %v, want an EISDIR error naming %s", what, err, wirePath(dir))
		}
	}
	checkWriteErr("Flush", err)
	errs := o.onErrors()
	if len(errs) == 0 {
		t.Fatal("OnError was not called")
	}
	checkWriteErr("OnError", errs[0])

	o.record(t, prompt(t, "two")) // appending still works
	checkWriteErr("second Flush", o.log.Flush(t.Context()))

	if err := os.Remove(wirePath(dir)); err != nil {
		t.Fatal(err)
	}
	o.flush(t) // the retry writes everything that was pending
	o.close(t)
	o = openLog(t, dir)
	recs, _ := o.replayAll(t)
	if d := cmp.Diff([]records.Type{records.TypeMetadata, "turn.prompt", "turn.prompt"}, types(recs)); d != "" {
		t.Fatalf("records after recovery (-want +got):\n%s", d)
	}
}

func TestS43RewriteOrdering(t *testing.T) {
	t.Run("append rewrite append", func(t *testing.T) {
		dir := t.TempDir()
		o := openLog(t, dir)
		p := o.file
		old, newer, later := mustNew(t, "test.old", nil), mustNew(t, "test.new", nil), mustNew(t, "test.later", nil)
		var meta records.Record
		if err := meta.UnmarshalJSON([]byte(meta14)); err != nil {
			t.Fatal(err)
		}
		for _, err := range []error{p.Append(old), p.Rewrite([]records.Record{meta, newer}), p.Append(later), p.Flush(t.Context())} {
			if err != nil {
				t.Fatal(err)
			}
		}
		want := []string{meta14, `{"type":"test.new"}`, `{"type":"test.later"}`}
		if d := cmp.Diff(want, readLines(t, dir)); d != "" {
			t.Fatalf("lines (-want +got):\n%s", d)
		}
	})
	t.Run("a crash before the rename leaves the old log", func(t *testing.T) {
		dir := t.TempDir()
		writeWire(t, dir, meta14, `{"type":"test.old"}`)
		if err := os.WriteFile(wirePath(dir)+".tmp", []byte(`{"type":"metadata","proto`), 0o600); err != nil {
			t.Fatal(err)
		}
		o := openLog(t, dir)
		recs, _ := o.replayAll(t)
		if d := cmp.Diff([]string{meta14, `{"type":"test.old"}`}, strs(recs)); d != "" {
			t.Fatalf("records (-want +got):\n%s", d)
		}
	})
	t.Run("a failed rename leaves the complete old log, the retry the complete new one", func(t *testing.T) {
		dir := t.TempDir()
		writeWire(t, dir, meta14, `{"type":"test.old"}`)
		before := readRaw(t, dir)
		ffs := osenvtest.NewFaultFS(osenv.LocalFS{})
		o := openLogFS(t, dir, ffs)
		clear := ffs.Inject(osenvtest.Fault{Op: osenvtest.OpRename, Err: syscall.EIO})
		if err := o.file.Rewrite([]records.Record{mustNew(t, "test.new", nil)}); err != nil {
			t.Fatal(err)
		}
		if err := o.file.Flush(t.Context()); !errors.Is(err, syscall.EIO) {
			t.Fatalf("Flush with a failing rename = %v, want EIO", err)
		}
		if after := readRaw(t, dir); !bytes.Equal(before, after) {
			t.Fatalf("failed rewrite changed the log to %q", after)
		}
		clear()
		o.flush(t)
		if d := cmp.Diff([]string{`{"type":"test.new"}`}, readLines(t, dir)); d != "" {
			t.Fatalf("lines after retry (-want +got):\n%s", d)
		}
	})
}

func TestS45UnknownTypes(t *testing.T) {
	dir := t.TempDir()
	unknown := `{"type":"future.thing", "x": 1,  "nested": {"b":2,"a":[1.50,"\u00e9"]}}`
	writeWire(t, dir, `{"type":"metadata","protocol_version":"1.3","created_at":1}`, unknown)
	o := openLog(t, dir)
	recs, _ := o.replayAll(t)
	if len(recs) != 2 || recs[1].Type != "future.thing" {
		t.Fatalf("replayed %q, want metadata and future.thing", types(recs))
	}
	want := []string{meta14, unknown}
	if d := cmp.Diff(want, readLines(t, dir)); d != "" {
		t.Fatalf("migration rewrite (-want +got):\n%s", d)
	}
}

// snapshotRecorder stands in for an observability producer: it keeps the
// dedup cursor that replay restores and writes only once the log is open.
type snapshotRecorder struct {
	log      *records.Log
	lastHash string
}

func (s *snapshotRecorder) restore(rec records.Record) error {
	if rec.Type != records.TypeToolsSnapshot {
		return nil
	}
	var f struct{ Hash string }
	if err := records.Decode(rec, &f); err != nil {
		return err
	}
	s.lastHash = f.Hash
	return nil
}

func (s *snapshotRecorder) request(t *testing.T, hash string) {
	t.Helper()
	if !s.log.ObservabilityReady() {
		t.Fatal("observability record attempted before the log opened")
	}
	if hash == s.lastHash {
		return
	}
	s.lastHash = hash
	if err := s.log.Record(mustNew(t, records.TypeToolsSnapshot, map[string]any{"hash": hash, "tools": []any{}})); err != nil {
		t.Fatal(err)
	}
}

func TestS46ObservabilityCursors(t *testing.T) {
	dir := t.TempDir()
	writeWire(t, dir, meta14, `{"type":"llm.tools_snapshot","hash":"H","tools":[],"time":2}`, `{"type":"turn.prompt","input":[],"time":3}`)
	before := readRaw(t, dir)
	o := openLog(t, dir)
	s := &snapshotRecorder{log: o.log}

	var openedDuring []bool
	o.log.OnOpened(func() { openedDuring = append(openedDuring, true) })
	_, err := o.log.Replay(t.Context(), func(rec records.Record) error {
		if o.log.ObservabilityReady() {
			t.Error("log open during replay")
		}
		// Restoring goes through the same mutators as live code; whatever
		// they record while replaying is dropped.
		if err := o.log.Record(mustNew(t, records.TypeLLMRequest, map[string]any{"kind": "loop"})); err != nil {
			t.Error(err)
		}
		return s.restore(rec)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(openedDuring) != 1 || !o.log.ObservabilityReady() {
		t.Fatalf("OnOpened ran %d times, ready=%v; want once, after the replay", len(openedDuring), o.log.ObservabilityReady())
	}
	o.flush(t)
	if after := readRaw(t, dir); !bytes.Equal(before, after) {
		t.Fatalf("replay wrote records:\n%s", after)
	}
	s.request(t, "H") // same tool table: no second snapshot
	s.request(t, "H2")
	o.close(t)
	lines := readLines(t, dir)
	snaps := slices.DeleteFunc(lines, func(l string) bool { return !strings.Contains(l, `"llm.tools_snapshot"`) })
	if len(snaps) != 2 || !strings.Contains(snaps[1], `"H2"`) {
		t.Fatalf("snapshot lines = %q, want the old H and one new H2", snaps)
	}
	for _, typ := range []records.Type{records.TypeToolsSnapshot, records.TypeLLMRequest, records.TypeMCPToolsDiscovered} {
		if !records.IsObservability(typ) {
			t.Errorf("IsObservability(%s) = false", typ)
		}
	}
	if records.IsObservability("turn.prompt") || records.IsObservability(records.TypeMetadata) {
		t.Error("a state record counts as observability")
	}
}

func TestRangeLimitedReplayNeitherOpensNorRewrites(t *testing.T) {
	dir := t.TempDir()
	writeWire(t, dir, `{"type":"metadata","protocol_version":"1.3","created_at":1}`, `{"type":"turn.prompt","input":[],"time":2}`, `{"type":"turn.prompt","input":[],"time":3}`)
	before := readRaw(t, dir)
	o := openLog(t, dir)
	n := 0
	_, err := o.log.Replay(t.Context(), func(records.Record) error {
		n++
		if n == 2 {
			return records.ErrStopReplay
		}
		return nil
	})
	if err != nil || n != 2 {
		t.Fatalf("Replay = %v after %d records, want nil after 2", err, n)
	}
	if o.log.ObservabilityReady() {
		t.Error("a range-limited replay opened the log")
	}
	o.close(t)
	if after := readRaw(t, dir); !bytes.Equal(before, after) {
		t.Errorf("a range-limited replay rewrote the log:\n%s", after)
	}
}

func TestReplayErrorNamesRecordLine(t *testing.T) {
	dir := t.TempDir()
	writeWire(t, dir, meta14, "", `{"type":"turn.prompt","input":[],"time":2}`)
	o := openLog(t, dir)
	boom := errors.New("boom")
	_, err := o.log.Replay(t.Context(), func(r records.Record) error {
		if r.Type == "turn.prompt" {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "line 3 of "+filepath.Join(dir, "wire.jsonl")) {
		t.Fatalf("Replay = %v, want boom naming line 3 and the file", err)
	}
}
