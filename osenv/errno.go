package osenv

import (
	"errors"
	"syscall"
)

// errnoNames are the symbolic names of the errnos a write to disk can
// fail with, the ones users look up.
var errnoNames = map[syscall.Errno]string{
	syscall.ENOSPC:  "ENOSPC",
	syscall.EDQUOT:  "EDQUOT",
	syscall.EIO:     "EIO",
	syscall.EROFS:   "EROFS",
	syscall.EACCES:  "EACCES",
	syscall.EPERM:   "EPERM",
	syscall.ENOENT:  "ENOENT",
	syscall.EISDIR:  "EISDIR",
	syscall.ENOTDIR: "ENOTDIR",
	syscall.EEXIST:  "EEXIST",
	syscall.EFBIG:   "EFBIG",
	syscall.EMFILE:  "EMFILE",
	syscall.ENFILE:  "ENFILE",
}

// ErrnoName returns the symbolic name of the errno err wraps ("ENOSPC"),
// or "" when err wraps none this package names.
func ErrnoName(err error) string {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return ""
	}
	return errnoNames[errno]
}
