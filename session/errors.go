package session

import (
	"errors"
	"fmt"

	"github.com/kimigo/kimigo/agent/records"
)

// Code is the wire code of a session error (spec 02 §6.15); UIs and the
// ACP server branch on it.
type Code string

// Session error codes.
const (
	CodeIDInvalid       Code = "session.id_invalid"
	CodeNotFound        Code = "session.not_found"
	CodeAlreadyExists   Code = "session.already_exists"
	CodeStateNotFound   Code = "session.state_not_found"
	CodeStateInvalid    Code = "session.state_invalid"
	CodeTitleEmpty      Code = "session.title_empty"
	CodeExportNotFound  Code = "session.export_not_found"
	CodeInUse           Code = "session.in_use"
	CodeWorkDirMismatch Code = "session.work_dir_mismatch"
	CodeLogTooNew       Code = "session.log_too_new"
)

// Sentinels for errors.Is; every *Error matches the one of its Code.
var (
	ErrIDInvalid       = errors.New("invalid session id")
	ErrNotFound        = errors.New("session not found")
	ErrAlreadyExists   = errors.New("session already exists")
	ErrStateNotFound   = errors.New("session state not found")
	ErrStateInvalid    = errors.New("session state is invalid")
	ErrTitleEmpty      = errors.New("session title is empty")
	ErrExportNotFound  = errors.New("session has no exportable directory")
	ErrInUse           = errors.New("session is open in another process")
	ErrWorkDirMismatch = errors.New("session belongs to another work dir")
	ErrLogTooNew       = errors.New("session was written by a newer kimigo")
)

// Error is a session failure that callers may branch on (by Code or with
// errors.Is against the sentinels) or show as is. The messages that spec 06
// §1.4 and §4 fix word for word (not found, other directory, empty title,
// nothing to export) keep that wording; the others are lowercase and name
// the file.
type Error struct {
	Code Code
	// ID is the session id the error is about, when there is one.
	ID string
	// Path is the file or directory the error is about, when there is one.
	Path string
	// WorkDir is the recorded work dir of a CodeWorkDirMismatch.
	WorkDir string
	// Holder describes who holds the lock of a CodeInUse ("pid 42").
	Holder string
	// Version is the records protocol of a CodeLogTooNew log.
	Version string
	// Err is the cause, or nil.
	Err error
}

func (e *Error) Error() string {
	switch e.Code {
	case CodeNotFound:
		return fmt.Sprintf("Session %q not found.", e.ID)
	case CodeWorkDirMismatch:
		return fmt.Sprintf("Session %q was created under a different directory.", e.ID)
	case CodeTitleEmpty:
		return "Session title cannot be empty"
	case CodeExportNotFound:
		return fmt.Sprintf("Session %q has no exportable directory at %q", e.ID, e.Path)
	case CodeIDInvalid:
		return fmt.Sprintf("invalid session id %q: use letters, digits, '.', '_' and '-'", e.ID)
	case CodeAlreadyExists:
		return fmt.Sprintf("session %s already exists at %s", e.ID, e.Path)
	case CodeStateNotFound:
		return fmt.Sprintf("session state %s not found", e.Path)
	case CodeStateInvalid:
		return fmt.Sprintf("session state %s is invalid: %v", e.Path, e.Err)
	case CodeInUse:
		holder := "another process"
		if e.Holder != "" {
			holder += " (" + e.Holder + ")"
		}
		return fmt.Sprintf("session %s is open in %s: lock file %s is held", e.ID, holder, e.Path)
	case CodeLogTooNew:
		return fmt.Sprintf("session %s was written by a newer kimigo: %s has records protocol %s, this kimigo reads up to %s",
			e.ID, e.Path, e.Version, records.ProtocolVersion)
	}
	if e.Err != nil {
		return fmt.Sprintf("%s: %v", e.Code, e.Err)
	}
	return string(e.Code)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is matches the sentinel of e's Code.
func (e *Error) Is(target error) bool { return target != nil && target == sentinel(e.Code) }

// Hint says what to do about the error, "" when there is nothing to say.
// For a CodeWorkDirMismatch it is the command that resumes the session
// where it belongs (spec 06 §1.4): cd "<dir>" && kimigo -r <id>.
func (e *Error) Hint() string {
	switch e.Code {
	case CodeWorkDirMismatch:
		return fmt.Sprintf("cd %q && %s", e.WorkDir, ResumeCommand(e.ID))
	case CodeInUse:
		who := "the other kimigo"
		if e.Holder != "" {
			who += " (" + e.Holder + ")"
		}
		return fmt.Sprintf("wait for %s to finish, or stop it, then run the command again; "+
			"one session is written by one process at a time", who)
	case CodeLogTooNew:
		return "upgrade kimigo to resume this session; this kimigo left it untouched"
	}
	return ""
}

func sentinel(c Code) error {
	switch c {
	case CodeIDInvalid:
		return ErrIDInvalid
	case CodeNotFound:
		return ErrNotFound
	case CodeAlreadyExists:
		return ErrAlreadyExists
	case CodeStateNotFound:
		return ErrStateNotFound
	case CodeStateInvalid:
		return ErrStateInvalid
	case CodeTitleEmpty:
		return ErrTitleEmpty
	case CodeExportNotFound:
		return ErrExportNotFound
	case CodeInUse:
		return ErrInUse
	case CodeWorkDirMismatch:
		return ErrWorkDirMismatch
	case CodeLogTooNew:
		return ErrLogTooNew
	}
	return nil
}

// ResumeCommand is the command line that resumes session id: kimigo -r <id>
// (the resume hint of spec 06 §1.6.4).
func ResumeCommand(id string) string { return "kimigo -r " + id }
