package search

import (
	"bytes"
	"errors"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// matcher finds matches of one pattern in a file's bytes. Outside
// multiline mode a match never spans lines, as in ripgrep: each reported
// line matches on its own.
//
// The fast path is a literal every match must contain (the whole pattern,
// or the longest literal of a concatenation): the buffer is scanned for it
// with a memchr-style search on its rarest byte, and the regular
// expression only checks the lines that hold it.
type matcher struct {
	re        *regexp.Regexp // (?m) plus the query's flags
	lit       literal        // required literal; empty when none is usable
	pure      bool           // lit is the whole pattern: finding it is a match
	multiline bool
}

// compileMatcher compiles pattern for the query's flags. A syntax error is
// an *ArgError naming the pattern.
func compileMatcher(pattern string, ignoreCase, multiline bool) (*matcher, error) {
	if _, err := syntax.Parse(pattern, syntax.Perl); err != nil {
		return nil, invalidArg("pattern", pattern, errors.New(strings.TrimPrefix(err.Error(), "error parsing regexp: ")))
	}
	flags := "(?m"
	if ignoreCase {
		flags += "i"
	}
	if multiline {
		flags += "s"
	}
	full := flags + ")" + pattern
	re, err := regexp.Compile(full)
	if err != nil {
		return nil, invalidArg("pattern", pattern, err)
	}
	tree, err := syntax.Parse(full, syntax.Perl)
	if err != nil {
		return nil, invalidArg("pattern", pattern, err)
	}
	if !multiline && hasLiteralNewline(tree) {
		return nil, invalidArg("pattern", pattern, errors.New(`a literal "\n" can only match in multiline mode`))
	}
	m := &matcher{re: re, multiline: multiline}
	if runes, fold, ok := requiredLiteral(tree); ok {
		m.lit = newLiteral(string(runes), fold)
		m.pure = tree.Op == syntax.OpLiteral && !m.lit.empty()
	}
	return m, nil
}

// requiredLiteral returns a literal that every match of re contains and
// that the fast search can look for.
func requiredLiteral(re *syntax.Regexp) ([]rune, bool, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		fold := re.Flags&syntax.FoldCase != 0
		return re.Rune, fold, usableLiteral(re.Rune, fold)
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiteral(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiteral(re.Sub[0])
		}
	case syntax.OpConcat:
		var best []rune
		var bestFold, found bool
		for _, sub := range re.Sub {
			if r, fold, ok := requiredLiteral(sub); ok && len(r) > len(best) {
				best, bestFold, found = r, fold, true
			}
		}
		return best, bestFold, found
	}
	return nil, false, false
}

// usableLiteral reports whether the fast search can look for r: a
// case-folded literal must be ASCII.
func usableLiteral(r []rune, fold bool) bool {
	if len(r) == 0 {
		return false
	}
	if !fold {
		return true
	}
	for _, c := range r {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func hasLiteralNewline(re *syntax.Regexp) bool {
	if re.Op == syntax.OpLiteral {
		for _, r := range re.Rune {
			if r == '\n' {
				return true
			}
		}
	}
	for _, sub := range re.Sub {
		if hasLiteralNewline(sub) {
			return true
		}
	}
	return false
}

// lineFn receives one matching line, [start, end) without its '\n', and
// the number of matches on it (1 unless counting); false stops the scan.
type lineFn func(start, end, matches int) bool

// scanLines reports the matching lines of buf in order. countAll asks for
// the number of matches per line instead of 1.
func (m *matcher) scanLines(buf []byte, countAll bool, fn lineFn) {
	useLit := !m.lit.empty() && !m.lit.unsafeFor(buf)
	pos := 0
	for pos < len(buf) {
		var start int
		if useLit {
			i := m.lit.index(buf[pos:])
			if i < 0 {
				return
			}
			start = pos + i
		} else {
			loc := m.re.FindIndex(buf[pos:])
			if loc == nil {
				return
			}
			start = pos + loc[0]
			if start == len(buf) && buf[len(buf)-1] == '\n' {
				return // the empty "line" after the final newline is not a line
			}
		}
		ls := lineStart(buf, start)
		le := lineEnd(buf, start)
		line := buf[ls:le]
		n := 0
		switch {
		case useLit && m.pure:
			n = 1
			if countAll {
				n = m.lit.count(line)
			}
		case countAll:
			n = len(m.re.FindAllIndex(line, -1))
		case m.re.Match(line):
			n = 1
		}
		if n > 0 && !fn(ls, le, n) {
			return
		}
		pos = le + 1
	}
}

// scanMultiline reports every match of the whole buffer as the span of
// lines it covers, in order; fn gets the span's first line start and last
// line end. limit > 0 stops after that many matches.
func (m *matcher) scanMultiline(buf []byte, limit int, fn lineFn) {
	if !m.lit.empty() && !m.lit.unsafeFor(buf) && m.lit.index(buf) < 0 {
		return
	}
	if limit <= 0 {
		limit = -1
	}
	for _, loc := range m.re.FindAllIndex(buf, limit) {
		s, e := loc[0], loc[1]
		if s == len(buf) && (len(buf) == 0 || buf[len(buf)-1] == '\n') {
			return // the empty "line" after the final newline is not a line
		}
		last := s
		if e > s {
			last = e - 1
		}
		if !fn(lineStart(buf, s), lineEnd(buf, last), 1) {
			return
		}
	}
}

func lineStart(buf []byte, i int) int { return bytes.LastIndexByte(buf[:i], '\n') + 1 }

func lineEnd(buf []byte, i int) int {
	if j := bytes.IndexByte(buf[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(buf)
}
