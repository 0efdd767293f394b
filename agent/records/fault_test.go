package records_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/osenv/osenvtest"
)

// promptTexts replays dir and returns the text of every turn.prompt.
func promptTexts(t *testing.T, dir string) []string {
	t.Helper()
	o := openLog(t, dir)
	defer o.close(t)
	recs, _ := o.replayAll(t)
	var texts []string
	for _, r := range recs {
		if r.Type != "turn.prompt" {
			continue
		}
		var f struct{ Input []struct{ Text string } }
		if err := records.Decode(r, &f); err != nil {
			t.Fatal(err)
		}
		texts = append(texts, f.Input[0].Text)
	}
	return texts
}

// Every failed append is reported at once, naming the file and the errno;
// the records stay queued, every later Flush retries them, and once the
// fault is gone nothing acknowledged or queued is lost.
func TestWriteFailureKeepsPendingRecords(t *testing.T) {
	for _, tt := range []struct {
		name  string
		fault osenvtest.Fault
		errno string
	}{
		{"disk full with partial writes", osenvtest.Fault{Op: osenvtest.OpWrite, Err: syscall.ENOSPC, Partial: true}, "ENOSPC"},
		{"quota exceeded", osenvtest.Fault{Op: osenvtest.OpWrite, Err: syscall.EDQUOT}, "EDQUOT"},
		{"fsync reports an I/O error", osenvtest.Fault{Op: osenvtest.OpSync, Err: syscall.EIO}, "EIO"},
		{"file system turned read-only", osenvtest.Fault{Op: osenvtest.OpOpen, Err: syscall.EROFS}, "EROFS"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			ffs := osenvtest.NewFaultFS(osenv.LocalFS{})
			o := openLogFS(t, dir, ffs)
			o.record(t, prompt(t, "durable"))
			o.flush(t)
			if tt.fault.Op == osenvtest.OpOpen {
				// The writer keeps its file open; a remount read-only
				// shows on the next open, after the file went away.
				o.close(t)
				o = openLogFS(t, dir, ffs)
				o.replayAll(t)
			}

			clear := ffs.Inject(tt.fault)
			o.record(t, prompt(t, "pending 1"), prompt(t, "pending 2"))
			err := o.log.Flush(t.Context())
			checkWriteError := func(what string, err error) {
				t.Helper()
				var we *records.WriteError
				if !errors.As(err, &we) || we.Path != wirePath(dir) ||
					!errors.Is(err, tt.fault.Err) || !strings.Contains(err.Error(), "("+tt.errno+")") ||
					!strings.HasPrefix(err.Error(), "write records "+wirePath(dir)+": ") {
					t.Fatalf("%s = %v, want a *records.WriteError naming %s and %s", what, err, wirePath(dir), tt.errno)
				}
			}
			checkWriteError("Flush", err)
			errs := o.onErrors()
			if len(errs) == 0 {
				t.Fatal("OnError was not called")
			}
			checkWriteError("OnError", errs[0])
			o.record(t, prompt(t, "pending 3"))
			checkWriteError("Flush while the fault lasts", o.log.Flush(t.Context()))
			if len(ffs.Hits()) < 2 {
				t.Errorf("the second Flush did not try again: hits %v", ffs.Hits())
			}

			clear()
			o.flush(t)
			o.close(t)
			if d := cmp.Diff([]string{"durable", "pending 1", "pending 2", "pending 3"}, promptTexts(t, dir)); d != "" {
				t.Fatalf("records after recovery (-want +got):\n%s", d)
			}
		})
	}
}

func TestCloseReportsUnwrittenRecords(t *testing.T) {
	dir := t.TempDir()
	ffs := osenvtest.NewFaultFS(osenv.LocalFS{})
	o := openLogFS(t, dir, ffs)
	ffs.Inject(osenvtest.Fault{Op: osenvtest.OpWrite, Err: syscall.ENOSPC, Partial: true})
	o.record(t, prompt(t, "lost"))
	err := o.log.Close(t.Context())
	if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "2 records not written") {
		t.Fatalf("Close = %v, want ENOSPC counting 2 unwritten records", err)
	}
	if err := o.log.Record(prompt(t, "late")); !errors.Is(err, records.ErrClosed) {
		t.Fatalf("Record after Close = %v, want ErrClosed", err)
	}
}

