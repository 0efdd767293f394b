package osenv_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/osenv/osenvtest"
)

func TestWriteFileAtomicWithModesAndDirectorySync(t *testing.T) {
	dir := t.TempDir()
	fsys := osenvtest.NewFaultFS(osenv.LocalFS{})
	name := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(name, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Every directory sync fails.
	fsys.Inject(osenvtest.Fault{Op: osenvtest.OpSyncDir, PathContains: dir, Err: syscall.EIO})
	// Plain: the existing mode stays, and the directory is not synced.
	if err := osenv.WriteFileAtomic(fsys, name, []byte("a"), 0o600); err != nil {
		t.Fatalf("WriteFileAtomic = %v; it must not sync the directory", err)
	}
	if fi, _ := os.Stat(name); fi.Mode().Perm() != 0o644 {
		t.Errorf("WriteFileAtomic mode = %v; want the existing 0644", fi.Mode().Perm())
	}
	// ForcePerm and SyncDir: the mode becomes Perm, and the failing
	// directory sync is reported though the content is in place.
	err := osenv.WriteFileAtomicWith(fsys, name, []byte("b"), osenv.AtomicWrite{Perm: 0o600, ForcePerm: true, SyncDir: true})
	if !errors.Is(err, syscall.EIO) || !strings.Contains(err.Error(), "sync directory") {
		t.Errorf("err = %v; want the directory sync's EIO", err)
	}
	if b, _ := os.ReadFile(name); string(b) != "b" {
		t.Errorf("content = %q; want b", b)
	}
	if fi, _ := os.Stat(name); fi.Mode().Perm() != 0o600 {
		t.Errorf("forced mode = %v; want 0600", fi.Mode().Perm())
	}
}
