package permission

import (
	"strings"

	"github.com/kimigo/kimigo/internal/glob"
)

// A Bash rule's argument is about a command line, not a path (ERRATA 35):
// `*` matches any characters, `/` and leading dots included; `x:*`
// (Claude Code's prefix form) means `x` or `x *`; `x *` also matches the
// bare `x`. The rest of the glob syntax ([a-z], {a,b}, \*) stays.
//
// The glob engine's `*` and `?` stop at `/` and skip a leading dot, so the
// command's slashes are mapped to commandSlash, a byte commands do not
// carry, in the pattern and the text alike, and both start with
// commandLead, so that no wildcard stands at the start of a name.
const (
	commandSlash = "\x01"
	commandLead  = "\x02"
)

// commandPattern matches Bash command texts.
type commandPattern struct {
	full *glob.Glob
	// bare matches the command without the trailing " *" of the pattern;
	// nil when the pattern does not end in one.
	bare *glob.Glob
}

// compileCommandPattern compiles the positive part of a Bash rule's
// argument (after "!"). A leading "./" stays literal: ./git is not git.
func compileCommandPattern(pos string) (*commandPattern, error) {
	if p, ok := strings.CutSuffix(pos, ":*"); ok && p != "" && !strings.HasSuffix(p, `\`) {
		pos = p + " *"
	}
	full, err := compileCommandGlob(pos)
	if err != nil {
		return nil, err
	}
	cp := &commandPattern{full: full}
	if p, ok := strings.CutSuffix(pos, " *"); ok && strings.TrimSpace(p) != "" && !strings.HasSuffix(p, `\`) {
		if cp.bare, err = compileCommandGlob(p); err != nil {
			return nil, err
		}
	}
	return cp, nil
}

// compileCommandGlob compiles one command glob; the glob's own leading
// "!" negations stay in front.
func compileCommandGlob(p string) (*glob.Glob, error) {
	body := strings.TrimLeft(p, "!")
	bangs := p[:len(p)-len(body)]
	if strings.HasPrefix(body, "./") {
		body = `\` + body
	}
	return glob.Compile(bangs+commandLead+strings.ReplaceAll(body, "/", commandSlash), glob.Options{})
}

// Match reports whether the command text matches.
func (cp *commandPattern) Match(text string) bool {
	t := commandLead + strings.ReplaceAll(text, "/", commandSlash)
	return cp.full.Match(t) || cp.bare != nil && cp.bare.Match(t)
}
