package records_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/osenv"
)

// testNow is the fixed clock of these tests: every stamped time is nowMs.
const nowMs = 1700000000000

func testNow() time.Time { return time.UnixMilli(nowMs) }

// opened is a file-backed log in a temporary agent home.
type opened struct {
	dir  string
	file *records.FilePersistence
	log  *records.Log

	mu   sync.Mutex
	errs []error // guarded by mu: OnError reports
}

// onErrors returns what OnError reported so far.
func (o *opened) onErrors() []error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]error(nil), o.errs...)
}

// openLog opens the log in dir on the real file system.
func openLog(t *testing.T, dir string) *opened {
	t.Helper()
	return openLogFS(t, dir, osenv.LocalFS{})
}

func openLogFS(t *testing.T, dir string, fsys osenv.FS) *opened {
	t.Helper()
	return openLogOpts(t, dir, records.FileOptions{FS: fsys})
}

// openLogOpts opens the log in dir with opts; OnError is the harness's.
func openLogOpts(t *testing.T, dir string, opts records.FileOptions) *opened {
	t.Helper()
	o := &opened{dir: dir}
	opts.Dir = dir
	opts.OnError = func(err error) {
		o.mu.Lock()
		o.errs = append(o.errs, err)
		o.mu.Unlock()
	}
	fp, err := records.OpenFile(opts)
	if err != nil {
		t.Fatalf("OpenFile(%s): %v", dir, err)
	}
	o.file = fp
	o.log = records.NewLog(records.LogOptions{Persistence: fp, Now: testNow})
	t.Cleanup(func() { _ = fp.Close(context.Background()) }) // second Close is a no-op
	return o
}

// replayAll replays o's log and returns the records it yielded.
func (o *opened) replayAll(t *testing.T) (recs []records.Record, warning string) {
	t.Helper()
	warning, err := o.log.Replay(t.Context(), func(r records.Record) error {
		recs = append(recs, r)
		return nil
	})
	if err != nil {
		t.Fatalf("Replay: %v", err)
	}
	return recs, warning
}

func (o *opened) close(t *testing.T) {
	t.Helper()
	if err := o.log.Close(t.Context()); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

func (o *opened) record(t *testing.T, recs ...records.Record) {
	t.Helper()
	for _, r := range recs {
		if err := o.log.Record(r); err != nil {
			t.Fatalf("Record(%s): %v", r.Type, err)
		}
	}
}

func (o *opened) flush(t *testing.T) {
	t.Helper()
	if err := o.log.Flush(t.Context()); err != nil {
		t.Fatalf("Flush: %v", err)
	}
}

// mustNew builds a record or fails the test.
func mustNew(t testing.TB, typ records.Type, fields any) records.Record {
	t.Helper()
	r, err := records.New(typ, fields)
	if err != nil {
		t.Fatalf("New(%s): %v", typ, err)
	}
	return r
}

// prompt is a turn.prompt record with one text part.
func prompt(t testing.TB, text string) records.Record {
	t.Helper()
	return mustNew(t, "turn.prompt", map[string]any{
		"input":  []any{map[string]any{"type": "text", "text": text}},
		"origin": map[string]any{"kind": "user"},
	})
}

func wirePath(dir string) string { return filepath.Join(dir, records.LogFileName) }

// writeWire writes the log file directly: one line per argument, each
// terminated by "\n".
func writeWire(t *testing.T, dir string, lines ...string) {
	t.Helper()
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	writeRaw(t, dir, []byte(b.String()))
}

func writeRaw(t *testing.T, dir string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(wirePath(dir), data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func readRaw(t *testing.T, dir string) []byte {
	t.Helper()
	b, err := os.ReadFile(wirePath(dir))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readLines returns the lines of the log file, failing unless it ends
// with "\n".
func readLines(t *testing.T, dir string) []string {
	t.Helper()
	b := readRaw(t, dir)
	if len(b) > 0 && !bytes.HasSuffix(b, []byte("\n")) {
		t.Fatalf("%s does not end with a newline: %q", wirePath(dir), tail(b))
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

func tail(b []byte) []byte {
	if len(b) > 80 {
		return b[len(b)-80:]
	}
	return b
}

func types(recs []records.Record) []records.Type {
	var out []records.Type
	for _, r := range recs {
		out = append(out, r.Type)
	}
	return out
}

func strs(recs []records.Record) []string {
	var out []string
	for _, r := range recs {
		out = append(out, r.String())
	}
	return out
}
