package records_test

import (
	"io/fs"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/osenv/osenvtest"
)

// countingFS counts fsyncs of files and can hold writes until released.
type countingFS struct {
	osenv.LocalFS
	syncs atomic.Int64
	hold  atomic.Pointer[chan struct{}] // when set, writes wait for the channel to close
}

func (c *countingFS) OpenFile(name string, flag int, perm fs.FileMode) (osenv.File, error) {
	f, err := c.LocalFS.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return &countingFile{File: f, fs: c}, nil
}

type countingFile struct {
	osenv.File
	fs *countingFS
}

func (f *countingFile) Write(b []byte) (int, error) {
	if h := f.fs.hold.Load(); h != nil {
		<-*h
	}
	return f.File.Write(b)
}

func (f *countingFile) Sync() error {
	f.fs.syncs.Add(1)
	return f.File.Sync()
}

func TestConcurrentWritersShareFsyncs(t *testing.T) {
	dir := t.TempDir()
	cfs := &countingFS{}
	o := openLogFS(t, dir, cfs)
	const writers, each = 8, 40
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for n := 1; n <= each; n++ {
				if err := o.log.Record(mustNew(t, seqType, seqFields{W: w, N: n})); err != nil {
					t.Error(err)
					return
				}
				if err := o.log.Flush(t.Context()); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	o.close(t)
	if s := cfs.syncs.Load(); s >= writers*each {
		t.Errorf("%d fsyncs for %d records: no group commit", s, writers*each)
	}
	o = openLog(t, dir)
	recs, _ := o.replayAll(t)
	next := map[int]int{}
	for _, r := range recs[1:] {
		var f seqFields
		if err := records.Decode(r, &f); err != nil {
			t.Fatal(err)
		}
		if f.N != next[f.W]+1 {
			t.Fatalf("writer %d: record %d after %d", f.W, f.N, next[f.W])
		}
		next[f.W] = f.N
	}
	for w := range writers {
		if next[w] != each {
			t.Errorf("writer %d: %d records, want %d", w, next[w], each)
		}
	}
}

func TestAppendDoesNotWaitForTheDisk(t *testing.T) {
	dir := t.TempDir()
	cfs := &countingFS{}
	o := openLogFS(t, dir, cfs)
	hold := make(chan struct{})
	cfs.hold.Store(&hold)
	for i := range 100 { // the writer is stuck in its first write meanwhile
		if err := o.log.Record(mustNew(t, "test.n", map[string]int{"i": i})); err != nil {
			t.Fatal(err)
		}
	}
	close(hold)
	o.close(t)
	o = openLog(t, dir)
	if recs, _ := o.replayAll(t); len(recs) != 101 {
		t.Fatalf("replayed %d records, want metadata and 100", len(recs))
	}
}

// Stage returns once the records are in the file, while their fsync still
// runs; the writer goes on writing later batches during that fsync, and
// the wait Stage returns, like Flush, ends only when the fsync (and, the
// first time, FileOptions.Parents) completed.
func TestStageDoesNotWaitForTheFsync(t *testing.T) {
	dir := t.TempDir()
	ffs := osenvtest.NewFaultFS(osenv.LocalFS{})
	held, reached := make(chan struct{}), make(chan struct{})
	ffs.Inject(osenvtest.Fault{Op: osenvtest.OpSync, PathContains: records.LogFileName, Hold: held, Reached: reached})
	var parents atomic.Int32
	o := openLogOpts(t, dir, records.FileOptions{FS: ffs, Parents: func() error { parents.Add(1); return nil }})
	o.record(t, prompt(t, "first"))
	durable, err := o.log.Stage(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	<-reached // the first batch's fsync is held
	if b, err := os.ReadFile(wirePath(dir)); err != nil || !strings.Contains(string(b), `"first"`) {
		t.Fatalf("the staged record is not in the file (%v):\n%s", err, b)
	}
	o.record(t, prompt(t, "second"))
	if _, err := o.log.Stage(t.Context()); err != nil { // written beside the held fsync
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(wirePath(dir)); !strings.Contains(string(b), `"second"`) {
		t.Fatalf("the second batch waited for the first one's fsync:\n%s", b)
	}
	if n := parents.Load(); n != 0 {
		t.Errorf("Parents ran %d times before the log's fsync completed", n)
	}
	close(held)
	if err := durable(t.Context()); err != nil {
		t.Fatal(err)
	}
	o.flush(t)
	if n := parents.Load(); n != 1 {
		t.Errorf("Parents ran %d times; want once, in the first commit", n)
	}
	o.close(t)
	if d := cmp.Diff([]string{"first", "second"}, promptTexts(t, dir)); d != "" {
		t.Errorf("prompts (-want +got):\n%s", d)
	}
}

// TestBatchesOfEverySizeAreWrittenWhole: batches small and large, one
// after the other (the writer reuses its buffer, and gives up one that
// grew large), each land in the file as their records' lines, and the log
// replays them.
func TestBatchesOfEverySizeAreWrittenWhole(t *testing.T) {
	dir := t.TempDir()
	o := openLog(t, dir)
	var want []records.Record
	for i, size := range []int{10, 300 << 10, 20, 5000, 600 << 10, 1, 70 << 10} {
		batch := []records.Record{prompt(t, strings.Repeat(string(rune('a'+i)), size)), prompt(t, "small")}
		o.record(t, batch...)
		o.flush(t)
		want = append(want, batch...)
	}
	o.close(t)
	lines := readLines(t, dir)[1:]
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d", len(lines), len(want))
	}
	o = openLog(t, dir)
	got, _ := o.replayAll(t)
	o.close(t)
	got = got[1:]
	for i, r := range want {
		if lines[i] != got[i].String() {
			t.Errorf("line %d is not the record replayed from it", i+1)
		}
		if got[i].Type != r.Type || string(got[i].Fields()) != string(r.Fields()) || got[i].Time == 0 {
			t.Errorf("record %d replays as %.80s, want %.80s with a time", i+1, got[i].String(), r.String())
		}
	}
}
