package permission

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// word is one shell word as permission reads it.
type word struct {
	// text is the word after quote removal when static, else its source.
	text string
	// static says the word's value is known before the script runs: only
	// literals and quotes, no expansion, substitution or brace expansion.
	static bool
	// glob says the word has unquoted *, ? or [ (filename expansion).
	glob bool
}

// readWord renders w, whose positions are offsets into src. A leading
// "~" or "~/" becomes home; any other tilde the shell might expand (~user,
// ~+, a "~" after "=" or ":") leaves the word dynamic.
func readWord(src, home string, w *syntax.Word) word {
	if len(w.Parts) == 1 { // the common case: one plain literal, read without copying
		if l, ok := w.Parts[0].(*syntax.Lit); ok && !strings.ContainsAny(l.Value, "\\~{") {
			return word{text: l.Value, static: true, glob: isGlob(l.Value)}
		}
	}
	var b strings.Builder
	var shape strings.Builder // unquoted text; quoted characters become 'q'
	out := word{static: true}
	for i, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			v := p.Value
			if i == 0 && strings.HasPrefix(v, "~") {
				if home == "" || !(v == "~" && len(w.Parts) == 1 || strings.HasPrefix(v, "~/")) {
					out.static = false
				}
				b.WriteString(home)
				v = v[1:]
			}
			if strings.Contains(v, "=~") || strings.Contains(v, ":~") {
				out.static = false
			}
			out.glob = unquoteLit(v, &b, &shape) || out.glob
		case *syntax.SglQuoted:
			v := p.Value
			if p.Dollar {
				var ok bool
				if v, ok = ansiC(v); !ok {
					out.static = false
				}
			}
			b.WriteString(v)
			shape.WriteString(strings.Repeat("q", len(v)))
		case *syntax.DblQuoted:
			for _, dp := range p.Parts {
				lit, ok := dp.(*syntax.Lit)
				if !ok {
					out.static = false
					continue
				}
				v := unescapeDouble(lit.Value)
				b.WriteString(v)
				shape.WriteString(strings.Repeat("q", len(v)))
			}
		default: // parameter, command, arithmetic or process substitution, extglob
			out.static = false
		}
	}
	if hasBraceExpansion(shape.String()) {
		out.static = false
	}
	out.text = b.String()
	if !out.static {
		out.text = source(src, w)
	}
	return out
}

// source returns the text of n in src.
func source(src string, n syntax.Node) string {
	start, end := int(n.Pos().Offset()), int(n.End().Offset())
	if start < 0 || end > len(src) || start > end {
		return ""
	}
	return src[start:end]
}

// unquoteLit appends the unquoted literal v to b: "\x" is x and a
// backslash-newline disappears. It reports unquoted glob characters.
func unquoteLit(v string, b, shape *strings.Builder) (glob bool) {
	start := shape.Len()
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '\\' && i+1 < len(v) {
			i++
			if v[i] != '\n' {
				b.WriteByte(v[i])
				shape.WriteByte('q')
			}
			continue
		}
		b.WriteByte(c)
		shape.WriteByte(c)
	}
	return isGlob(shape.String()[start:])
}

// isGlob reports unquoted text the shell would expand as a file pattern:
// "*", "?", or a "[" closed by a later "]" (a lone "[" is the test
// command).
func isGlob(s string) bool {
	if strings.ContainsAny(s, "*?") {
		return true
	}
	i := strings.IndexByte(s, '[')
	return i >= 0 && strings.IndexByte(s[i+1:], ']') >= 0
}

// unescapeDouble removes the backslashes that escape inside double quotes.
func unescapeDouble(v string) string {
	if !strings.Contains(v, `\`) {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) && strings.IndexByte("$`\"\\\n", v[i+1]) >= 0 {
			i++
			if v[i] == '\n' {
				continue
			}
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

// hasBraceExpansion reports an unquoted {a,b} or {x..y} in shape.
func hasBraceExpansion(shape string) bool {
	open := strings.IndexByte(shape, '{')
	if open < 0 {
		return false
	}
	rest := shape[open+1:]
	sep := strings.IndexByte(rest, ',')
	if dots := strings.Index(rest, ".."); dots >= 0 && (sep < 0 || dots < sep) {
		sep = dots
	}
	return sep >= 0 && strings.IndexByte(rest[sep:], '}') >= 0
}

// ansiC decodes the body of $'…'. It refuses escapes whose value it does
// not know (\c control characters), which keeps the word dynamic.
func ansiC(v string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] != '\\' || i+1 >= len(v) {
			b.WriteByte(v[i])
			continue
		}
		i++
		switch c := v[i]; c {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'e', 'E':
			b.WriteByte(0x1b)
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case '\\', '\'', '"', '?':
			b.WriteByte(c)
		case 'x', 'u', 'U', '0', '1', '2', '3', '4', '5', '6', '7':
			n, size := numericEscape(v[i:])
			if size == 0 {
				b.WriteByte('\\')
				b.WriteByte(c)
				continue
			}
			if c == 'x' || (c >= '0' && c <= '7') {
				b.WriteByte(byte(n))
			} else {
				b.WriteRune(rune(n))
			}
			i += size - 1
		case 'c':
			return "", false
		default:
			b.WriteByte('\\')
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

// numericEscape reads \xHH, \uHHHH, \UHHHHHHHH or \nnn (octal) starting at
// the letter or first digit; size is the bytes used (0: not an escape).
func numericEscape(s string) (n uint64, size int) {
	base, maxDigits, skip := 8, 3, 0
	switch s[0] {
	case 'x':
		base, maxDigits, skip = 16, 2, 1
	case 'u':
		base, maxDigits, skip = 16, 4, 1
	case 'U':
		base, maxDigits, skip = 16, 8, 1
	}
	end := skip
	for end < len(s) && end-skip < maxDigits && isDigit(s[end], base) {
		end++
	}
	if end == skip {
		return 0, 0
	}
	n, err := strconv.ParseUint(s[skip:end], base, 32)
	if err != nil || n > 0x10FFFF {
		return 0, 0
	}
	return n, end
}

func isDigit(c byte, base int) bool {
	switch {
	case c >= '0' && c <= '7':
		return true
	case c == '8' || c == '9':
		return base == 16
	case c >= 'a' && c <= 'f', c >= 'A' && c <= 'F':
		return base == 16
	}
	return false
}
