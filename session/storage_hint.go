package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"github.com/kimigo/kimigo/agent/records"
)

// StorageHint says what to do about a failure to read or write kimigo's
// data, from the path and the errno err carries: a full disk, an I/O
// error, a read-only or forbidden data root, a directory where a file
// belongs, a session deleted while kimigo ran. home is the data root;
// sessionID, when set, is the session the run had open. It is "" for
// errors it knows nothing about. Front ends print it under the error.
func StorageHint(err error, home, sessionID string) string {
	var ie *InputError
	if err == nil || errors.As(err, &ie) {
		return ""
	}
	again := "then run the command again"
	if sessionID != "" {
		again = fmt.Sprintf("then run `%s`: every record written before the failure is kept", ResumeCommand(sessionID))
	}
	path := failedPath(err)
	switch {
	case errors.Is(err, records.ErrLogRemoved):
		return fmt.Sprintf("%s was deleted or replaced while kimigo ran; kimigo recreated nothing. "+
			"Start a new session, or restore the session directory from a backup", path)
	case path == "":
		return ""
	case errors.Is(err, syscall.ENOENT):
		return fmt.Sprintf("%s no longer exists: its directory was deleted or moved while kimigo ran, "+
			"and kimigo recreated nothing. Start a new session, or restore the directory from a backup", path)
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return fmt.Sprintf("free space on the file system that holds %s (or raise the disk quota), %s", path, again)
	case errors.Is(err, syscall.EIO):
		return fmt.Sprintf("the device holding %s reported an I/O error; check it (dmesg, fsck), %s", path, again)
	case errors.Is(err, syscall.EROFS), errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM):
		return fmt.Sprintf("kimigo cannot write %s: make the data root %s writable, or set KIMIGO_HOME to a writable directory",
			path, home)
	case errors.Is(err, syscall.EISDIR):
		return fmt.Sprintf("%s must be a file but is a directory: move the directory out of the way "+
			"(kimigo deletes nothing), then run the command again", path)
	case errors.Is(err, syscall.ENOTDIR):
		return fmt.Sprintf("a file stands where kimigo needs a directory on the way to %s: move it out of the way "+
			"(kimigo deletes nothing), then run the command again", path)
	}
	return ""
}

// failedPath is the file a storage error is about: the records log of a
// *records.WriteError, else the path of the innermost *fs.PathError or
// *os.LinkError.
func failedPath(err error) string {
	var we *records.WriteError
	if errors.As(err, &we) {
		return we.Path
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Path
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.New
	}
	return ""
}

// InputError is a file the user named (an --agent-file) that could not be
// read: the user's input, not kimigo's storage, so StorageHint has no
// hint for it.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }

func (e *InputError) Unwrap() error { return e.Err }
