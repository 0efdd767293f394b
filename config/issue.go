package config

import (
	"errors"
	"fmt"
	"strings"
)

// Code classifies a config error for the startup error format (spec 06
// §1.8) and for ACP error codes.
type Code string

// Error codes.
const (
	// CodeInvalid is every file, schema, environment and resolution error.
	CodeInvalid Code = "config.invalid"
	// CodeLoginRequired is an OAuth provider without credentials.
	CodeLoginRequired Code = "auth.login_required"
)

// Title is the heading the startup error format prints for the code.
func (c Code) Title() string {
	switch c {
	case CodeLoginRequired:
		return "Login required"
	}
	return "Invalid configuration"
}

// ErrModelNotConfigured is wrapped by the error Resolve returns for an alias
// that has no [models] entry, so a resumed session can fall back to
// default_model (spec 06 §1.4) while any other resolution failure stays an
// error.
var ErrModelNotConfigured = errors.New("model not configured")

// Error is a configuration error the user must see. Message is the whole
// text (spec 06 §2.4) and names the file where one is involved.
type Error struct {
	Code    Code
	Message string
	// File is the config file involved, "" when none is.
	File string
	// Issues are the schema issues behind a validation error.
	Issues []Issue
	// Err is the underlying cause, if any.
	Err error
}

func (e *Error) Error() string { return e.Message }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// invalidf builds a config.invalid error about file.
func invalidf(file, format string, args ...any) *Error {
	return &Error{Code: CodeInvalid, File: file, Message: fmt.Sprintf(format, args...)}
}

// Issue is one schema problem: the snake_case key path and what is wrong.
type Issue struct {
	// Path is the key path from the top of the file. Array positions are
	// elements of the form "[n]".
	Path    []string
	Message string
}

// Key is the path in dotted form: loop_control.max_steps_per_turn,
// hooks[0].event, models."gpt-4.1".max_context_size.
func (i Issue) Key() string { return formatPath(i.Path) }

// String is "key.path: message".
func (i Issue) String() string { return i.Key() + ": " + i.Message }

// formatPath joins path elements with dots, appends "[n]" elements
// directly, and quotes elements that are not bare keys.
func formatPath(path []string) string {
	var b strings.Builder
	for i, p := range path {
		switch {
		case strings.HasPrefix(p, "["):
			b.WriteString(p)
			continue
		case i > 0:
			b.WriteByte('.')
		}
		if isBareKey(p) {
			b.WriteString(p)
		} else {
			b.WriteString(quoteTOML(p))
		}
	}
	return b.String()
}

// isBareKey reports a key TOML allows unquoted.
func isBareKey(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// FormatIssues is the doctor's block for a file with schema issues:
// "Invalid configuration in <path>.", "Validation issues:" and one
// indented "key.path: message" line per issue.
func FormatIssues(path string, issues []Issue) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Invalid configuration in %s.\nValidation issues:", path)
	for _, is := range issues {
		b.WriteString("\n  " + is.String())
	}
	return b.String()
}

// Warning is a problem that did not stop the load: dropped sections,
// dropped permission rules, unknown keys, deprecated keys.
type Warning struct {
	// File is the config file the warning is about.
	File    string
	Message string
	// Salvage is true for warnings that mean part of the file was thrown
	// away (a dropped section, entry or rule); a reload keeps the previous
	// configuration when any is present (spec 06 §2.2).
	Salvage bool
}

func (w Warning) String() string { return w.Message }
