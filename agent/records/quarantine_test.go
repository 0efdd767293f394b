package records_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/osenv/osenvtest"
)

// openQuarantine opens dir's log on fsys and collects what OnQuarantine
// reports.
func openQuarantine(t *testing.T, dir string, fsys osenv.FS) (*records.Log, func() []records.Quarantined) {
	t.Helper()
	var mu sync.Mutex
	var got []records.Quarantined
	fp, err := records.OpenFile(records.FileOptions{FS: fsys, Dir: dir, OnQuarantine: func(q records.Quarantined) {
		mu.Lock()
		got = append(got, q)
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	l := records.NewLog(records.LogOptions{Persistence: fp, Now: testNow})
	t.Cleanup(func() { _ = l.Close(t.Context()) })
	return l, func() []records.Quarantined {
		mu.Lock()
		defer mu.Unlock()
		return append([]records.Quarantined(nil), got...)
	}
}

func replayStrs(t *testing.T, l *records.Log) []string {
	t.Helper()
	var recs []records.Record
	if _, err := l.Replay(t.Context(), func(r records.Record) error { recs = append(recs, r); return nil }); err != nil {
		t.Fatalf("Replay: %v", err)
	}
	return strs(recs)
}

// A garbled or truncated line in the middle of the log is skipped with a
// report naming the file and the line; its original bytes go to the side
// file wire.jsonl.quarantine and out of the log, every other byte of the
// log stays as it was, and appending and replaying go on as usual.
func TestCorruptMiddleLinesAreQuarantined(t *testing.T) {
	dir := t.TempDir()
	garbled := "\x00\x17garbage {{{\r\n"
	truncated := `{"type":"turn.prompt","input":[{"type":"te` + "\n"
	good := []string{meta14, `{"type":"turn.prompt","input":[],"time":2}`, `{"type":"turn.steer","input":[],"time":3}`,
		`{"type":"turn.cancel","time":4}`}
	raw := good[0] + "\n" + good[1] + "\n" + garbled + good[2] + "\r\n" + truncated + "\n" + good[3] + "\n"
	writeRaw(t, dir, []byte(raw))

	l, reports := openQuarantine(t, dir, osenv.LocalFS{})
	if d := cmp.Diff(good, replayStrs(t, l)); d != "" {
		t.Fatalf("replayed records (-want +got):\n%s", d)
	}
	side := wirePath(dir) + records.QuarantineSuffix
	want := []records.Quarantined{
		{Path: wirePath(dir), Line: 3, Bytes: len(garbled), SideFile: side, Removed: true},
		{Path: wirePath(dir), Line: 5, Bytes: len(truncated), SideFile: side, Removed: true},
	}
	if d := cmp.Diff(want, reports()); d != "" {
		t.Fatalf("quarantine reports (-want +got):\n%s", d)
	}
	if msg := reports()[0].String(); !strings.Contains(msg, "line 3 of "+wirePath(dir)) || !strings.Contains(msg, side) {
		t.Errorf("warning %q does not name the file, the line and the side file", msg)
	}
	sideBytes, err := os.ReadFile(side)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []string{garbled, truncated} {
		if !bytes.Contains(sideBytes, []byte(b)) {
			t.Errorf("side file lacks the original bytes %q:\n%q", b, sideBytes)
		}
	}
	// The log is the old bytes without the two lines: \r\n and the empty
	// line stay.
	wantLog := good[0] + "\n" + good[1] + "\n" + good[2] + "\r\n" + "\n" + good[3] + "\n"
	if got := string(readRaw(t, dir)); got != wantLog {
		t.Fatalf("log after quarantine:\n%q\nwant\n%q", got, wantLog)
	}

	if err := l.Record(records.Record{Type: "test.after"}); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	l, reports = openQuarantine(t, dir, osenv.LocalFS{})
	if got := replayStrs(t, l); len(got) != 5 || !strings.HasPrefix(got[4], `{"type":"test.after"`) {
		t.Fatalf("after an append: %v", got)
	}
	if len(reports()) != 0 {
		t.Errorf("a second replay quarantined again: %v", reports())
	}
	if b, _ := os.ReadFile(side); !bytes.Equal(b, sideBytes) {
		t.Errorf("the side file changed on the second replay")
	}
}

// When the side file cannot be written, the line is skipped but stays in
// the log: its bytes are never in neither place. Once the disk recovers,
// the next replay moves it, and a line saved twice is kept once.
func TestQuarantineNeverLosesTheLine(t *testing.T) {
	dir := t.TempDir()
	bad := `{"type":"turn.pro` + "\n"
	raw := meta14 + "\n" + bad + `{"type":"turn.cancel","time":4}` + "\n"
	writeRaw(t, dir, []byte(raw))
	ffs := osenvtest.NewFaultFS(osenv.LocalFS{})

	clear := ffs.Inject(osenvtest.Fault{Op: osenvtest.OpWrite, PathContains: records.QuarantineSuffix, Err: syscall.ENOSPC})
	l, reports := openQuarantine(t, dir, ffs)
	if got := replayStrs(t, l); len(got) != 2 {
		t.Fatalf("replayed %v", got)
	}
	if r := reports(); len(r) != 1 || r[0].SideFile != "" || r[0].Removed || r[0].Line != 2 {
		t.Fatalf("reports = %+v, want line 2 skipped and left in the log", r)
	}
	if got := string(readRaw(t, dir)); got != raw {
		t.Fatalf("the log changed although the side file failed: %q", got)
	}
	clear()
	l.Close(t.Context())

	// The side file is written, but the copy of the log fails: the line
	// stays in the log and in the side file.
	clear = ffs.Inject(osenvtest.Fault{Op: osenvtest.OpRename, Err: syscall.EIO})
	l, reports = openQuarantine(t, dir, ffs)
	replayStrs(t, l)
	if r := reports(); len(r) != 1 || r[0].SideFile == "" || r[0].Removed {
		t.Fatalf("reports = %+v, want saved but not removed", r)
	}
	if got := string(readRaw(t, dir)); got != raw {
		t.Fatalf("the log changed although the rename failed: %q", got)
	}
	clear()
	l.Close(t.Context())

	l, reports = openQuarantine(t, dir, ffs)
	replayStrs(t, l)
	if r := reports(); len(r) != 1 || !r[0].Removed {
		t.Fatalf("reports = %+v, want the line moved", r)
	}
	side, _ := os.ReadFile(wirePath(dir) + records.QuarantineSuffix)
	if n := bytes.Count(side, []byte(bad)); n != 1 {
		t.Errorf("side file holds the line %d times:\n%s", n, side)
	}
	if _, err := os.Stat(wirePath(dir) + ".tmp"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a temporary copy was left behind: %v", err)
	}
}

// A log of a newer protocol version is never touched: a corrupt line in it
// fails the replay, naming the file and the line.
func TestNewerVersionLogIsNotQuarantined(t *testing.T) {
	dir := t.TempDir()
	writeWire(t, dir, `{"type":"metadata","protocol_version":"9.9","created_at":1}`, `{"type":"x"`, `{"type":"y"}`)
	before := readRaw(t, dir)
	l, reports := openQuarantine(t, dir, osenv.LocalFS{})
	_, err := l.Replay(t.Context(), func(records.Record) error { return nil })
	var le *records.LineError
	if !errors.As(err, &le) || le.Line != 2 || le.Path != wirePath(dir) {
		t.Fatalf("Replay = %v, want a *LineError for line 2", err)
	}
	l.Close(t.Context())
	if after := readRaw(t, dir); !bytes.Equal(before, after) || len(reports()) != 0 {
		t.Errorf("the newer log was touched: %q, reports %v", after, reports())
	}
	if _, err := os.Stat(wirePath(dir) + records.QuarantineSuffix); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a newer log got a quarantine file: %v", err)
	}
}
