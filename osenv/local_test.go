package osenv_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/kimigo/kimigo/osenv"
)

func TestLocalCwdAndEnvironment(t *testing.T) {
	dir := t.TempDir()
	l := osenv.NewLocal(osenv.LocalOptions{Cwd: dir, Home: "/h", Environ: []string{"A=1", "B=2", "bad"}})
	if l.Cwd() != dir || l.Home() != "/h" || l.PathClass() != osenv.PathPOSIX {
		t.Fatalf("cwd %q home %q", l.Cwd(), l.Home())
	}
	sub := l.WithCwd("sub")
	if sub.Cwd() != filepath.Join(dir, "sub") || l.Cwd() != dir {
		t.Errorf("WithCwd changed the receiver or resolved wrongly: %q", sub.Cwd())
	}
	e := l.WithEnv(map[string]string{"A": "", "C": "3"})
	if got := e.Environ(); !slices.Equal(got, []string{"B=2", "C=3"}) || l.Getenv("A") != "1" {
		t.Errorf("overlay: %v (base A=%q)", got, l.Getenv("A"))
	}
	if l.Normpath("/a/./b/../c/") != "/a/c" || l.Normpath("") != "" {
		t.Error("Normpath")
	}
	if s := l.Shell(); s.Path == "" || (s.Name != "bash" && s.Name != "sh") {
		t.Errorf("shell %+v", s)
	}
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := l.ReadFile("f"); err != nil || string(b) != "x" {
		t.Errorf("relative read: %q %v", b, err)
	}
}

func TestLocalExec(t *testing.T) {
	dir := t.TempDir()
	l := osenv.NewLocal(osenv.LocalOptions{Cwd: dir, Environ: []string{"PATH=" + os.Getenv("PATH"), "X=base"}})
	p, err := l.Exec(osenv.Cmd{Args: []string{"/bin/sh", "-c", `pwd; echo "$X $Y"; echo err >&2; read v; echo "[$v]"; exit 7`}, Env: []string{"Y=extra"}})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := io.ReadAll(p.Stdout())
	errOut, _ := io.ReadAll(p.Stderr())
	if err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	if code, ok := p.ExitCode(); !ok || code != 7 {
		t.Errorf("exit = %d, %v", code, ok)
	}
	if want := dir + "\nbase extra\n[]\n"; string(out) != want || string(errOut) != "err\n" {
		t.Errorf("stdout %q stderr %q", out, errOut)
	}
	if err := p.Close(); err != nil {
		t.Error(err)
	}

	// Combined output keeps the written order; a signal death reports 128+N.
	p, err = l.Exec(osenv.Cmd{Args: []string{"/bin/sh", "-c", "echo a; echo b >&2; echo c; kill -TERM $$"}, CombinedOutput: true})
	if err != nil {
		t.Fatal(err)
	}
	out, _ = io.ReadAll(p.Stdout())
	<-p.Done()
	if code, _ := p.ExitCode(); string(out) != "a\nb\nc\n" || code != 128+int(syscall.SIGTERM) {
		t.Errorf("combined %q exit %d", out, code)
	}
	_ = p.Close()

	if _, err := l.Exec(osenv.Cmd{Args: []string{filepath.Join(dir, "nope")}}); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("missing binary: %v", err)
	}
	if _, err := l.Exec(osenv.Cmd{}); err == nil {
		t.Error("empty argv accepted")
	}
}

func TestLocalKillReachesTheGroup(t *testing.T) {
	l := osenv.NewLocal(osenv.LocalOptions{Environ: []string{"PATH=" + os.Getenv("PATH")}})
	p, err := l.Exec(osenv.Cmd{Args: []string{"/bin/sh", "-c", "sleep 100 & echo $!; wait"}})
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, _ := p.Stdout().Read(buf)
	if err := p.Kill(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	// The grandchild was in the group: the pipe it held reaches EOF.
	rest, _ := io.ReadAll(p.Stdout())
	if n == 0 || len(rest) != 0 {
		t.Errorf("read %q then %q", buf[:n], rest)
	}
	if err := p.Kill(syscall.SIGKILL); err != nil {
		t.Errorf("killing a gone group: %v", err)
	}
	_ = p.Close()
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	l := osenv.LocalFS{Dir: dir}
	if err := osenv.WriteFileAtomic(l, "a", []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(dir, "a"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := osenv.WriteFileAtomic(l, filepath.Join(dir, "a"), []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(filepath.Join(dir, "a"))
	b, _ := os.ReadFile(filepath.Join(dir, "a"))
	if string(b) != "two" || fi.Mode().Perm() != 0o640 {
		t.Errorf("content %q mode %v", b, fi.Mode().Perm())
	}
	if err := os.Symlink("a", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := osenv.WriteFileAtomic(l, filepath.Join(dir, "link"), []byte("three"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a")); string(b) != "three" {
		t.Errorf("symlink target = %q", b)
	}
	if fi, _ := os.Lstat(filepath.Join(dir, "link")); fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the link was replaced")
	}
	err := osenv.WriteFileAtomic(l, filepath.Join(dir, "missing", "x"), []byte("x"), 0o600)
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing dir: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("temp files left behind: %v", entries)
	}
}

func TestWithin(t *testing.T) {
	for _, tt := range []struct {
		p, root string
		want    bool
	}{{"/ws", "/ws", true}, {"/ws/a", "/ws", true}, {"/ws-evil", "/ws", false}, {"/x", "/", true}, {"/w", "/ws", false}} {
		if got := osenv.Within(tt.p, tt.root); got != tt.want {
			t.Errorf("Within(%q, %q) = %v", tt.p, tt.root, got)
		}
	}
}
