package records

import (
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/kimigo/kimigo/osenv"
)

// lockDir takes the advisory lock <dir>/.lock so that only one process
// appends to the log in dir, and writes this process's pid into it so that
// the next opener can say who holds it. The lock goes away with the
// process, so a crash never leaves the log locked.
func lockDir(fsys osenv.FS, dir string, logger *slog.Logger) (unlock func() error, err error) {
	name := filepath.Join(dir, LockFileName)
	unlock, pid, pidErr, err := osenv.LockOwned(fsys, name)
	if errors.Is(err, osenv.ErrLocked) {
		holder := "another process"
		if pid > 0 {
			holder = fmt.Sprintf("another process (pid %d)", pid)
		}
		return nil, fmt.Errorf("open records %s: lock file %s is held by %s: %w", dir, name, holder, err)
	}
	if err != nil {
		return nil, fmt.Errorf("open records %s: lock %s: %w", dir, name, err)
	}
	if pidErr != nil {
		// The lock holds regardless; only the holder's name in a later
		// error is lost.
		logger.Warn("record pid in lock file", "path", name, "err", pidErr)
	}
	return unlock, nil
}
