package osenv

import (
	"errors"
	"io"
	"io/fs"
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
