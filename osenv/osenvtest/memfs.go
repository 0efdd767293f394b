package osenvtest

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kimigo/kimigo/osenv"
)

// MemFS is an in-memory osenv.FS. Paths are slash-separated; relative
// names resolve against its directory. Copies made by WithDir share the
// same files. It is safe for concurrent use.
type MemFS struct {
	s   *memStore
	dir string
}

var _ osenv.FS = (*MemFS)(nil)

type memStore struct {
	mu    sync.Mutex
	nodes map[string]*memNode // clean absolute path → node; guarded by mu
	locks map[string]bool     // guarded by mu
	now   func() time.Time
}

type memNode struct {
	dir   bool
	data  []byte
	mode  fs.FileMode
	mtime time.Time
}

// NewMemFS returns an empty file system (just "/") working in dir, which is
// created.
func NewMemFS(dir string) *MemFS {
	s := &memStore{nodes: map[string]*memNode{}, locks: map[string]bool{}, now: time.Now}
	s.nodes["/"] = &memNode{dir: true, mode: fs.ModeDir | 0o755, mtime: s.now()}
	m := &MemFS{s: s, dir: "/"}
	if dir != "" {
		m.dir = path.Clean("/" + dir)
		if err := m.MkdirAll(m.dir, 0o755); err != nil {
			panic(err) // cannot happen on a fresh tree
		}
	}
	return m
}

// WithDir returns a view of the same files working in dir.
func (m *MemFS) WithDir(dir string) *MemFS { return &MemFS{s: m.s, dir: m.abs(dir)} }

// Dir is the working directory.
func (m *MemFS) Dir() string { return m.dir }

// SetClock replaces the clock that stamps modification times.
func (m *MemFS) SetClock(now func() time.Time) {
	m.s.mu.Lock()
	m.s.now = now
	m.s.mu.Unlock()
}

func (m *MemFS) abs(name string) string {
	if path.IsAbs(name) {
		return path.Clean(name)
	}
	return path.Join(m.dir, name)
}

func perr(op, p string, err error) error { return &fs.PathError{Op: op, Path: p, Err: err} }

// parentDir checks that the parent of p is an existing directory; the
// caller holds mu.
func (s *memStore) parentDir(op, p string) error {
	par := path.Dir(p)
	for q := par; ; q = path.Dir(q) {
		if n, ok := s.nodes[q]; ok {
			if !n.dir {
				return perr(op, p, syscall.ENOTDIR)
			}
			if q == par {
				return nil
			}
			return perr(op, p, syscall.ENOENT)
		}
		if q == "/" {
			return perr(op, p, syscall.ENOENT)
		}
	}
}

// lookup finds p; the caller holds mu.
func (s *memStore) lookup(op, p string) (*memNode, error) {
	if n, ok := s.nodes[p]; ok {
		return n, nil
	}
	if err := s.parentDir(op, p); err != nil {
		return nil, err
	}
	return nil, perr(op, p, syscall.ENOENT)
}

// WriteFile creates or replaces a file, creating its parents: a test
// fixture helper, not part of osenv.FS.
func (m *MemFS) WriteFile(name string, data []byte, perm fs.FileMode) error {
	p := m.abs(name)
	if err := m.MkdirAll(path.Dir(p), 0o755); err != nil {
		return err
	}
	m.s.mu.Lock()
	defer m.s.mu.Unlock()
	if n, ok := m.s.nodes[p]; ok && n.dir {
		return perr("write", p, syscall.EISDIR)
	}
	m.s.nodes[p] = &memNode{data: slices.Clone(data), mode: perm.Perm(), mtime: m.s.now()}
	return nil
}

// SetModTime sets a file's modification time (a fixture helper).
func (m *MemFS) SetModTime(name string, t time.Time) error {
	p := m.abs(name)
	m.s.mu.Lock()
	defer m.s.mu.Unlock()
	n, err := m.s.lookup("chtimes", p)
	if err != nil {
		return err
	}
	n.mtime = t
	return nil
}

// OpenFile opens name with os.OpenFile flag semantics.
func (m *MemFS) OpenFile(name string, flag int, perm fs.FileMode) (osenv.File, error) {
	p := m.abs(name)
	m.s.mu.Lock()
	defer m.s.mu.Unlock()
	n, err := m.s.lookup("open", p)
	writable := flag&(os.O_WRONLY|os.O_RDWR) != 0
	switch {
	case err == nil && flag&os.O_CREATE != 0 && flag&os.O_EXCL != 0:
		return nil, perr("open", p, syscall.EEXIST)
	case err == nil && n.dir && writable:
		return nil, perr("open", p, syscall.EISDIR)
	case err != nil && flag&os.O_CREATE != 0 && errors.Is(err, syscall.ENOENT):
		if err := m.s.parentDir("open", p); err != nil {
			return nil, err
		}
		n = &memNode{mode: perm.Perm(), mtime: m.s.now()}
		m.s.nodes[p] = n
	case err != nil:
		return nil, err
	}
	if flag&os.O_TRUNC != 0 && writable {
		n.data, n.mtime = nil, m.s.now()
	}
	return &memFile{s: m.s, n: n, name: p, flag: flag}, nil
}

