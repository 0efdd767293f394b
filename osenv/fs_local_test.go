package osenv

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestLocalFSRelativeNamesUseDir(t *testing.T) {
	dir := t.TempDir()
	l := LocalFS{Dir: dir}
	f, err := l.OpenFile("a.txt", os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("hi")); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "a.txt")); err != nil || string(b) != "hi" {
		t.Fatalf("file not under Dir: %q %v", b, err)
	}
	if err := l.SyncDir("."); err != nil {
		t.Fatal(err)
	}
	_, err = l.Stat("missing")
	var pe *os.PathError
	if !errors.As(err, &pe) || pe.Path != filepath.Join(dir, "missing") {
		t.Errorf("Stat error %v does not name the path", err)
	}
}

func TestLocalFSLockIsExclusive(t *testing.T) {
	l := LocalFS{Dir: t.TempDir()}
	unlock, err := l.Lock(".lock")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Lock(".lock"); !errors.Is(err, ErrLocked) {
		t.Fatalf("second Lock in-process = %v, want ErrLocked", err)
	}
	// Another process cannot take it either.
	cmd := exec.Command("flock", "--nonblock", filepath.Join(l.Dir, ".lock"), "true")
	if _, lookErr := exec.LookPath("flock"); lookErr == nil {
		if err := cmd.Run(); err == nil {
			t.Error("another process took the lock")
		}
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	unlock2, err := l.Lock(".lock")
	if err != nil {
		t.Fatalf("Lock after unlock: %v", err)
	}
	_ = unlock2()
}

func TestLockOwnedNamesTheHolder(t *testing.T) {
	l := LocalFS{Dir: t.TempDir()}
	unlock, _, pidErr, err := LockOwned(l, ".lock")
	if err != nil || pidErr != nil {
		t.Fatalf("LockOwned = %v, pid write %v", err, pidErr)
	}
	if b, _ := os.ReadFile(filepath.Join(l.Dir, ".lock")); string(b) != fmt.Sprintf("%d\n", os.Getpid()) {
		t.Errorf("lock file holds %q; want this process's id", b)
	}
	_, holder, _, err := LockOwned(l, ".lock")
	if !errors.Is(err, ErrLocked) || holder != os.Getpid() {
		t.Errorf("second LockOwned = holder %d, %v; want %d and ErrLocked", holder, err, os.Getpid())
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	// A lock file that names no process leaves the holder unknown.
	if err := os.WriteFile(filepath.Join(l.Dir, "bare.lock"), []byte("not a pid"), 0o600); err != nil {
		t.Fatal(err)
	}
	unlockBare, err := l.Lock("bare.lock")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = unlockBare() }()
	if _, holder, _, err := LockOwned(l, "bare.lock"); !errors.Is(err, ErrLocked) || holder != 0 {
		t.Errorf("LockOwned of a bare lock = holder %d, %v; want 0 and ErrLocked", holder, err)
	}
}
