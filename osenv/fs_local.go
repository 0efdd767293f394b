package osenv

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// LocalFS is the real file system, with relative names resolved against
// Dir (the process working directory when Dir is empty).
type LocalFS struct {
	Dir string
}

var _ FS = LocalFS{}

func (l LocalFS) path(name string) string {
	if l.Dir == "" || filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(l.Dir, name)
}

// OpenFile opens name like os.OpenFile.
func (l LocalFS) OpenFile(name string, flag int, perm fs.FileMode) (File, error) {
	f, err := os.OpenFile(l.path(name), flag, perm)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// ReadFile reads the whole file.
func (l LocalFS) ReadFile(name string) ([]byte, error) { return os.ReadFile(l.path(name)) }

// Stat follows symlinks.
func (l LocalFS) Stat(name string) (fs.FileInfo, error) { return os.Stat(l.path(name)) }

// Lstat does not follow a final symlink.
func (l LocalFS) Lstat(name string) (fs.FileInfo, error) { return os.Lstat(l.path(name)) }

// ReadDir lists a directory sorted by name.
func (l LocalFS) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(l.path(name)) }

// MkdirAll creates name and its parents.
func (l LocalFS) MkdirAll(name string, perm fs.FileMode) error {
	return os.MkdirAll(l.path(name), perm)
}

// Mkdir creates name, whose parent must exist.
func (l LocalFS) Mkdir(name string, perm fs.FileMode) error { return os.Mkdir(l.path(name), perm) }

// Rename renames atomically within one file system.
func (l LocalFS) Rename(oldpath, newpath string) error {
	return os.Rename(l.path(oldpath), l.path(newpath))
}

// Remove removes a file or an empty directory.
func (l LocalFS) Remove(name string) error { return os.Remove(l.path(name)) }

// SyncDir fsyncs a directory.
func (l LocalFS) SyncDir(name string) error {
	d, err := os.Open(l.path(name))
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return &fs.PathError{Op: "sync", Path: l.path(name), Err: err}
	}
	return nil
}

// heldLocks tracks the locks this process holds: flock is per open file
// description, so a second Lock in the same process would otherwise
// succeed.
var heldLocks sync.Map // absolute path → struct{}

// Lock takes a non-blocking exclusive flock on name.
func (l LocalFS) Lock(name string) (func() error, error) {
	p, err := filepath.Abs(l.path(name))
	if err != nil {
		return nil, err
	}
	if _, busy := heldLocks.LoadOrStore(p, struct{}{}); busy {
		return nil, &fs.PathError{Op: "lock", Path: p, Err: fmt.Errorf("%w (this process)", ErrLocked)}
	}
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		heldLocks.Delete(p)
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close() // the lock was not taken; nothing to release
		heldLocks.Delete(p)
		if err == syscall.EWOULDBLOCK {
			return nil, &fs.PathError{Op: "lock", Path: p, Err: ErrLocked}
		}
		return nil, &fs.PathError{Op: "lock", Path: p, Err: err}
	}
	var once sync.Once
	return func() error {
		var err error
		once.Do(func() {
			err = f.Close() // closing the descriptor releases the flock
			heldLocks.Delete(p)
		})
		return err
	}, nil
}

// Readlink returns a symbolic link's target, like os.Readlink. It is the
// optional Linker capability: callers that resolve links (permission's
// real-path checks) find it by type assertion.
func (l LocalFS) Readlink(name string) (string, error) { return os.Readlink(l.path(name)) }

// Linker is what an FS offers when it can read symbolic links.
type Linker interface {
	Readlink(name string) (string, error)
}