// A log deleted (or replaced) under the open writer, as when its session
// directory is removed while kimigo runs, fails every later flush with
// ErrLogRemoved naming the file; nothing is written into the unlinked
// file and nothing is created in its place.
func TestLogRemovedWhileOpen(t *testing.T) {
	removeAll := func(t *testing.T, dir string) {
		if err := os.RemoveAll(filepath.Dir(filepath.Dir(dir))); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		name string
		// reopen closes the log after its first write and opens it
		// again, so the removal comes before the new writer's first write.
		reopen bool
		// gone: the agent home must stay deleted.
		gone   bool
		remove func(t *testing.T, dir string)
	}{
		{"session directory deleted", false, true, removeAll},
		{"session directory deleted before the first write of a resume", true, true, removeAll},
		{"log replaced by another file", false, false, func(t *testing.T, dir string) {
			other := filepath.Join(dir, "other")
			if err := os.WriteFile(other, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(other, wirePath(dir)); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "session", "agents", "main")
			o := openLog(t, dir)
			o.record(t, prompt(t, "one"))
			o.flush(t)
			if tt.reopen {
				o.close(t)
				o = openLog(t, dir)
				o.replayAll(t)
			}
			tt.remove(t, dir)
			before := tree(t, filepath.Dir(filepath.Dir(dir)))
			o.record(t, prompt(t, "two"))
			for range 2 {
				err := o.log.Flush(t.Context())
				if !errors.Is(err, records.ErrLogRemoved) || !strings.Contains(err.Error(), wirePath(dir)) {
					t.Fatalf("Flush = %v, want ErrLogRemoved naming %s", err, wirePath(dir))
				}
			}
			if after := tree(t, filepath.Dir(filepath.Dir(dir))); !cmp.Equal(before, after) {
				t.Errorf("the writer changed the files after the log went away:\n%s", cmp.Diff(before, after))
			}
			if _, err := os.Stat(dir); tt.gone && !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the deleted directory came back: %v", err)
			}
		})
	}
}

// tree maps every file below dir to its content.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		if d.IsDir() || d.Name() == records.LockFileName {
			return nil
		}
		b, err := os.ReadFile(p)
		out[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A Flush whose retry is taken by a batch written around an older fsync
// must hear of that fsync's failure: the failure sends the newer batch
// back to the queue as well, so the retry the Flush asked for has failed.
// Both orders are checked: the batch written while the fsync runs, and
// the batch taken from the queue while the fsync runs but written only
// after its failure was reported. Before the fix the Flush waited forever.
func TestFlushSeesSyncFailureOfBatchWrittenDuringSync(t *testing.T) {
	for _, writtenAfterFailure := range []bool{false, true} {
		name := map[bool]string{false: "written during the fsync", true: "written after the fsync failed"}[writtenAfterFailure]
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				dir := t.TempDir()
				ffs := osenvtest.NewFaultFS(osenv.LocalFS{})
				o := openLogFS(t, dir, ffs)
				o.record(t, prompt(t, "durable"))
				o.flush(t)

				syncHold := make(chan struct{})
				clear := ffs.Inject(osenvtest.Fault{Op: osenvtest.OpSync, Err: syscall.EIO, Hold: syncHold})
				o.record(t, prompt(t, "pending 1"))
				if _, err := o.log.Stage(t.Context()); err != nil { // written; its fsync starts and is held
					t.Fatalf("Stage: %v", err)
				}
				synctest.Wait()

				flushed := make(chan error, 1)
				go func() { flushed <- o.log.Flush(t.Context()) }()
				synctest.Wait() // the Flush waits for the held fsync
				writeHold := make(chan struct{})
				if writtenAfterFailure {
					ffs.Inject(osenvtest.Fault{Op: osenvtest.OpWrite, PathContains: records.LogFileName, Hold: writeHold, Times: 1})
				} else {
					close(writeHold)
				}
				o.record(t, prompt(t, "pending 2")) // taken on the Flush's retry
				synctest.Wait()
				close(syncHold)
				synctest.Wait()
				if writtenAfterFailure {
					close(writeHold)
					synctest.Wait()
				}
				select {
				case err := <-flushed:
					if !errors.Is(err, syscall.EIO) {
						t.Fatalf("Flush = %v, want EIO", err)
					}
				default:
					t.Fatal("Flush still waits after the fsync failed and nothing retries")
				}

				clear()
				o.flush(t)
				o.close(t)
				if d := cmp.Diff([]string{"durable", "pending 1", "pending 2"}, promptTexts(t, dir)); d != "" {
					t.Fatalf("records after recovery (-want +got):\n%s", d)
				}
			})
		})
	}
}
