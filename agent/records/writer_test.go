package records_test

import (
	"io/fs"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/osenv"
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
