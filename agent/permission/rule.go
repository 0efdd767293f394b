package permission

import (
	"errors"
	"fmt"
	"strings"
)

// Decision is what a matching rule means. It is persisted in config files.
type Decision string

// Rule decisions.
const (
	DecisionAllow Decision = "allow"
	DecisionDeny  Decision = "deny"
	DecisionAsk   Decision = "ask"
)

// Scope labels where a rule came from. It does not change precedence
// (spec 04 §3.1).
type Scope string

// Rule scopes. The chain considers user, project and turn-override rules;
// a session-runtime rule in the rule list is ignored (session approvals
// are kept apart, see Manager.SessionPatterns).
const (
	ScopeUser           Scope = "user"
	ScopeProject        Scope = "project"
	ScopeTurnOverride   Scope = "turn-override"
	ScopeSessionRuntime Scope = "session-runtime"
)

// Rule is one configured permission rule: Tool or Tool(argument) with a
// decision (spec 04 §3.1). Rules are values; the Manager compiles them.
type Rule struct {
	Decision Decision `json:"decision"`
	Scope    Scope    `json:"scope"`
	Pattern  string   `json:"pattern"`
	Reason   string   `json:"reason,omitempty"`
	// Source is the file the rule was read from ("" for rules made at run
	// time); it names the file in load errors.
	Source string `json:"-"`
}

// Pattern is a parsed rule pattern: a tool-name glob and an optional
// argument whose meaning belongs to the tool.
type Pattern struct {
	Tool string
	// Arg is the text between the first "(" and the final ")"; "" means
	// the rule matches on the tool name alone.
	Arg string
	// ArgOffset is the byte offset of Arg in the pattern as given.
	ArgOffset int
}

// PatternError is a pattern that does not parse; Pos is the byte offset of
// the fault in the pattern as given.
type PatternError struct {
	Pattern string
	Pos     int
	Msg     string
}

func (e *PatternError) Error() string { return "permission pattern: " + e.Msg }

// ParsePattern parses Tool or Tool(argument) (spec 04 §3.2). Surrounding
// space is trimmed; nothing inside is.
func ParsePattern(s string) (Pattern, error) {
	t := strings.TrimSpace(s)
	lead := strings.Index(s, t)
	if t == "" {
		return Pattern{}, &PatternError{Pattern: s, Msg: "empty string"}
	}
	open := strings.IndexByte(t, '(')
	if open < 0 {
		return Pattern{Tool: t}, nil
	}
	if !strings.HasSuffix(t, ")") {
		return Pattern{}, &PatternError{Pattern: s, Pos: lead + len(t), Msg: fmt.Sprintf("missing closing paren in %q", s)}
	}
	if open == 0 {
		return Pattern{}, &PatternError{Pattern: s, Pos: lead, Msg: fmt.Sprintf("empty tool name in %q", s)}
	}
	p := Pattern{Tool: t[:open], Arg: t[open+1 : len(t)-1], ArgOffset: lead + open + 1}
	if p.Arg == "" {
		p.ArgOffset = 0
	}
	return p, nil
}

// IsPatternError reports whether err is a pattern that does not parse.
func IsPatternError(err error) bool {
	var pe *PatternError
	return errors.As(err, &pe)
}
