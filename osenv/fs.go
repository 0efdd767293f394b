package osenv

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
)

// File is an open file. It is what os.File offers that callers need.
type File interface {
	io.Reader
	io.Writer
	io.Seeker
	io.ReaderAt
	io.Closer
	Name() string
	Stat() (fs.FileInfo, error)
	Sync() error
	Truncate(size int64) error
}

// FS is the file-system half of the OS seam. Relative names resolve
// against the implementation's working directory. Every method is safe for
// concurrent use. Errors are *fs.PathError (or *os.LinkError) values that
// name the path, so callers can wrap them without losing it.
type FS interface {
	OpenFile(name string, flag int, perm fs.FileMode) (File, error)
	ReadFile(name string) ([]byte, error)
	Stat(name string) (fs.FileInfo, error)
	Lstat(name string) (fs.FileInfo, error)
	ReadDir(name string) ([]fs.DirEntry, error)
	MkdirAll(name string, perm fs.FileMode) error
	// Mkdir creates the one directory name; its parent must exist.
	Mkdir(name string, perm fs.FileMode) error
	Rename(oldpath, newpath string) error
	Remove(name string) error
	// SyncDir makes the entries of directory name durable (fsync of the
	// directory), after a create or rename in it.
	SyncDir(name string) error
	// Lock takes an exclusive advisory lock on the file name (created if
	// missing) without waiting. It fails with an error wrapping ErrLocked
	// when another process, or another Lock in this one, holds it. The lock
	// is released by the returned func or when the process exits.
	Lock(name string) (unlock func() error, err error)
}

// ErrLocked reports a lock held by someone else.
var ErrLocked = errors.New("locked by another process")

// MkdirBelow creates dir and the directories between base and it, one
// level at a time, and never base itself: when base was deleted (a user
// removed the session while kimigo ran), it fails with an error wrapping
// fs.ErrNotExist instead of bringing base back. dir must lie below base.
func MkdirBelow(fsys FS, base, dir string, perm fs.FileMode) error {
	rel, err := filepath.Rel(base, dir)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
		return fmt.Errorf("create %s: not below %s", dir, base)
	}
	cur := base
	for part := range strings.SplitSeq(rel, "/") {
		cur = filepath.Join(cur, part)
		if err := fsys.Mkdir(cur, perm); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
	}
	return nil
}
