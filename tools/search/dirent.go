package search

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"slices"
	"time"

	"github.com/kimigo/kimigo/osenv"
)

// dirent is one entry of a directory listing: its name and its type bits
// (fs.ModeDir, fs.ModeSymlink, … ; 0 for a regular file).
type dirent struct {
	name string
	typ  fs.FileMode
}

// files is the engine's access to the searched file system: osenv.FS,
// with system-call fast paths when it is the local one (localfs_linux.go).
// The fast paths behave like the FS methods they replace.
type files struct {
	fs    osenv.FS
	local bool // fs is osenv.LocalFS or *osenv.Local
}

func newFiles(fsys osenv.FS) files {
	switch fsys.(type) {
	case osenv.LocalFS, *osenv.Local:
		return files{fs: fsys, local: localFastPaths}
	}
	return files{fs: fsys}
}

// list returns the entries of dir, in no particular order.
func (f files) list(dir string) ([]dirent, error) {
	if f.local {
		return listLocal(dir)
	}
	entries, err := f.fs.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := make([]dirent, len(entries))
	for i, e := range entries {
		out[i] = dirent{name: e.Name(), typ: e.Type()}
	}
	return out, nil
}

// modTime returns the modification time of path, not following a final
// symlink.
func (f files) modTime(path string) (time.Time, error) {
	if f.local {
		return modTimeLocal(path)
	}
	info, err := f.fs.Lstat(path)
	if err != nil {
		return time.Time{}, err
	}
	return info.ModTime(), nil
}

// readAll reads the whole file into buf's storage (growing it as needed)
// and returns the bytes. With probe > 0 it stops early, reporting binary,
// when the first probe bytes hold a NUL.
func (f files) readAll(path string, buf []byte, probe int) (data []byte, binary bool, err error) {
	if f.local {
		return readLocal(path, buf, probe)
	}
	file, err := f.fs.OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, false, err
	}
	defer func() { _ = file.Close() }() // read-only
	b := buf[:0]
	if cap(b) == 0 {
		b = make([]byte, 0, minReadBuffer)
	}
	for {
		n, err := file.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if isBinary(b, probe, err == io.EOF) {
			return b, true, nil
		}
		if err == io.EOF {
			return b, false, nil
		}
		if err != nil {
			return nil, false, err
		}
		if len(b) == cap(b) {
			b = growFor(b, len(b))
		}
	}
}

// isBinary reports, once the first probe bytes of a file are in (or the
// whole file, at EOF), whether they hold a NUL. It reports false while
// they are still being read, and always when probe is 0.
func isBinary(b []byte, probe int, eof bool) bool {
	if probe <= 0 || (len(b) < probe && !eof) {
		return false
	}
	return bytes.IndexByte(b[:min(len(b), probe)], 0) >= 0
}

// minReadBuffer is the smallest read buffer a worker keeps.
const minReadBuffer = 256 << 10

// growFor returns b with room for size more bytes plus one.
func growFor(b []byte, size int) []byte {
	if cap(b)-len(b) > size {
		return b
	}
	return slices.Grow(b, max(size+1, minReadBuffer))
}
