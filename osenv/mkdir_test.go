package osenv_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/kimigo/kimigo/osenv"
)

// MkdirBelow creates the levels under base and never base: a base that
// was deleted stays deleted.
func TestMkdirBelow(t *testing.T) {
	fsys := osenv.NewLocal(osenv.LocalOptions{})
	base := filepath.Join(t.TempDir(), "home")
	if err := os.Mkdir(base, 0o700); err != nil {
		t.Fatal(err)
	}
	deep := filepath.Join(base, "tasks", "t1")
	if err := osenv.MkdirBelow(fsys, base, deep, 0o700); err != nil {
		t.Fatalf("MkdirBelow: %v", err)
	}
	if fi, err := os.Stat(deep); err != nil || !fi.IsDir() {
		t.Fatalf("%s: %v", deep, err)
	}
	if err := osenv.MkdirBelow(fsys, base, deep, 0o700); err != nil {
		t.Errorf("again: %v", err)
	}
	if err := os.RemoveAll(base); err != nil {
		t.Fatal(err)
	}
	if err := osenv.MkdirBelow(fsys, base, deep, 0o700); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("with base deleted: %v, want ErrNotExist", err)
	}
	if _, err := os.Stat(base); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("base came back: %v", err)
	}
	for _, bad := range []string{base, filepath.Dir(base), "/elsewhere"} {
		if err := osenv.MkdirBelow(fsys, base, bad, 0o700); err == nil {
			t.Errorf("MkdirBelow(%s) accepted a dir not below the base", bad)
		}
	}
}
