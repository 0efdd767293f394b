package osenv

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFileAtomic replaces name with data through a temporary file in the
// same directory and a rename, so a reader sees the old content or the new
// one and a failure never leaves a partial file. A new file gets perm; an
// existing one keeps its mode. A symbolic link is written through (in
// place), since renaming over it would replace the link itself.
func WriteFileAtomic(fsys FS, name string, data []byte, perm fs.FileMode) error {
	return WriteFileAtomicWith(fsys, name, data, AtomicWrite{Perm: perm})
}

// AtomicWrite says how WriteFileAtomicWith writes.
type AtomicWrite struct {
	// Perm is the mode of a new file.
	Perm fs.FileMode
	// ForcePerm gives an existing file Perm too, instead of keeping its
	// mode (files that hold secrets).
	ForcePerm bool
	// SyncDir makes the rename itself durable by syncing the directory.
	SyncDir bool
	// NoSync skips the fsync of the content: the caller makes the file
	// and its directory entry durable later (SyncFile, FS.SyncDir). The
	// rename still shows readers the old content or the new.
	NoSync bool
}

// WriteFileAtomicWith is WriteFileAtomic with the choices of w.
func WriteFileAtomicWith(fsys FS, name string, data []byte, w AtomicWrite) error {
	perm := w.Perm
	if fi, err := fsys.Lstat(name); err == nil {
		if fi.Mode()&fs.ModeSymlink != 0 {
			return writeInPlace(fsys, name, data, perm)
		}
		if !w.ForcePerm {
			perm = fi.Mode().Perm()
		}
	}
	dir := filepath.Dir(name)
	tmp := filepath.Join(dir, "."+filepath.Base(name)+"."+rand.Text()[:10]+".tmp")
	f, err := fsys.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if w.NoSync {
		_, err = f.Write(data)
		err = errors.Join(err, f.Close())
	} else {
		err = WriteSyncClose(f, data)
	}
	if err == nil {
		err = fsys.Rename(tmp, name)
	}
	if err != nil {
		_ = fsys.Remove(tmp) // best effort: the temp file may not exist
		return fmt.Errorf("write %s: %w", name, err)
	}
	if w.SyncDir {
		if err := fsys.SyncDir(dir); err != nil {
			return fmt.Errorf("write %s: sync directory: %w", name, err)
		}
	}
	return nil
}

func writeInPlace(fsys FS, name string, data []byte, perm fs.FileMode) error {
	f, err := fsys.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	_, err = f.Write(data)
	return errors.Join(err, f.Close())
}

// WriteSyncClose writes data to f, syncs it and closes it, and returns the
// first error: the ending of every file kimigo writes to keep.
func WriteSyncClose(f File, data []byte) error {
	_, err := f.Write(data)
	return SyncClose(f, err)
}

// SyncClose ends a file whose writing returned err: it syncs f when err is
// nil, always closes it, and returns the first error.
func SyncClose(f File, err error) error {
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// SyncFile fsyncs the file name: what a write with NoSync left for later.
func SyncFile(fsys FS, name string) error {
	f, err := fsys.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	return SyncClose(f, nil)
}
