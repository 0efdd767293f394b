package records_test

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/osenv"
)

// faultFS is the real file system with switchable faults: writes that
// store half their bytes and then report ENOSPC, fsyncs that report EIO,
// renames that report EIO.
type faultFS struct {
	osenv.LocalFS
	failWrite  atomic.Bool
	failSync   atomic.Bool
	failRename atomic.Bool
}

func newFaultFS() *faultFS { return &faultFS{} }

func (f *faultFS) OpenFile(name string, flag int, perm fs.FileMode) (osenv.File, error) {
	file, err := f.LocalFS.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return &faultFile{File: file, fs: f}, nil
}

func (f *faultFS) Rename(oldpath, newpath string) error {
	if f.failRename.Load() {
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: syscall.EIO}
	}
	return f.LocalFS.Rename(oldpath, newpath)
}

type faultFile struct {
	osenv.File
	fs *faultFS
}

func (f *faultFile) Write(b []byte) (int, error) {
	if f.fs.failWrite.Load() {
		n, _ := f.File.Write(b[:len(b)/2]) // a partial write reaches the file
		return n, &fs.PathError{Op: "write", Path: f.Name(), Err: syscall.ENOSPC}
	}
	return f.File.Write(b)
}

func (f *faultFile) Sync() error {
	if f.fs.failSync.Load() {
		return &fs.PathError{Op: "sync", Path: f.Name(), Err: syscall.EIO}
	}
	return f.File.Sync()
}

func TestWriteFailureKeepsPendingRecords(t *testing.T) {
	for _, tt := range []struct {
		name  string
		fault func(*faultFS) *atomic.Bool
		errno syscall.Errno
	}{
		{"disk full with partial writes", func(f *faultFS) *atomic.Bool { return &f.failWrite }, syscall.ENOSPC},
		{"fsync fails", func(f *faultFS) *atomic.Bool { return &f.failSync }, syscall.EIO},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			ffs := newFaultFS()
			o := openLogFS(t, dir, ffs)
			o.record(t, prompt(t, "durable"))
			o.flush(t)

			tt.fault(ffs).Store(true)
			o.record(t, prompt(t, "pending 1"), prompt(t, "pending 2"))
			err := o.log.Flush(t.Context())
			if !errors.Is(err, tt.errno) || !strings.Contains(err.Error(), wirePath(dir)) {
				t.Fatalf("Flush = %v, want %v naming %s", err, tt.errno, wirePath(dir))
			}
			errs := o.onErrors()
			if len(errs) == 0 || !errors.Is(errs[0], tt.errno) || !strings.Contains(errs[0].Error(), wirePath(dir)) {
				t.Fatalf("OnError got %v, want %v naming the file", errs, tt.errno)
			}
			o.record(t, prompt(t, "pending 3"))
			if err := o.log.Flush(t.Context()); !errors.Is(err, tt.errno) {
				t.Fatalf("Flush while the fault lasts = %v", err)
			}

			tt.fault(ffs).Store(false)
			o.flush(t)
			o.close(t)

			o = openLog(t, dir)
			recs, _ := o.replayAll(t)
			var texts []string
			for _, r := range recs[1:] {
				var f struct{ Input []struct{ Text string } }
				if err := records.Decode(r, &f); err != nil {
					t.Fatal(err)
				}
				texts = append(texts, f.Input[0].Text)
			}
			if d := cmp.Diff([]string{"durable", "pending 1", "pending 2", "pending 3"}, texts); d != "" {
				t.Fatalf("records after recovery (-want +got):\n%s", d)
			}
		})
	}
}

func TestCloseReportsUnwrittenRecords(t *testing.T) {
	dir := t.TempDir()
	ffs := newFaultFS()
	o := openLogFS(t, dir, ffs)
	ffs.failWrite.Store(true)
	o.record(t, prompt(t, "lost"))
	err := o.log.Close(t.Context())
	if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "2 records not written") {
		t.Fatalf("Close = %v, want ENOSPC counting 2 unwritten records", err)
	}
	if err := o.log.Record(prompt(t, "late")); !errors.Is(err, records.ErrClosed) {
		t.Fatalf("Record after Close = %v, want ErrClosed", err)
	}
}
