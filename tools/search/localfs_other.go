//go:build !linux

package search

import (
	"errors"
	"time"
)

// localFastPaths is false: other systems go through osenv.FS.
const localFastPaths = false

var errNoFastPath = errors.New("no local fast path on this system")

func listLocal(string) ([]dirent, error)                  { return nil, errNoFastPath }
func modTimeLocal(string) (time.Time, error)              { return time.Time{}, errNoFastPath }
func readLocal(string, []byte, int) ([]byte, bool, error) { return nil, false, errNoFastPath }
