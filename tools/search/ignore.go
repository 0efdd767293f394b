package search

import (
	"bytes"
	"path"
	"strings"
)

// verdict is what one ignore file says about a path.
type verdict uint8

const (
	noMatch   verdict = iota // no rule of the file matched
	ignored                  // the last matching rule excludes the path
	whitelist                // the last matching rule is a "!" negation
)

// ignoreRule is one pattern line of an ignore file.
type ignoreRule struct {
	pattern  string
	negate   bool // "!pattern": re-include
	dirOnly  bool // "pattern/": directories only
	anchored bool // a '/' at the start or in the middle: relative to the file's directory
	kind     ruleKind
	lit      string // the literal for the literal and suffix kinds
}

// ruleKind picks a fast path for common pattern shapes.
type ruleKind uint8

const (
	ruleGlob    ruleKind = iota // general wildmatch
	ruleLiteral                 // no wildcard: string equality
	ruleSuffix                  // "*" + literal: suffix test
)

// ignoreRules is the parsed content of one ignore file; patterns match
// paths relative to the directory holding it.
type ignoreRules []ignoreRule

// parseIgnore parses gitignore syntax: blank lines and "#" comments are
// skipped, unescaped trailing spaces are dropped, "!" negates, a trailing
// "/" restricts the rule to directories, and a "/" anywhere else anchors
// the pattern to the file's directory; otherwise it matches a base name at
// any depth below it.
func parseIgnore(data []byte) ignoreRules {
	var rules ignoreRules
	for line := range bytes.Lines(data) {
		s := strings.TrimRight(string(line), "\r\n")
		if r, ok := parseIgnoreLine(s); ok {
			rules = append(rules, r)
		}
	}
	return rules
}

func parseIgnoreLine(s string) (ignoreRule, bool) {
	if s == "" || s[0] == '#' {
		return ignoreRule{}, false
	}
	for strings.HasSuffix(s, " ") && !strings.HasSuffix(s, `\ `) {
		s = s[:len(s)-1]
	}
	var r ignoreRule
	if s != "" && s[0] == '!' {
		r.negate = true
		s = s[1:]
	}
	if strings.HasSuffix(s, "/") {
		r.dirOnly = true
		s = strings.TrimRight(s, "/")
	}
	if strings.Contains(s, "/") {
		r.anchored = true
		s = strings.TrimPrefix(s, "/")
	}
	if s == "" {
		return ignoreRule{}, false
	}
	r.pattern = s
	switch {
	case !strings.ContainsAny(s, `*?[\`):
		r.kind, r.lit = ruleLiteral, s
	case !r.anchored && s[0] == '*' && !strings.ContainsAny(s[1:], `*?[\`):
		r.kind, r.lit = ruleSuffix, s[1:]
	}
	return r, true
}

// match returns the verdict of the last rule matching rel (slash-separated,
// relative to the file's directory). Parent directories are not
// consulted: the walk never enters an ignored directory.
func (rs ignoreRules) match(rel string, isDir bool) verdict {
	var base string
	for i := len(rs) - 1; i >= 0; i-- {
		r := &rs[i]
		if r.dirOnly && !isDir {
			continue
		}
		subject := rel
		if !r.anchored {
			if base == "" {
				base = path.Base(rel)
			}
			subject = base
		}
		if r.matches(subject) {
			if r.negate {
				return whitelist
			}
			return ignored
		}
	}
	return noMatch
}

func (r *ignoreRule) matches(subject string) bool {
	switch r.kind {
	case ruleLiteral:
		return subject == r.lit
	case ruleSuffix:
		return strings.HasSuffix(subject, r.lit)
	}
	return wildmatch(r.pattern, subject)
}
