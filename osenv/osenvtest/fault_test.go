package osenvtest_test

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/osenv/osenvtest"
)

// A FaultFS fails exactly the operations its faults name, on the paths
// they name, as often as they say, with errors that name the path and wrap
// the errno; a partial write stores half its bytes; reads never fail; and
// once cleared everything works again.
func TestFaultFS(t *testing.T) {
	m := osenvtest.NewMemFS("/ws")
	f := osenvtest.NewFaultFS(m)
	clearWrite := f.Inject(osenvtest.Fault{Op: osenvtest.OpWrite, PathContains: "log", Err: syscall.ENOSPC, Partial: true, Skip: 1})
	f.Inject(osenvtest.Fault{Op: osenvtest.OpSync, Err: syscall.EIO, Times: 1})
	f.Inject(osenvtest.Fault{Op: osenvtest.OpRename, PathContains: "dst", Err: syscall.EROFS})

	w, err := f.OpenFile("/ws/log", os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte("first\n")); err != nil { // skipped once
		t.Fatalf("first write = %v", err)
	}
	n, err := w.Write([]byte("second\n"))
	var pe *fs.PathError
	if n != 3 || !errors.As(err, &pe) || pe.Path != "/ws/log" || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("second write = %d, %v; want 3 bytes and ENOSPC naming /ws/log", n, err)
	}
	if err := w.Sync(); !errors.Is(err, syscall.EIO) {
		t.Fatalf("first sync = %v, want EIO", err)
	}
	if err := w.Sync(); err != nil {
		t.Fatalf("second sync = %v; the fault was for one sync", err)
	}
	if b, err := f.ReadFile("/ws/log"); err != nil || string(b) != "first\nsec" {
		t.Fatalf("ReadFile = %q, %v; reads never fail and see the partial write", b, err)
	}
	other, _ := f.OpenFile("/ws/other", os.O_CREATE|os.O_WRONLY, 0o600)
	if _, err := other.Write([]byte("x")); err != nil {
		t.Fatalf("write to a path the fault does not name = %v", err)
	}
	var le *os.LinkError
	if err := f.Rename("/ws/other", "/ws/dst"); !errors.As(err, &le) || !errors.Is(err, syscall.EROFS) {
		t.Fatalf("Rename = %v, want an *os.LinkError wrapping EROFS", err)
	}

	clearWrite()
	if _, err := w.Write([]byte("ond\n")); err != nil {
		t.Fatalf("write after clear = %v", err)
	}
	f.Clear()
	if err := f.Rename("/ws/other", "/ws/dst"); err != nil {
		t.Fatalf("Rename after Clear = %v", err)
	}
	want := []string{"write /ws/log: no space left on device", "sync /ws/log: input/output error",
		"rename /ws/dst: read-only file system"}
	if d := cmp.Diff(want, f.Hits()); d != "" {
		t.Errorf("Hits (-want +got):\n%s", d)
	}
	f.Inject(osenvtest.Fault{Op: osenvtest.OpOpen, Err: syscall.EDQUOT})
	if _, err := f.OpenFile("/ws/log", os.O_RDONLY, 0); err != nil {
		t.Errorf("a read-only open failed under an open fault: %v", err)
	}
	if _, err := f.OpenFile("/ws/new", os.O_CREATE|os.O_WRONLY, 0o600); !errors.Is(err, syscall.EDQUOT) {
		t.Errorf("create under an open fault = %v, want EDQUOT", err)
	}
	for _, op := range []func() error{
		func() error { return f.MkdirAll("/ws/d", 0o700) },
		func() error { return f.Remove("/ws/dst") },
		func() error { return f.SyncDir("/ws") },
		func() error { _, err := f.Lock("/ws/.lock"); return err },
	} {
		if err := op(); err != nil {
			t.Errorf("an operation no fault names failed: %v", err)
		}
	}
}
