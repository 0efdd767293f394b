package compaction

import (
	"errors"
	"fmt"
	"maps"

	"github.com/kimigo/kimigo/llm"
)

// Error codes of compaction failures. They are wire strings: UIs and the
// ACP server branch on them.
const (
	// CodeUnable refuses a manual compaction that cannot start.
	CodeUnable = "compaction.unable"
	// CodeFailed is a compaction round that could not produce a summary.
	CodeFailed = "compaction.failed"
	// CodeContextOverflow is a context that compaction cannot bring under
	// the window, or the per-turn compaction limit.
	CodeContextOverflow = "context.overflow"
)

// Error is a compaction failure with a wire code. It implements the
// agent's coded-error contract (Code, Details, Retryable, ErrorName), and
// Unwrap keeps the cause inspectable.
type Error struct {
	code    string
	name    string
	msg     string
	details map[string]any
	cause   error
	limit   bool // the per-turn compaction limit
}

func (e *Error) Error() string { return e.msg }

// Code is the wire code.
func (e *Error) Code() string { return e.code }

// Details are extra fields for UIs; nil when there are none.
func (e *Error) Details() map[string]any { return maps.Clone(e.details) }

// Retryable reports false: retrying the same compaction fails the same way.
func (e *Error) Retryable() bool { return false }

// ErrorName is the class name UIs and the StopFailure matcher see.
func (e *Error) ErrorName() string { return e.name }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.cause }

// Messages of the refusals and limits (spec 03 §6.6–6.7).
const (
	msgNoMessages   = "No messages to compact in current history."
	msgTurnActive   = "Cannot compact while a turn is active. Wait for it to finish, then retry."
	msgOverflowLoop = "Compaction failed to bring the context under the model window after %d attempts."
	msgLimit        = "Compaction limit exceeded (%d)"
)

func unableError(msg string) *Error {
	return &Error{code: CodeUnable, name: "CompactionUnableError", msg: msg}
}

// limitError is the per-turn compaction limit (a non-default strategy).
func limitError(max int) *Error {
	return &Error{code: CodeContextOverflow, name: "CompactionLimitError", msg: fmt.Sprintf(msgLimit, max),
		details: map[string]any{"maxCompactions": max}, limit: true}
}

// overflowLoopError ends a turn whose overflows compaction could not fix.
func overflowLoopError(attempts int, cause error) *Error {
	return &Error{code: CodeContextOverflow, name: "ContextOverflowError", msg: fmt.Sprintf(msgOverflowLoop, attempts),
		cause: cause}
}

// IsLimitExceeded reports whether err is the per-turn compaction limit.
func IsLimitExceeded(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.limit
}

// failedError classifies the error that ended a round (spec 03 §6.9):
// authentication failures pass unchanged, so the user sees what to fix;
// everything else becomes compaction.failed with the cause kept.
func failedError(err error) error {
	var coded interface{ Code() string }
	if llm.IsAuthError(err) || (errors.As(err, &coded) && coded.Code() == codeLoginRequired) {
		return err
	}
	var own *Error
	if errors.As(err, &own) && own.code == CodeFailed {
		return err
	}
	return &Error{code: CodeFailed, name: "CompactionFailedError", msg: err.Error(), cause: err}
}

// codeLoginRequired is the auth layer's code for missing credentials.
const codeLoginRequired = "auth.login_required"

// errTruncated is a summary cut off by the output limit; it is not
// retryable, and the ladder drops the oldest input for it.
var errTruncated = errors.New("the compaction response was truncated before it produced a complete summary")

// errEmptySummary is a response without summary text: thinking only, tool
// calls only, or blank text. It is an empty response, so it is retryable.
func errEmptySummary() error {
	return &llm.Error{Kind: llm.KindEmptyResponse,
		Message: "the compaction response did not contain a non-empty summary"}
}

// errRaced ends a round whose history changed under it (spec 03 §6.11).
var errRaced = errors.New("history changed while the summary was written")

// errCancelled ends a round whose compaction was cancelled before it could
// rewrite history.
var errCancelled = errors.New("compaction cancelled")
