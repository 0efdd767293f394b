package osenv_test

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
	"testing"

	"github.com/kimigo/kimigo/osenv"
)

func TestErrnoName(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want string
	}{
		{&fs.PathError{Op: "write", Path: "/x", Err: syscall.ENOSPC}, "ENOSPC"},
		{fmt.Errorf("flush: %w", &fs.PathError{Op: "sync", Path: "/x", Err: syscall.EIO}), "EIO"},
		{syscall.EDQUOT, "EDQUOT"},
		{syscall.EROFS, "EROFS"},
		{errors.New("not an errno"), ""},
		{syscall.EAGAIN, ""},
	} {
		if got := osenv.ErrnoName(tt.err); got != tt.want {
			t.Errorf("ErrnoName(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}
