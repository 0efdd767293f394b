//go:build linux

package search

import (
	"encoding/binary"
	"io/fs"
	"syscall"
	"time"
)

// localFastPaths says the system-call fast paths exist here. For small
// files and directories the os package's bookkeeping (poller
// registration, finalizers, sorting) costs more than the system calls
// themselves; these paths make only open, getdents64/read, lstat and
// close calls, with the same results.
const localFastPaths = true

// listLocal lists dir with getdents64. Entries whose type the file system
// does not report are lstat'ed, as os.ReadDir does.
func listLocal(dir string) ([]dirent, error) {
	fd, err := openLocal(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	defer func() { _ = syscall.Close(fd) }() // read-only
	var buf [32 << 10]byte
	var out []dirent
	for {
		var n int
		err := retryEINTR(func() (err error) {
			n, err = syscall.Getdents(fd, buf[:])
			return err
		})
		if err != nil {
			return nil, &fs.PathError{Op: "readdirent", Path: dir, Err: err}
		}
		if n <= 0 {
			return out, nil
		}
		if out, err = parseDirents(dir, buf[:n], out); err != nil {
			return nil, err
		}
	}
}

// parseDirents appends the linux_dirent64 records of b (ino 8, off 8,
// reclen 2, type 1, then the NUL-terminated name).
func parseDirents(dir string, b []byte, out []dirent) ([]dirent, error) {
	for len(b) >= 19 {
		reclen := int(binary.NativeEndian.Uint16(b[16:18]))
		if reclen < 19 || reclen > len(b) {
			return out, &fs.PathError{Op: "readdirent", Path: dir, Err: syscall.EIO}
		}
		ino := binary.NativeEndian.Uint64(b[0:8])
		typ := b[18]
		name := b[19:reclen]
		for i, c := range name {
			if c == 0 {
				name = name[:i]
				break
			}
		}
		b = b[reclen:]
		if ino == 0 || string(name) == "." || string(name) == ".." {
			continue
		}
		e := dirent{name: string(name)}
		switch typ {
		case syscall.DT_REG:
		case syscall.DT_DIR:
			e.typ = fs.ModeDir
		case syscall.DT_LNK:
			e.typ = fs.ModeSymlink
		case syscall.DT_UNKNOWN:
			var st syscall.Stat_t
			if err := retryEINTR(func() error { return syscall.Lstat(joinPath(dir, e.name), &st) }); err != nil {
				continue // vanished since the listing
			}
			e.typ = modeType(st.Mode)
		default:
			e.typ = fs.ModeIrregular // devices, pipes, sockets: never searched
		}
		out = append(out, e)
	}
	return out, nil
}

func modeType(m uint32) fs.FileMode {
	switch m & syscall.S_IFMT {
	case syscall.S_IFREG:
		return 0
	case syscall.S_IFDIR:
		return fs.ModeDir
	case syscall.S_IFLNK:
		return fs.ModeSymlink
	}
	return fs.ModeIrregular
}

// modTimeLocal is lstat's modification time.
func modTimeLocal(path string) (time.Time, error) {
	var st syscall.Stat_t
	if err := retryEINTR(func() error { return syscall.Lstat(path, &st) }); err != nil {
		return time.Time{}, &fs.PathError{Op: "lstat", Path: path, Err: err}
	}
	return time.Unix(st.Mtim.Sec, st.Mtim.Nsec), nil
}

// readLocal reads the whole file at path into buf's storage with open,
// read and close only (and fstat when the file outgrows the buffer): a
// read that returns less than asked of a regular file has reached its
// end. probe is as for files.readAll.
func readLocal(path string, buf []byte, probe int) ([]byte, bool, error) {
	fd, err := openLocal(path, syscall.O_RDONLY|syscall.O_CLOEXEC)
	if err != nil {
		return nil, false, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer func() { _ = syscall.Close(fd) }() // read-only
	b := buf[:0]
	if cap(b) == 0 {
		b = make([]byte, 0, minReadBuffer)
	}
	for {
		want := cap(b) - len(b)
		var n int
		err := retryEINTR(func() (err error) {
			n, err = syscall.Read(fd, b[len(b):cap(b)])
			return err
		})
		if err != nil {
			return nil, false, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		b = b[:len(b)+n]
		if isBinary(b, probe, n < want) {
			return b, true, nil
		}
		if n < want {
			return b, false, nil
		}
		// The buffer is full: make room for the rest in one step.
		var st syscall.Stat_t
		size := len(b)
		if retryEINTR(func() error { return syscall.Fstat(fd, &st) }) == nil && int(st.Size) > size {
			size = int(st.Size)
		}
		b = growFor(b, size-len(b))
	}
}

func openLocal(path string, flags int) (int, error) {
	var fd int
	err := retryEINTR(func() (err error) {
		fd, err = syscall.Open(path, flags, 0)
		return err
	})
	return fd, err
}

func retryEINTR(f func() error) error {
	for {
		if err := f(); err != syscall.EINTR {
			return err
		}
	}
}
