package hooks

import (
	"regexp"
	"time"
)

// DefaultTimeout is a hook's timeout when none (or a non-positive one) is
// given (spec 06 §6.3).
const DefaultTimeout = 30 * time.Second

// Source says where a hook was configured.
type Source string

// Hook sources.
const (
	// SourceUser is the user's config.toml.
	SourceUser Source = "user"
	// SourceProject is a file in the workspace: it runs only in a trusted
	// workspace (ERRATA 38).
	SourceProject Source = "project"
	// SourcePlugin is an enabled plugin (Tier 2).
	SourcePlugin Source = "plugin"
)

// Hook is one configured command (spec 06 §6.1).
type Hook struct {
	Event Event
	// Matcher is a regular expression searched (unanchored) in the event's
	// matcher value; "" matches everything. An invalid expression never
	// matches.
	Matcher string
	// Command is a shell command line run with /bin/sh -c.
	Command string
	// Timeout bounds the command; 0 or less means DefaultTimeout.
	Timeout time.Duration
	// Cwd is the command's working directory; "" means the session's.
	Cwd string
	// Env is added to the environment the command sees (plugin hooks).
	Env    map[string]string
	Source Source
}

func (h Hook) timeout() time.Duration {
	if h.Timeout <= 0 {
		return DefaultTimeout
	}
	return h.Timeout
}

// compiled is a hook with its matcher compiled once.
type compiled struct {
	Hook
	re      *regexp.Regexp // nil when Matcher is "" or invalid
	invalid bool
}

func compile(h Hook) compiled {
	c := compiled{Hook: h}
	if h.Matcher == "" {
		return c
	}
	re, err := regexp.Compile(h.Matcher)
	if err != nil {
		c.invalid = true
		return c
	}
	c.re = re
	return c
}

// matches tests the matcher against value (spec 06 §6.2).
func (c compiled) matches(value string) bool {
	switch {
	case c.invalid:
		return false
	case c.re == nil:
		return true
	}
	return c.re.MatchString(value)
}
