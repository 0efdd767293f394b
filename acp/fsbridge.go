package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/kimigo/kimigo/osenv"
)

// fsBridge is the file seam of a session's text-file tools (Read, Write,
// Edit) when the client offers fs/read_text_file or fs/write_text_file
// (spec 06 §8.8): reads return the editor's buffer, unsaved edits
// included, and writes go to the editor, each direction only when its
// capability was advertised. Only paths inside the session's directories
// are bridged; any other path is a tool error and no request. Directory
// operations, metadata and everything else stay local.
type fsBridge struct {
	osenv.Env // the local machine
	b         *bridge
}

// bridge is what the copies of one session's fsBridge share.
type bridge struct {
	conn        *sdk.AgentSideConnection
	read, write bool
	roots       []string // absolute, symbolic links resolved
	timeout     time.Duration

	mu    sync.Mutex
	id    string              // guarded by mu: the session id, once known
	temps map[string]*memFile // guarded by mu: atomic writes in progress, by temp name
}

func newFSBridge(local osenv.Env, conn *sdk.AgentSideConnection, caps sdk.FileSystemCapabilities, roots []string) *fsBridge {
	b := &bridge{conn: conn, read: caps.ReadTextFile, write: caps.WriteTextFile, timeout: time.Minute,
		temps: map[string]*memFile{}}
	for _, r := range roots {
		b.roots = append(b.roots, resolve(r))
	}
	return &fsBridge{Env: local, b: b}
}

func (b *bridge) setID(id string) {
	b.mu.Lock()
	b.id = id
	b.mu.Unlock()
}

func (b *bridge) sessionID() sdk.SessionId {
	b.mu.Lock()
	defer b.mu.Unlock()
	return sdk.SessionId(b.id)
}

// resolve is p with the symbolic links of its longest existing prefix
// resolved.
func resolve(p string) string {
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	dir, base := filepath.Split(p)
	if dir == p || base == "" {
		return p
	}
	return filepath.Join(resolve(filepath.Clean(dir)), base)
}

var errOutside = errors.New("the path is outside the session's directories")

// check is the absolute path of name when it may be bridged.
func (f *fsBridge) check(op, name string) (string, error) {
	p := name
	if !filepath.IsAbs(p) {
		p = filepath.Join(f.Cwd(), p)
	}
	p = filepath.Clean(p)
	r := resolve(p)
	for _, root := range f.b.roots {
		if rel, err := filepath.Rel(root, r); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return p, nil
		}
	}
	return "", fmt.Errorf("acp: %s failed for %s: %w", op, p, errOutside)
}

// readText reads p through the client; a file the client does not have
// is fs.ErrNotExist.
func (f *fsBridge) readText(p string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), f.b.timeout)
	defer cancel()
	resp, err := f.b.conn.ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: f.b.sessionID(), Path: p})
	var re *sdk.RequestError
	if errors.As(err, &re) && re.Code == -32002 {
		return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
	}
	if err != nil {
		return nil, fmt.Errorf("acp: readTextFile failed for %s: %s", p, message(err))
	}
	return []byte(resp.Content), nil
}

func (f *fsBridge) writeText(p string, data []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), f.b.timeout)
	defer cancel()
	_, err := f.b.conn.WriteTextFile(ctx, sdk.WriteTextFileRequest{SessionId: f.b.sessionID(), Path: p, Content: string(data)})
	if err != nil {
		return fmt.Errorf("acp: writeTextFile failed for %s: %s", p, message(err))
	}
	return nil
}

// message is what a client's error says.
func message(err error) string {
	var re *sdk.RequestError
	if errors.As(err, &re) {
		if d, ok := re.Data.(map[string]any); ok {
			if m, ok := d["message"].(string); ok && m != "" {
				return m
			}
		}
		return re.Message
	}
	return err.Error()
}

// WithCwd implements osenv.Env.
func (f *fsBridge) WithCwd(dir string) osenv.Env { return &fsBridge{Env: f.Env.WithCwd(dir), b: f.b} }

// WithEnv implements osenv.Env.
func (f *fsBridge) WithEnv(overlay map[string]string) osenv.Env {
	return &fsBridge{Env: f.Env.WithEnv(overlay), b: f.b}
}

// ReadFile implements osenv.FS.
func (f *fsBridge) ReadFile(name string) ([]byte, error) {
	if !f.b.read {
		return f.Env.ReadFile(name)
	}
	p, err := f.check("readTextFile", name)
	if err != nil {
		return nil, err
	}
	return f.readText(p)
}

