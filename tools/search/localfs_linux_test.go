//go:build linux

package search

import (
	"encoding/binary"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// dirent64 encodes one linux_dirent64 record, padded to 8 bytes.
func dirent64(ino uint64, typ byte, name string) []byte {
	reclen := (19 + len(name) + 1 + 7) &^ 7
	b := make([]byte, reclen)
	binary.NativeEndian.PutUint64(b[0:8], ino)
	binary.NativeEndian.PutUint16(b[16:18], uint16(reclen))
	b[18] = typ
	copy(b[19:], name)
	return b
}

func TestParseDirents(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "u"), 0o755); err != nil {
		t.Fatal(err)
	}
	var buf []byte
	for _, r := range []struct {
		ino  uint64
		typ  byte
		name string
	}{
		{1, syscall.DT_DIR, "."}, {1, syscall.DT_DIR, ".."}, {2, syscall.DT_REG, "a"},
		{3, syscall.DT_DIR, "d"}, {4, syscall.DT_LNK, "l"}, {5, syscall.DT_UNKNOWN, "u"},
		{6, syscall.DT_UNKNOWN, "gone"}, {7, syscall.DT_FIFO, "p"}, {0, syscall.DT_REG, "deleted"},
	} {
		buf = append(buf, dirent64(r.ino, r.typ, r.name)...)
	}
	got, err := parseDirents(dir, buf, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []dirent{{"a", 0}, {"d", fs.ModeDir}, {"l", fs.ModeSymlink}, {"u", fs.ModeDir}, {"p", fs.ModeIrregular}}
	if d := cmp.Diff(want, got, cmp.AllowUnexported(dirent{})); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if _, err := parseDirents(dir, dirent64(1, syscall.DT_REG, "x")[:20], nil); err == nil {
		t.Error("a record longer than the buffer was accepted")
	}
}

func TestLocalFastPathsAgreeWithOS(t *testing.T) {
	dir := t.TempDir()
	var want []dirent
	for i := range 1500 { // more than one getdents64 buffer of names
		name := fmt.Sprintf("%s-%04d", strings.Repeat("n", 40), i)
		typ := fs.FileMode(0)
		if i%7 == 0 {
			typ = fs.ModeDir
			if err := os.Mkdir(filepath.Join(dir, name), 0o755); err != nil {
				t.Fatal(err)
			}
		} else if err := os.WriteFile(filepath.Join(dir, name), []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
		want = append(want, dirent{name, typ})
	}
	if err := os.Symlink("nowhere", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	want = append(want, dirent{"link", fs.ModeSymlink})
	got, err := listLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	byName := func(a, b dirent) int { return strings.Compare(a.name, b.name) }
	slices.SortFunc(got, byName)
	slices.SortFunc(want, byName)
	if d := cmp.Diff(want, got, cmp.AllowUnexported(dirent{})); d != "" {
		t.Errorf("listLocal (-want +got):\n%s", d)
	}
	p := filepath.Join(dir, want[2].name) // a file: "link" and a directory sort first
	at := time.Date(2023, 5, 6, 7, 8, 9, 123456789, time.UTC)
	if err := os.Chtimes(p, at, at); err != nil {
		t.Fatal(err)
	}
	if mt, err := modTimeLocal(p); err != nil || !mt.Equal(at) {
		t.Errorf("modTimeLocal = %v, %v; want %v", mt, err, at)
	}
	big := []byte(strings.Repeat("0123456789abcdef", 40<<10)) // past the minimum buffer
	if err := os.WriteFile(p, big, 0o644); err != nil {
		t.Fatal(err)
	}
	b, binary, err := readLocal(p, make([]byte, 10, 16), binaryProbe)
	if err != nil || binary || string(b) != string(big) {
		t.Errorf("readLocal: %d bytes, %v; want %d bytes", len(b), err, len(big))
	}
	for _, tt := range []struct {
		nulAt  int
		binary bool
	}{{100, true}, {binaryProbe - 1, true}, {binaryProbe, false}, {-1, false}} {
		data := []byte(strings.Repeat("x", 2*binaryProbe))
		if tt.nulAt >= 0 {
			data[tt.nulAt] = 0
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, binary, err := readLocal(p, nil, binaryProbe)
		if err != nil || binary != tt.binary {
			t.Errorf("NUL at %d: binary = %v, %v; want %v", tt.nulAt, binary, err, tt.binary)
		}
	}
	for _, f := range []func() error{
		func() error { _, err := listLocal(filepath.Join(dir, "missing")); return err },
		func() error { _, err := modTimeLocal(filepath.Join(dir, "missing")); return err },
		func() error { _, _, err := readLocal(filepath.Join(dir, "missing"), nil, 0); return err },
	} {
		if err := f(); !os.IsNotExist(err) || !strings.Contains(err.Error(), "missing") {
			t.Errorf("error %v does not name the missing path", err)
		}
	}
}
