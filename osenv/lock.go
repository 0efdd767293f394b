package osenv

import (
	"bytes"
	"errors"
	"os"
	"strconv"
)

// LockOwned takes the lock on name like FS.Lock and writes this process's
// id into the lock file, so that a process refused later can say who holds
// it. holder is the id the file names when the lock is held elsewhere (0
// when it names none). pidErr reports a failure to write the id: the lock
// holds regardless, only a later refusal cannot name this process.
func LockOwned(fsys FS, name string) (unlock func() error, holder int, pidErr, err error) {
	unlock, err = fsys.Lock(name)
	if errors.Is(err, ErrLocked) {
		return nil, readPid(fsys, name), nil, err
	}
	if err != nil {
		return nil, 0, nil, err
	}
	return unlock, 0, writePid(fsys, name), nil
}

func writePid(fsys FS, name string) error {
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

// readPid is the process id the lock file name holds, 0 when none.
func readPid(fsys FS, name string) int {
	b, err := fsys.ReadFile(name)
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(string(bytes.TrimSpace(b)))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}
