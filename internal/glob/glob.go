package glob

import (
	"fmt"
	"strings"
)

// Options change how a pattern matches. The zero value is picomatch's
// defaults: case-sensitive.
type Options struct {
	// NoCase folds case when comparing characters (path rules use it).
	NoCase bool
}

// Limits that keep a hostile pattern from costing much.
const (
	// MaxPatternLen is the longest pattern Compile accepts, in bytes.
	MaxPatternLen = 4096
	// maxAlternatives caps the patterns one brace expansion produces.
	maxAlternatives = 256
	// maxRange caps the elements of one "{a..b}" range.
	maxRange = 256
)

// Error is a malformed pattern: Pos is the byte offset of the fault in
// Pattern.
type Error struct {
	Pattern string
	Pos     int
	Msg     string
}

func (e *Error) Error() string {
	return fmt.Sprintf("glob %q: %s at offset %d", e.Pattern, e.Msg, e.Pos)
}

// Glob is a compiled pattern. It is immutable and safe for concurrent use.
type Glob struct {
	pattern string
	opts    Options
	negated bool
	// alts are the brace expansions of the pattern; the value matches when
	// one of them does.
	alts []*program
}

// Compile parses pattern. Errors are *Error.
func Compile(pattern string, opts Options) (*Glob, error) {
	if pattern == "" {
		return nil, &Error{Pattern: pattern, Msg: "empty pattern"}
	}
	if len(pattern) > MaxPatternLen {
		return nil, &Error{Pattern: pattern, Pos: MaxPatternLen, Msg: fmt.Sprintf("pattern longer than %d bytes", MaxPatternLen)}
	}
	g := &Glob{pattern: pattern, opts: opts}
	i := 0
	for i < len(pattern) && pattern[i] == '!' && !(i+1 < len(pattern) && pattern[i+1] == '(') {
		i++
	}
	g.negated = i%2 == 1
	body := strings.TrimPrefix(pattern[i:], "./")
	start := len(pattern) - len(body)
	if body == "" {
		return nil, &Error{Pattern: pattern, Pos: len(pattern), Msg: "empty pattern after its prefix"}
	}
	if err := validateClasses(body); err != nil {
		return nil, &Error{Pattern: pattern, Pos: start + err.pos, Msg: err.msg}
	}
	expanded, err := expandBraces(body)
	if err != nil {
		return nil, &Error{Pattern: pattern, Pos: start + err.pos, Msg: err.msg}
	}
	for _, e := range expanded {
		g.alts = append(g.alts, compileProgram(e, opts))
	}
	return g, nil
}

// MustCompile is Compile for patterns known to be valid; it panics on an
// error. Use it only with constant patterns.
func MustCompile(pattern string, opts Options) *Glob {
	g, err := Compile(pattern, opts)
	if err != nil {
		panic(err)
	}
	return g
}

// Match compiles pattern and matches value against it.
func Match(pattern, value string, opts Options) (bool, error) {
	g, err := Compile(pattern, opts)
	if err != nil {
		return false, err
	}
	return g.Match(value), nil
}

// String returns the pattern as given.
func (g *Glob) String() string { return g.pattern }

// Match reports whether value matches the whole pattern.
func (g *Glob) Match(value string) bool {
	if value == "" { // picomatch: the empty string matches nothing, negated or not
		return false
	}
	hit := false
	for _, p := range g.alts {
		if p.match(value, g.opts.NoCase) {
			hit = true
			break
		}
	}
	return hit != g.negated
}
