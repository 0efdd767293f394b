package tools

import (
	"errors"
	"io/fs"
	"syscall"
)

func asError[T error](err error, target *T) bool { return errors.As(err, target) }

// notExist reports a missing path, including a path through a file
// (ENOTDIR), which is missing for the model's purposes.
func notExist(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// errText is an OS error's message without the "op path:" prefix when it
// is a *fs.PathError, so tool messages name the path once, as the model
// wrote it.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// messageError is an error whose text is a finished sentence for the
// model (capitalised, with its period), not a Go error fragment.
type messageError string

func (e messageError) Error() string { return string(e) }
