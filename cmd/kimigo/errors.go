package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/kimigo/kimigo/config"
)

// Exit codes (spec 06 §1.7).
const (
	exitOK      = 0
	exitFailure = 1 // option errors, startup errors, failed runs, subcommand failures
	exitSIGHUP  = 129
	exitSIGINT  = 130
	exitSIGTERM = 143
)

// usageError is an option or validation error: printed as
// "error: <message>" with exit code 1, before anything touched the disk
// (spec 06 §1.1, §1.3). Its text is the user's message verbatim.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// printUsageError writes an option error.
func printUsageError(w io.Writer, err error) int {
	fmt.Fprintf(w, "error: %s\n", err)
	return exitFailure
}

// startupError is a failure before or during a run (spec 06 §1.8). A
// coded error (*config.Error) prints its code's title and its message; any
// other error prints "failed to <op>: <message>". Hint, when set, is an
// extra line saying what to check.
type startupError struct {
	op   string // "run prompt"
	err  error
	hint string
}

func (e *startupError) Error() string { return e.err.Error() }

func (e *startupError) Unwrap() error { return e.err }

// report writes a startup error in the format of spec 06 §1.8 to w:
// coloured when w is a terminal that allows colour. logPath is the
// global diagnostic log, "" when the data root is unknown.
func report(w io.Writer, err error, logPath string, colour bool) int {
	var b strings.Builder
	op, hint := "run prompt", ""
	var se *startupError
	if errors.As(err, &se) {
		op, hint = se.op, se.hint
	}
	var ce *config.Error
	if errors.As(err, &ce) {
		fmt.Fprintf(&b, "error: %s\n\nmessage:\n%s\n", ce.Code.Title(), ce.Message)
	} else {
		fmt.Fprintf(&b, "error: failed to %s: %s\n", op, err)
	}
	if hint != "" {
		fmt.Fprintf(&b, "hint: %s\n", hint)
	}
	if logPath != "" {
		fmt.Fprintf(&b, "See log: %s\n", logPath)
	}
	text := b.String()
	if colour {
		text = "\x1b[38;2;232;84;84m" + strings.TrimSuffix(text, "\n") + "\x1b[0m\n"
	}
	io.WriteString(w, text)
	return exitFailure
}
