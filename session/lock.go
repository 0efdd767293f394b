package session

import (
	"errors"
	"fmt"
	"path/filepath"

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
	unlock, pid, pidErr, err := osenv.LockOwned(s.fs, name)
	if errors.Is(err, osenv.ErrLocked) {
		holder := ""
		if pid > 0 {
			holder = fmt.Sprintf("pid %d", pid)
		}
		return nil, &Error{Code: CodeInUse, ID: id, Path: name, Holder: holder, Err: err}
	}
	if err != nil {
		return nil, fmt.Errorf("lock session %s: %w", id, err)
	}
	if pidErr != nil {
		// The lock holds regardless; only the holder's pid in a later
		// error is lost.
		s.logger.Warn("record pid in session lock", "path", name, "err", pidErr)
	}
	return unlock, nil
}
