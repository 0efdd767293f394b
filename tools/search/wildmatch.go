package search

import (
	"strings"
	"unicode/utf8"
)

// wildmatch reports whether text, a slash-separated path, matches the
// ignore-file glob pattern with git's rules for path patterns: `*` and `?`
// never match '/', a class never matches '/', `\x` is a literal x, and `**`
// spans directories only as a whole segment ("**/x", "x/**", "x/**/y");
// anywhere else it is a plain `*`. A malformed pattern (an unclosed class,
// a trailing backslash) matches nothing, as in git.
func wildmatch(pattern, text string) bool {
	return wildmatchAt(pattern, 0, text, 0)
}

func wildmatchAt(p string, pi int, t string, ti int) bool {
	for pi < len(p) {
		switch c := p[pi]; c {
		case '*':
			return matchStars(p, pi, t, ti)
		case '?':
			if ti >= len(t) || t[ti] == '/' {
				return false
			}
			_, n := utf8.DecodeRuneInString(t[ti:])
			pi, ti = pi+1, ti+n
		case '[':
			if ti >= len(t) {
				return false
			}
			r, n := utf8.DecodeRuneInString(t[ti:])
			ok, next := matchClass(p, pi, r)
			if !ok {
				return false
			}
			pi, ti = next, ti+n
		case '\\':
			if pi+1 >= len(p) || ti >= len(t) || t[ti] != p[pi+1] {
				return false
			}
			pi, ti = pi+2, ti+1
		default:
			if ti >= len(t) || t[ti] != c {
				return false
			}
			pi, ti = pi+1, ti+1
		}
	}
	return ti == len(t)
}

// matchStars matches a run of '*' starting at p[pi] and whatever follows.
func matchStars(p string, pi int, t string, ti int) bool {
	end := pi
	for end < len(p) && p[end] == '*' {
		end++
	}
	segStart := pi == 0 || p[pi-1] == '/'
	segEnd := end == len(p) || p[end] == '/'
	if end-pi >= 2 && segStart && segEnd {
		if end == len(p) {
			return true // a trailing "**" takes everything below
		}
		// "**/": zero or more whole directories, then the rest.
		rest := end + 1
		if wildmatchAt(p, rest, t, ti) {
			return true
		}
		for j := ti; j < len(t); j++ {
			if t[j] == '/' && wildmatchAt(p, rest, t, j+1) {
				return true
			}
		}
		return false
	}
	if end == len(p) {
		return !strings.Contains(t[ti:], "/")
	}
	for j := ti; j <= len(t); j++ {
		if wildmatchAt(p, end, t, j) {
			return true
		}
		if j < len(t) && t[j] == '/' {
			return false
		}
	}
	return false
}

// matchClass matches r against the class that opens at p[pi] ('[') and
// returns the index after its closing ']'. An unclosed class matches
// nothing.
func matchClass(p string, pi int, r rune) (bool, int) {
	i := pi + 1
	negate := false
	if i < len(p) && (p[i] == '!' || p[i] == '^') {
		negate = true
		i++
	}
	matched := false
	first := true
	for {
		if i >= len(p) {
			return false, 0
		}
		if p[i] == ']' && !first {
			i++
			break
		}
		first = false
		if p[i] == '[' && i+1 < len(p) && p[i+1] == ':' {
			if end := strings.Index(p[i+2:], ":]"); end >= 0 {
				if posixClass(p[i+2:i+2+end], r) {
					matched = true
				}
				i += 2 + end + 2
				continue
			}
		}
		lo, n, ok := classRune(p, i)
		if !ok {
			return false, 0
		}
		i += n
		hi := lo
		if i+1 < len(p) && p[i] == '-' && p[i+1] != ']' {
			h, m, ok := classRune(p, i+1)
			if !ok {
				return false, 0
			}
			hi = h
			i += 1 + m
		}
		if lo <= r && r <= hi {
			matched = true
		}
	}
	if r == '/' {
		return false, 0
	}
	return matched != negate, i
}

// classRune reads one possibly escaped rune of a class at p[i].
func classRune(p string, i int) (rune, int, bool) {
	if p[i] == '\\' {
		if i+1 >= len(p) {
			return 0, 0, false
		}
		r, n := utf8.DecodeRuneInString(p[i+1:])
		return r, n + 1, true
	}
	r, n := utf8.DecodeRuneInString(p[i:])
	return r, n, true
}

// posixClass reports whether r is in the named POSIX class ("alpha", …).
func posixClass(name string, r rune) bool {
	switch name {
	case "alnum":
		return isASCIIAlpha(r) || isASCIIDigit(r)
	case "alpha":
		return isASCIIAlpha(r)
	case "blank":
		return r == ' ' || r == '\t'
	case "cntrl":
		return r < 0x20 || r == 0x7f
	case "digit":
		return isASCIIDigit(r)
	case "graph":
		return r > 0x20 && r < 0x7f
	case "lower":
		return r >= 'a' && r <= 'z'
	case "print":
		return r >= 0x20 && r < 0x7f
	case "punct":
		return r > 0x20 && r < 0x7f && !isASCIIAlpha(r) && !isASCIIDigit(r)
	case "space":
		return r == ' ' || (r >= '\t' && r <= '\r')
	case "upper":
		return r >= 'A' && r <= 'Z'
	case "xdigit":
		return isASCIIDigit(r) || (r >= 'a' && r <= 'f') || (r >= 'A' && r <= 'F')
	}
	return false
}

func isASCIIAlpha(r rune) bool { return (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') }
func isASCIIDigit(r rune) bool { return r >= '0' && r <= '9' }
