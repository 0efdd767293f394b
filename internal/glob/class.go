package glob

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// class is a bracket expression such as [a-z], [!x] or [[:digit:]]. It never
// matches "/".
type class struct {
	negated bool
	ranges  []runeRange
	named   []func(rune) bool
}

type runeRange struct{ lo, hi rune }

// posixClasses are the [:name:] classes picomatch knows.
func posixClass(name string) func(rune) bool {
	switch name {
	case "alnum":
		return func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
	case "alpha":
		return unicode.IsLetter
	case "ascii":
		return func(r rune) bool { return r < utf8.RuneSelf }
	case "blank":
		return func(r rune) bool { return r == ' ' || r == '\t' }
	case "cntrl":
		return unicode.IsControl
	case "digit":
		return func(r rune) bool { return r >= '0' && r <= '9' }
	case "graph":
		return func(r rune) bool { return unicode.IsGraphic(r) && !unicode.IsSpace(r) }
	case "lower":
		return unicode.IsLower
	case "print":
		return unicode.IsPrint
	case "punct":
		return unicode.IsPunct
	case "space":
		return unicode.IsSpace
	case "upper":
		return unicode.IsUpper
	case "word":
		return func(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }
	case "xdigit":
		return func(r rune) bool { return r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F' }
	}
	return nil
}

// classEnd returns the index of the "]" closing the class that opens at
// s[i], or -1 when the "[" is literal.
func classEnd(s string, i int) int {
	_, end, _ := parseClass(s, i)
	return end
}

// parseClass parses the bracket expression at s[i] == '['. end is the index
// of its closing "]", or -1 when it is not closed (then the "[" is literal
// and the class is nil). A reversed range or an unknown POSIX name is a
// fault at its offset in s.
func parseClass(s string, i int) (*class, int, *fault) {
	c := &class{}
	j := i + 1
	if j < len(s) && (s[j] == '!' || s[j] == '^') {
		c.negated = true
		j++
	}
	first := true
	for j < len(s) {
		if s[j] == ']' && !first {
			return c, j, nil
		}
		first = false
		if strings.HasPrefix(s[j:], "[:") {
			if k := strings.Index(s[j+2:], ":]"); k >= 0 {
				name := s[j+2 : j+2+k]
				fn := posixClass(name)
				if fn == nil {
					return nil, -1, &fault{pos: j, msg: "unknown character class [:" + name + ":]"}
				}
				c.named = append(c.named, fn)
				j += k + 4
				continue
			}
		}
		lo, n := classRune(s, j)
		if n == 0 {
			break
		}
		at := j
		j += n
		hi := lo
		if j+1 < len(s) && s[j] == '-' && s[j+1] != ']' {
			h, m := classRune(s, j+1)
			if m == 0 {
				break
			}
			hi = h
			j += 1 + m
			if hi < lo {
				return nil, -1, &fault{pos: at, msg: "reversed range in character class"}
			}
		}
		c.ranges = append(c.ranges, runeRange{lo, hi})
	}
	return nil, -1, nil
}

// classRune reads one member character at s[j], unescaping "\x"; n is the
// bytes read (0 at the end of s).
func classRune(s string, j int) (rune, int) {
	if j >= len(s) {
		return 0, 0
	}
	if s[j] == '\\' && j+1 < len(s) {
		r, n := utf8.DecodeRuneInString(s[j+1:])
		return r, n + 1
	}
	r, n := utf8.DecodeRuneInString(s[j:])
	return r, n
}

// validateClasses reports the first malformed class of s.
func validateClasses(s string) *fault {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '[':
			_, end, f := parseClass(s, i)
			if f != nil {
				return f
			}
			if end > 0 {
				i = end
			}
		}
	}
	return nil
}

func (c *class) matches(r rune, noCase bool) bool {
	if r == '/' {
		return false
	}
	hit := c.has(r)
	if !hit && noCase {
		for f := unicode.SimpleFold(r); f != r && !hit; f = unicode.SimpleFold(f) {
			hit = c.has(f)
		}
	}
	return hit != c.negated
}

func (c *class) has(r rune) bool {
	for _, rr := range c.ranges {
		if r >= rr.lo && r <= rr.hi {
			return true
		}
	}
	for _, fn := range c.named {
		if fn(r) {
			return true
		}
	}
	return false
}