// atomicTemp is the name osenv.WriteFileAtomic gives its temp file.
var atomicTemp = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\.(.+)\.[A-Za-z0-9]{10}\.tmp$`) })

// OpenFile implements osenv.FS: a read gets the client's text in memory;
// a write is collected in memory and sent when the file is closed (or,
// for an atomic write's temp file, renamed over its target).
func (f *fsBridge) OpenFile(name string, flag int, perm fs.FileMode) (osenv.File, error) {
	writing := flag&(os.O_WRONLY|os.O_RDWR) != 0
	switch {
	case !writing && f.b.read:
		p, err := f.check("readTextFile", name)
		if err != nil {
			return nil, err
		}
		data, err := f.readText(p)
		if err != nil {
			return nil, err
		}
		return &memFile{name: p, data: data}, nil
	case writing && f.b.write:
		if m := atomicTemp().FindStringSubmatch(filepath.Base(name)); m != nil && flag&os.O_EXCL != 0 {
			target := filepath.Join(filepath.Dir(name), m[1])
			if _, err := f.check("writeTextFile", target); err != nil {
				return nil, err
			}
			mf := &memFile{name: name}
			f.b.mu.Lock()
			f.b.temps[filepath.Clean(name)] = mf
			f.b.mu.Unlock()
			return mf, nil
		}
		p, err := f.check("writeTextFile", name)
		if err != nil {
			return nil, err
		}
		mf := &memFile{name: p, onClose: func(data []byte) error { return f.writeText(p, data) }}
		if flag&os.O_APPEND != 0 { // emulated: read, then write it all
			data, err := f.readText(p)
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, err
			}
			mf.data, mf.off = data, int64(len(data))
		}
		return mf, nil
	}
	return f.Env.OpenFile(name, flag, perm)
}

// Rename implements osenv.FS: an atomic write's temp file goes to the
// client as its target's content.
func (f *fsBridge) Rename(oldpath, newpath string) error {
	f.b.mu.Lock()
	mf := f.b.temps[filepath.Clean(oldpath)]
	delete(f.b.temps, filepath.Clean(oldpath))
	f.b.mu.Unlock()
	if mf == nil {
		return f.Env.Rename(oldpath, newpath)
	}
	p, err := f.check("writeTextFile", newpath)
	if err != nil {
		return err
	}
	return f.writeText(p, mf.data)
}

// Remove implements osenv.FS.
func (f *fsBridge) Remove(name string) error {
	f.b.mu.Lock()
	_, ok := f.b.temps[filepath.Clean(name)]
	delete(f.b.temps, filepath.Clean(name))
	f.b.mu.Unlock()
	if ok {
		return nil
	}
	return f.Env.Remove(name)
}

// memFile is a file held in memory.
type memFile struct {
	name    string
	data    []byte
	off     int64
	onClose func([]byte) error
	closed  bool
}

func (m *memFile) Read(p []byte) (int, error) {
	if m.off >= int64(len(m.data)) {
		return 0, io.EOF
	}
	n := copy(p, m.data[m.off:])
	m.off += int64(n)
	return n, nil
}

func (m *memFile) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(m.data)) {
		return 0, io.EOF
	}
	n := copy(p, m.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (m *memFile) Write(p []byte) (int, error) {
	end := m.off + int64(len(p))
	if end > int64(len(m.data)) {
		m.data = append(m.data, make([]byte, end-int64(len(m.data)))...)
	}
	copy(m.data[m.off:], p)
	m.off = end
	return len(p), nil
}

func (m *memFile) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		offset += m.off
	case io.SeekEnd:
		offset += int64(len(m.data))
	}
	if offset < 0 {
		return 0, &fs.PathError{Op: "seek", Path: m.name, Err: fs.ErrInvalid}
	}
	m.off = offset
	return offset, nil
}

func (m *memFile) Truncate(size int64) error {
	if size < int64(len(m.data)) {
		m.data = m.data[:size]
	} else {
		m.data = append(m.data, make([]byte, size-int64(len(m.data)))...)
	}
	return nil
}

func (m *memFile) Close() error {
	if m.closed {
		return nil
	}
	m.closed = true
	if m.onClose != nil {
		return m.onClose(m.data)
	}
	return nil
}

func (m *memFile) Name() string               { return m.name }
func (m *memFile) Sync() error                { return nil }
func (m *memFile) Stat() (fs.FileInfo, error) { return memInfo{m}, nil }

type memInfo struct{ m *memFile }

func (i memInfo) Name() string       { return filepath.Base(i.m.name) }
func (i memInfo) Size() int64        { return int64(len(i.m.data)) }
func (i memInfo) Mode() fs.FileMode  { return 0o644 }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return false }
func (i memInfo) Sys() any           { return nil }