// ReadFile returns a copy of a file's content.
func (m *MemFS) ReadFile(name string) ([]byte, error) {
	p := m.abs(name)
	m.s.mu.Lock()
	defer m.s.mu.Unlock()
	n, err := m.s.lookup("open", p)
	if err != nil {
		return nil, err
	}
	if n.dir {
		return nil, perr("read", p, syscall.EISDIR)
	}
	return slices.Clone(n.data), nil
}

// Stat describes name.
func (m *MemFS) Stat(name string) (fs.FileInfo, error) {
	p := m.abs(name)
	m.s.mu.Lock()
	defer m.s.mu.Unlock()
	n, err := m.s.lookup("stat", p)
	if err != nil {
		return nil, err
	}
	return n.info(p), nil
}

// Lstat is Stat: MemFS has no symbolic links.
func (m *MemFS) Lstat(name string) (fs.FileInfo, error) { return m.Stat(name) }

// ReadDir lists a directory sorted by name.
func (m *MemFS) ReadDir(name string) ([]fs.DirEntry, error) {
	p := m.abs(name)
	m.s.mu.Lock()
	defer m.s.mu.Unlock()
	n, err := m.s.lookup("readdirent", p)
	if err != nil {
		return nil, err
	}
	if !n.dir {
		return nil, perr("readdirent", p, syscall.ENOTDIR)
	}
	var out []fs.DirEntry
	for q, c := range m.s.nodes {
		if q != "/" && path.Dir(q) == p {
			out = append(out, fs.FileInfoToDirEntry(c.info(q)))
		}
	}
	slices.SortFunc(out, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return out, nil
}

// MkdirAll creates name and its parents.
func (m *MemFS) MkdirAll(name string, perm fs.FileMode) error {
	p := m.abs(name)
	m.s.mu.Lock()
	defer m.s.mu.Unlock()
	var missing []string
	for q := p; ; q = path.Dir(q) {
		if n, ok := m.s.nodes[q]; ok {
			if !n.dir {
				return perr("mkdir", q, syscall.ENOTDIR)
			}
			break
		}
		missing = append(missing, q)
	}
	for _, q := range slices.Backward(missing) {
		m.s.nodes[q] = &memNode{dir: true, mode: fs.ModeDir | perm.Perm(), mtime: m.s.now()}
	}
	return nil
}

// Mkdir creates name, whose parent must be a directory.
func (m *MemFS) Mkdir(name string, perm fs.FileMode) error {
	p := m.abs(name)
	m.s.mu.Lock()
	defer m.s.mu.Unlock()
	if _, ok := m.s.nodes[p]; ok {
		return perr("mkdir", p, syscall.EEXIST)
	}
	if err := m.s.parentDir("mkdir", p); err != nil {
		return err
	}
	m.s.nodes[p] = &memNode{dir: true, mode: fs.ModeDir | perm.Perm(), mtime: m.s.now()}
	return nil
}

// Rename moves a file or a directory tree.
func (m *MemFS) Rename(oldpath, newpath string) error {
	op, np := m.abs(oldpath), m.abs(newpath)
	m.s.mu.Lock()
	defer m.s.mu.Unlock()
	n, err := m.s.lookup("rename", op)
	if err != nil {
		return &os.LinkError{Op: "rename", Old: op, New: np, Err: errors.Unwrap(err)}
	}
	if err := m.s.parentDir("rename", np); err != nil {
		return &os.LinkError{Op: "rename", Old: op, New: np, Err: errors.Unwrap(err)}
	}
	if t, ok := m.s.nodes[np]; ok && t.dir != n.dir {
		return &os.LinkError{Op: "rename", Old: op, New: np, Err: syscall.EISDIR}
	}
	if op == np {
		return nil
	}
	moved := map[string]*memNode{np: n}
	for q, c := range m.s.nodes {
		if n.dir && strings.HasPrefix(q, op+"/") {
			moved[np+q[len(op):]] = c
			delete(m.s.nodes, q)
		}
	}
	delete(m.s.nodes, op)
	for q, c := range moved {
		m.s.nodes[q] = c
	}
	return nil
}

// Remove deletes a file or an empty directory.
func (m *MemFS) Remove(name string) error {
	p := m.abs(name)
	m.s.mu.Lock()
	defer m.s.mu.Unlock()
	n, err := m.s.lookup("remove", p)
	if err != nil {
		return err
	}
	if n.dir {
		for q := range m.s.nodes {
			if strings.HasPrefix(q, p+"/") || (p == "/" && q != "/") {
				return perr("remove", p, syscall.ENOTEMPTY)
			}
		}
	}
	delete(m.s.nodes, p)
	return nil
}

// SyncDir checks that the directory exists.
func (m *MemFS) SyncDir(name string) error {
	fi, err := m.Stat(name)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return perr("sync", m.abs(name), syscall.ENOTDIR)
	}
	return nil
}

