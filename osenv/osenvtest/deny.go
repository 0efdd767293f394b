package osenvtest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"

	"github.com/kimigo/kimigo/osenv"
)

// ErrDenied is the error of every side effect a DenyEnv refuses.
var ErrDenied = errors.New("side effect denied by osenvtest.Deny")

// DenyEnv wraps an osenv.Env so that every side effect fails with
// ErrDenied: writes (opening for writing, creating, truncating), MkdirAll,
// Rename, Remove, SyncDir, Lock and Exec. Reads still work. It records
// each refused attempt, so a test can prove code caused none (resume must
// not touch the world). It is safe for concurrent use.
type DenyEnv struct {
	osenv.Env
	log *denyLog
}

type denyLog struct {
	mu       sync.Mutex
	attempts []string // guarded by mu
}

var _ osenv.Env = (*DenyEnv)(nil)

// Deny returns a DenyEnv over a fresh, empty in-memory Env.
func Deny() *DenyEnv { return DenyOver(New(Options{})) }

// DenyOver returns a DenyEnv over base.
func DenyOver(base osenv.Env) *DenyEnv { return &DenyEnv{Env: base, log: &denyLog{}} }

// Attempts lists the refused side effects, as "op path", in order.
func (d *DenyEnv) Attempts() []string {
	d.log.mu.Lock()
	defer d.log.mu.Unlock()
	return append([]string(nil), d.log.attempts...)
}

func (d *DenyEnv) deny(op, p string) error {
	d.log.mu.Lock()
	d.log.attempts = append(d.log.attempts, op+" "+p)
	d.log.mu.Unlock()
	return &fs.PathError{Op: op, Path: p, Err: ErrDenied}
}

// OpenFile allows read-only opens.
func (d *DenyEnv) OpenFile(name string, flag int, perm fs.FileMode) (osenv.File, error) {
	if flag&(os.O_WRONLY|os.O_RDWR|os.O_CREATE|os.O_TRUNC|os.O_APPEND) != 0 {
		return nil, d.deny("open", name)
	}
	return d.Env.OpenFile(name, flag, perm)
}

// MkdirAll is denied.
func (d *DenyEnv) MkdirAll(name string, _ fs.FileMode) error { return d.deny("mkdir", name) }

// Mkdir is denied.
func (d *DenyEnv) Mkdir(name string, _ fs.FileMode) error { return d.deny("mkdir", name) }

// Rename is denied.
func (d *DenyEnv) Rename(oldpath, newpath string) error {
	return d.deny("rename", oldpath+" -> "+newpath)
}

// Remove is denied.
func (d *DenyEnv) Remove(name string) error { return d.deny("remove", name) }

// SyncDir is denied.
func (d *DenyEnv) SyncDir(name string) error { return d.deny("sync", name) }

// Lock is denied.
func (d *DenyEnv) Lock(name string) (func() error, error) { return nil, d.deny("lock", name) }

// Exec is denied.
func (d *DenyEnv) Exec(cmd osenv.Cmd) (osenv.Process, error) {
	return nil, d.deny("exec", fmt.Sprint(cmd.Args))
}

// WithCwd keeps denying.
func (d *DenyEnv) WithCwd(dir string) osenv.Env {
	return &DenyEnv{Env: d.Env.WithCwd(dir), log: d.log}
}

// WithEnv keeps denying.
func (d *DenyEnv) WithEnv(overlay map[string]string) osenv.Env {
	return &DenyEnv{Env: d.Env.WithEnv(overlay), log: d.log}
}
