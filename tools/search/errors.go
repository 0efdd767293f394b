package search

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
)

// ArgError is a query argument the engine cannot use: an invalid regular
// expression or glob, an unknown file type, or a search root that is
// missing or of the wrong kind. Its message names the argument and the
// value, e.g. `invalid pattern "(": missing closing )`.
type ArgError struct {
	Arg   string // the argument: "pattern", "glob", "type" or "path"
	Value string // what the caller passed
	Err   error  // the underlying cause
	msg   string
}

func (e *ArgError) Error() string { return e.msg }

// Unwrap returns the cause, so errors.Is(err, fs.ErrNotExist) works for a
// missing root.
func (e *ArgError) Unwrap() error { return e.Err }

func invalidArg(arg, value string, err error) *ArgError {
	return &ArgError{Arg: arg, Value: value, Err: err, msg: fmt.Sprintf("invalid %s %q: %v", arg, value, err)}
}

func unknownType(name string) *ArgError {
	err := fmt.Errorf("unrecognized file type: %s", name)
	return &ArgError{Arg: "type", Value: name, Err: err, msg: err.Error()}
}

// ErrNotDir reports a search root that must be a directory but is not.
var ErrNotDir = errors.New("not a directory")

func rootError(root string, err error) *ArgError {
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, errNotDirectory):
		return &ArgError{Arg: "path", Value: root, Err: fs.ErrNotExist, msg: fmt.Sprintf("path %q does not exist", root)}
	case errors.Is(err, ErrNotDir):
		return &ArgError{Arg: "path", Value: root, Err: err, msg: fmt.Sprintf("path %q is not a directory", root)}
	}
	return &ArgError{Arg: "path", Value: root, Err: err, msg: fmt.Sprintf("path %q: %v", root, err)}
}

// errNotDirectory is the OS error for a path whose parent is a file.
var errNotDirectory error = syscall.ENOTDIR
