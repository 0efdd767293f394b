package osenvtest

import (
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"

	"github.com/kimigo/kimigo/osenv"
)

// Op names a file-system operation a FaultFS can fail.
type Op string

// Operations a Fault can target.
const (
	OpOpen     Op = "open"     // OpenFile for writing (create, truncate, append, read-write)
	OpWrite    Op = "write"    // File.Write
	OpSync     Op = "sync"     // File.Sync
	OpTruncate Op = "truncate" // File.Truncate
	OpSyncDir  Op = "syncdir"  // FS.SyncDir
	OpMkdir    Op = "mkdir"    // FS.MkdirAll
	OpRename   Op = "rename"   // FS.Rename (matched against the new path)
	OpRemove   Op = "remove"   // FS.Remove
	OpLock     Op = "lock"     // FS.Lock
)

// Fault is one injected failure: operation Op on a path that contains
// PathContains (every path when empty) fails with Err, typically a
// syscall.Errno such as ENOSPC, EIO, EDQUOT or EROFS. The error reaches the
// caller as an *fs.PathError naming the path, as a real one would.
type Fault struct {
	Op           Op
	PathContains string
	Err          error
	// Partial makes a failing Write store the first half of its bytes
	// before it reports Err, as a disk that fills up mid-write does.
	Partial bool
	// Skip lets that many matching operations succeed before the fault
	// starts failing them.
	Skip int
	// Times bounds how many operations fail; 0 means until cleared.
	Times int
}

// FaultFS wraps an osenv.FS and makes chosen operations fail with chosen
// errors (disk full, I/O errors, quota, read-only file system) until the
// test clears them: the fault injection of the hostile-conditions tests.
// Reads are never failed. It is safe for concurrent use.
type FaultFS struct {
	osenv.FS

	mu     sync.Mutex
	faults []*activeFault // guarded by mu
	hits   []string       // guarded by mu: "op path: err" for every injected failure
}

type activeFault struct {
	Fault
	seen, failed int
}

var _ osenv.FS = (*FaultFS)(nil)

// NewFaultFS returns a FaultFS over base with no fault injected.
func NewFaultFS(base osenv.FS) *FaultFS { return &FaultFS{FS: base} }

// Inject adds f; it applies to operations that start after the call. The
// returned func removes it.
func (f *FaultFS) Inject(fl Fault) (clear func()) {
	a := &activeFault{Fault: fl}
	f.mu.Lock()
	f.faults = append(f.faults, a)
	f.mu.Unlock()
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		for i, x := range f.faults {
			if x == a {
				f.faults = append(f.faults[:i], f.faults[i+1:]...)
				return
			}
		}
	}
}

// Clear removes every fault: the disk has space again.
func (f *FaultFS) Clear() {
	f.mu.Lock()
	f.faults = nil
	f.mu.Unlock()
}

// Hits lists the failures injected so far, as "op path: error", in order.
func (f *FaultFS) Hits() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.hits...)
}

// check returns the fault that fails op on name now, or nil.
func (f *FaultFS) check(op Op, name string) *Fault {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, a := range f.faults {
		if a.Op != op || (a.PathContains != "" && !strings.Contains(name, a.PathContains)) {
			continue
		}
		a.seen++
		if a.seen <= a.Skip || (a.Times > 0 && a.failed >= a.Times) {
			continue
		}
		a.failed++
		f.hits = append(f.hits, fmt.Sprintf("%s %s: %v", op, name, a.Err))
		fl := a.Fault
		return &fl
	}
	return nil
}

func (f *FaultFS) fail(op Op, name string) error {
	if fl := f.check(op, name); fl != nil {
		return &fs.PathError{Op: string(op), Path: name, Err: fl.Err}
	}
	return nil
}

// OpenFile fails opens for writing under an OpOpen fault; the file it
// returns fails writes, syncs and truncates under their faults.
func (f *FaultFS) OpenFile(name string, flag int, perm fs.FileMode) (osenv.File, error) {
	if flag&(os.O_WRONLY|os.O_RDWR|os.O_CREATE|os.O_TRUNC|os.O_APPEND) != 0 {
		if err := f.fail(OpOpen, name); err != nil {
			return nil, err
		}
	}
	file, err := f.FS.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return &faultFile{File: file, fs: f}, nil
}

// MkdirAll fails under an OpMkdir fault.
func (f *FaultFS) MkdirAll(name string, perm fs.FileMode) error {
	if err := f.fail(OpMkdir, name); err != nil {
		return err
	}
	return f.FS.MkdirAll(name, perm)
}

// Mkdir fails under an OpMkdir fault.
func (f *FaultFS) Mkdir(name string, perm fs.FileMode) error {
	if err := f.fail(OpMkdir, name); err != nil {
		return err
	}
	return f.FS.Mkdir(name, perm)
}

// Rename fails under an OpRename fault matching newpath.
func (f *FaultFS) Rename(oldpath, newpath string) error {
	if fl := f.check(OpRename, newpath); fl != nil {
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: fl.Err}
	}
	return f.FS.Rename(oldpath, newpath)
}

// Remove fails under an OpRemove fault.
func (f *FaultFS) Remove(name string) error {
	if err := f.fail(OpRemove, name); err != nil {
		return err
	}
	return f.FS.Remove(name)
}

// SyncDir fails under an OpSyncDir fault.
func (f *FaultFS) SyncDir(name string) error {
	if err := f.fail(OpSyncDir, name); err != nil {
		return err
	}
	return f.FS.SyncDir(name)
}

// Lock fails under an OpLock fault.
func (f *FaultFS) Lock(name string) (func() error, error) {
	if err := f.fail(OpLock, name); err != nil {
		return nil, err
	}
	return f.FS.Lock(name)
}

// faultFile is a file of a FaultFS.
type faultFile struct {
	osenv.File
	fs *FaultFS
}

func (f *faultFile) Write(b []byte) (int, error) {
	if fl := f.fs.check(OpWrite, f.Name()); fl != nil {
		n := 0
		if fl.Partial {
			n, _ = f.File.Write(b[:len(b)/2]) // what reached the disk before it filled
		}
		return n, &fs.PathError{Op: "write", Path: f.Name(), Err: fl.Err}
	}
	return f.File.Write(b)
}

func (f *faultFile) Sync() error {
	if err := f.fs.fail(OpSync, f.Name()); err != nil {
		return err
	}
	return f.File.Sync()
}

func (f *faultFile) Truncate(size int64) error {
	if err := f.fs.fail(OpTruncate, f.Name()); err != nil {
		return err
	}
	return f.File.Truncate(size)
}
