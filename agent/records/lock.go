package records

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"

	"github.com/kimigo/kimigo/osenv"
)

// lockDir takes the advisory lock <dir>/.lock so that only one process
// appends to the log in dir, and writes this process's pid into it so that
// the next opener can say who holds it. The lock goes away with the
// process, so a crash never leaves the log locked.
func lockDir(fsys osenv.FS, dir string, logger *slog.Logger) (unlock func() error, err error) {
	name := filepath.Join(dir, LockFileName)
	unlock, err = fsys.Lock(name)
	if errors.Is(err, osenv.ErrLocked) {
		holder := "another process"
		if pid, ok := readPid(fsys, name); ok {
			holder = fmt.Sprintf("another process (pid %d)", pid)
		}
		return nil, fmt.Errorf("open records %s: lock file %s is held by %s: %w", dir, name, holder, err)
	}
	if err != nil {
		return nil, fmt.Errorf("open records %s: lock %s: %w", dir, name, err)
	}
	if err := writePid(fsys, name); err != nil {
		// The lock holds regardless; only the holder's name in a later
		// error is lost.
		logger.Warn("record pid in lock file", "path", name, "err", err)
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
