package session

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/kimigo/kimigo/osenv"
)

// LockFileName is the session lock inside a session directory (spec 02
// §7.14). Each agent home has its own, taken by its record log.
const LockFileName = ".lock"

// lock takes the session lock <dir>/.lock without waiting and writes this
// process's pid into it, so a second opener can say who holds it. A held
// lock is a CodeInUse error; nothing else is touched then. The lock goes
// away with the process, so a crash never leaves a session locked.
func (s *Store) lock(id, dir string) (unlock func() error, err error) {
	name := filepath.Join(dir, LockFileName)
	unlock, err = s.fs.Lock(name)
	if errors.Is(err, osenv.ErrLocked) {
		holder := ""
		if pid, ok := readPid(s.fs, name); ok {
			holder = fmt.Sprintf("pid %d", pid)
		}
		return nil, &Error{Code: CodeInUse, ID: id, Path: name, Holder: holder, Err: err}
	}
	if err != nil {
		return nil, fmt.Errorf("lock session %s: %w", id, err)
	}
	if err := writePid(s.fs, name); err != nil {
		// The lock holds regardless; only the holder's pid in a later
		// error is lost.
		s.logger.Warn("record pid in session lock", "path", name, "err", err)
	}
	return unlock, nil
}

func writePid(fsys osenv.FS, name string) error {
	f, err := fsys.OpenFile(name, os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write([]byte(strconv.Itoa(os.Getpid()) + "\n"))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func readPid(fsys osenv.FS, name string) (int, bool) {
	b, err := fsys.ReadFile(name)
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(string(bytes.TrimSpace(b)))
	return pid, err == nil && pid > 0
}
