package osenvtest_test

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/osenv/osenvtest"
)

func TestMemFSBehavesLikeAFileSystem(t *testing.T) {
	m := osenvtest.NewMemFS("/ws")
	if err := m.MkdirAll("a/b", 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := m.OpenFile("a/b/f.txt", os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("hello world")); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(5); err != nil {
		t.Fatal(err)
	}
	_ = f.Close()
	if b, err := m.ReadFile("/ws/a/b/f.txt"); err != nil || string(b) != "hello" {
		t.Fatalf("ReadFile = %q, %v", b, err)
	}
	r, _ := m.OpenFile("a/b/f.txt", os.O_RDONLY, 0)
	if _, err := r.Seek(-3, io.SeekEnd); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(r)
	buf := make([]byte, 2)
	n, _ := r.ReadAt(buf, 0)
	if string(rest) != "llo" || string(buf[:n]) != "he" {
		t.Errorf("seek/readAt: %q %q", rest, buf[:n])
	}
	if _, err := r.Write([]byte("x")); err == nil {
		t.Error("wrote through a read-only handle")
	}
	_ = r.Close()

	for _, tt := range []struct {
		name string
		err  error
		want error
	}{
		{"stat missing", second(m.Stat("nope")), fs.ErrNotExist},
		{"open below a file", second(m.OpenFile("a/b/f.txt/x", os.O_CREATE|os.O_WRONLY, 0o644)), syscall.ENOTDIR},
		{"create in a missing dir", second(m.OpenFile("zz/x", os.O_CREATE|os.O_WRONLY, 0o644)), fs.ErrNotExist},
		{"exclusive create of an existing file", second(m.OpenFile("a/b/f.txt", os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)), fs.ErrExist},
		{"remove a non-empty dir", m.Remove("a"), syscall.ENOTEMPTY},
		{"read a dir", second(m.ReadFile("a")), syscall.EISDIR},
	} {
		if !errors.Is(tt.err, tt.want) {
			t.Errorf("%s: %v; want %v", tt.name, tt.err, tt.want)
		}
	}
	if err := m.Rename("a", "c"); err != nil {
		t.Fatal(err)
	}
	entries, _ := m.ReadDir("c/b")
	if len(entries) != 1 || entries[0].Name() != "f.txt" {
		t.Errorf("renamed tree: %v", entries)
	}
	if _, err := m.Stat("a/b/f.txt"); !errors.Is(err, fs.ErrNotExist) {
		t.Error("old path survived the rename")
	}
	unlock, err := m.Lock("c/.lock")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.WithDir("/").Lock("/ws/c/.lock"); !errors.Is(err, osenv.ErrLocked) {
		t.Errorf("second lock: %v", err)
	}
	_ = unlock()
	if _, err := m.Lock("c/.lock"); err != nil {
		t.Errorf("lock after unlock: %v", err)
	}
}

func second[T any](_ T, err error) error { return err }

func TestEnvAndRunner(t *testing.T) {
	e := osenvtest.New(osenvtest.Options{Environ: []string{"A=1"}, Files: map[string]string{"x.txt": "x"},
		Run: func(c osenv.Cmd) osenvtest.Result {
			if c.Args[0] == "fail" {
				return osenvtest.Result{StartErr: errors.New("no such binary")}
			}
			return osenvtest.Result{Stdout: "out", Stderr: "err", ExitCode: 3}
		}})
	if b, err := e.ReadFile("/ws/x.txt"); err != nil || string(b) != "x" {
		t.Fatalf("fixture: %q %v", b, err)
	}
	sub := e.WithCwd("sub").WithEnv(map[string]string{"B": "2"})
	p, err := sub.Exec(osenv.Cmd{Args: []string{"tool", "arg"}, Env: []string{"C=3"}})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := io.ReadAll(p.Stdout())
	_ = p.Wait()
	if code, ok := p.ExitCode(); string(out) != "out" || code != 3 || !ok {
		t.Errorf("fake process: %q %d %v", out, code, ok)
	}
	if _, err := e.Exec(osenv.Cmd{Args: []string{"fail"}}); err == nil {
		t.Error("StartErr ignored")
	}
	want := osenv.Cmd{Args: []string{"tool", "arg"}, Dir: "/ws/sub", Env: []string{"A=1", "B=2", "C=3"}}
	if diff := cmp.Diff(want, e.Runner().Commands()[0]); diff != "" {
		t.Errorf("recorded command (-want +got):\n%s", diff)
	}
}

func TestDenyRefusesEverySideEffect(t *testing.T) {
	base := osenvtest.New(osenvtest.Options{Files: map[string]string{"a.txt": "keep"}})
	d := osenvtest.DenyOver(base)
	if b, err := d.ReadFile("a.txt"); err != nil || string(b) != "keep" {
		t.Fatalf("reads must work: %q %v", b, err)
	}
	if f, err := d.OpenFile("a.txt", os.O_RDONLY, 0); err != nil {
		t.Fatalf("read-only open: %v", err)
	} else {
		_ = f.Close()
	}
	effects := []error{
		second(d.OpenFile("a.txt", os.O_WRONLY|os.O_TRUNC, 0)),
		second(d.OpenFile("new.txt", os.O_CREATE|os.O_RDONLY, 0o644)),
		d.MkdirAll("dir", 0o755),
		d.Rename("a.txt", "b.txt"),
		d.Remove("a.txt"),
		d.SyncDir("."),
		second(d.Lock(".lock")),
		second(d.Exec(osenv.Cmd{Args: []string{"true"}})),
		second(d.WithCwd("/").Exec(osenv.Cmd{Args: []string{"true"}})),
		osenv.WriteFileAtomic(d, "a.txt", []byte("new"), 0o644),
	}
	for i, err := range effects {
		if !errors.Is(err, osenvtest.ErrDenied) {
			t.Errorf("effect %d: %v; want ErrDenied", i, err)
		}
	}
	if got := len(d.Attempts()); got != len(effects) {
		t.Errorf("%d attempts recorded; want %d", got, len(effects))
	}
	if b, _ := base.ReadFile("a.txt"); string(b) != "keep" || len(base.Runner().Commands()) != 0 {
		t.Error("a denied effect reached the base environment")
	}
	if len(osenvtest.Deny().Attempts()) != 0 {
		t.Error("a fresh Deny has attempts")
	}
}