// Lock takes an exclusive lock on name, creating the file.
func (m *MemFS) Lock(name string) (func() error, error) {
	p := m.abs(name)
	f, err := m.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	_ = f.Close() // nothing was written
	m.s.mu.Lock()
	defer m.s.mu.Unlock()
	if m.s.locks[p] {
		return nil, perr("lock", p, osenv.ErrLocked)
	}
	m.s.locks[p] = true
	var once sync.Once
	return func() error {
		once.Do(func() {
			m.s.mu.Lock()
			delete(m.s.locks, p)
			m.s.mu.Unlock()
		})
		return nil
	}, nil
}

func (n *memNode) info(p string) fs.FileInfo {
	return memInfo{name: path.Base(p), size: int64(len(n.data)), mode: n.mode, mtime: n.mtime}
}

type memInfo struct {
	name  string
	size  int64
	mode  fs.FileMode
	mtime time.Time
}

func (i memInfo) Name() string       { return i.name }
func (i memInfo) Size() int64        { return i.size }
func (i memInfo) Mode() fs.FileMode  { return i.mode }
func (i memInfo) ModTime() time.Time { return i.mtime }
func (i memInfo) IsDir() bool        { return i.mode.IsDir() }
func (i memInfo) Sys() any           { return nil }

// memFile is an open MemFS file. Its content lives in the shared node, so
// writes are visible to other handles at once.
type memFile struct {
	s      *memStore
	n      *memNode
	name   string
	flag   int
	off    int64
	closed bool
}

func (f *memFile) check(op string, write bool) error {
	if f.closed {
		return perr(op, f.name, fs.ErrClosed)
	}
	if f.n.dir {
		return perr(op, f.name, syscall.EISDIR)
	}
	if write && f.flag&(os.O_WRONLY|os.O_RDWR) == 0 {
		return perr(op, f.name, syscall.EBADF)
	}
	if !write && f.flag&os.O_WRONLY != 0 {
		return perr(op, f.name, syscall.EBADF)
	}
	return nil
}

func (f *memFile) Read(b []byte) (int, error) {
	f.s.mu.Lock()
	defer f.s.mu.Unlock()
	if err := f.check("read", false); err != nil {
		return 0, err
	}
	if f.off >= int64(len(f.n.data)) {
		return 0, io.EOF
	}
	n := copy(b, f.n.data[f.off:])
	f.off += int64(n)
	return n, nil
}

func (f *memFile) ReadAt(b []byte, off int64) (int, error) {
	f.s.mu.Lock()
	defer f.s.mu.Unlock()
	if err := f.check("read", false); err != nil {
		return 0, err
	}
	if off >= int64(len(f.n.data)) {
		return 0, io.EOF
	}
	n := copy(b, f.n.data[off:])
	if n < len(b) {
		return n, io.EOF
	}
	return n, nil
}

func (f *memFile) Write(b []byte) (int, error) {
	f.s.mu.Lock()
	defer f.s.mu.Unlock()
	if err := f.check("write", true); err != nil {
		return 0, err
	}
	if f.flag&os.O_APPEND != 0 {
		f.off = int64(len(f.n.data))
	}
	if end := f.off + int64(len(b)); end > int64(len(f.n.data)) {
		f.n.data = append(f.n.data, make([]byte, end-int64(len(f.n.data)))...)
	}
	copy(f.n.data[f.off:], b)
	f.off += int64(len(b))
	f.n.mtime = f.s.now()
	return len(b), nil
}

func (f *memFile) Seek(offset int64, whence int) (int64, error) {
	f.s.mu.Lock()
	defer f.s.mu.Unlock()
	switch whence {
	case io.SeekCurrent:
		offset += f.off
	case io.SeekEnd:
		offset += int64(len(f.n.data))
	}
	if offset < 0 {
		return 0, perr("seek", f.name, syscall.EINVAL)
	}
	f.off = offset
	return offset, nil
}

func (f *memFile) Close() error {
	f.s.mu.Lock()
	defer f.s.mu.Unlock()
	if f.closed {
		return perr("close", f.name, fs.ErrClosed)
	}
	f.closed = true
	return nil
}

func (f *memFile) Name() string { return f.name }

func (f *memFile) Stat() (fs.FileInfo, error) {
	f.s.mu.Lock()
	defer f.s.mu.Unlock()
	return f.n.info(f.name), nil
}

func (f *memFile) Sync() error { return nil }

func (f *memFile) Truncate(size int64) error {
	f.s.mu.Lock()
	defer f.s.mu.Unlock()
	if err := f.check("truncate", true); err != nil {
		return err
	}
	if size < 0 {
		return perr("truncate", f.name, syscall.EINVAL)
	}
	if size <= int64(len(f.n.data)) {
		f.n.data = f.n.data[:size]
	} else {
		f.n.data = append(f.n.data, make([]byte, size-int64(len(f.n.data)))...)
	}
	return nil
}

// String names the file system in test failures.
func (m *MemFS) String() string { return fmt.Sprintf("MemFS(%s)", m.dir) }
