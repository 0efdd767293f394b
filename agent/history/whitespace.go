package history

import (
	"unicode"
	"unicode/utf8"
)

// isTrimmed reports whether r is removed by JavaScript's String.prototype.trim,
// the reference for "blank" in spec 02: tab, LF, VT, FF, CR, U+FEFF, U+2028,
// U+2029 and every category-Zs character (space and U+00A0 among them).
// It differs from unicode.IsSpace in U+FEFF (trimmed) and U+0085 (kept).
func isTrimmed(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0xFEFF, 0x2028, 0x2029:
		return true
	}
	return r > 0xFF && unicode.Is(unicode.Zs, r)
}

// IsBlank reports whether s is empty once trimmed with JavaScript trim
// semantics. Every "blank" and "trim" of spec 02 uses it.
func IsBlank(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c != ' ' && (c < '\t' || c > '\r') {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if !isTrimmed(r) {
			return false
		}
		i += size
	}
	return true
}

// Trim removes leading and trailing whitespace with JavaScript trim
// semantics.
func Trim(s string) string {
	start := 0
	for start < len(s) {
		r, size := utf8.DecodeRuneInString(s[start:])
		if !isTrimmed(r) {
			break
		}
		start += size
	}
	end := len(s)
	for end > start {
		r, size := utf8.DecodeLastRuneInString(s[start:end])
		if !isTrimmed(r) {
			break
		}
		end -= size
	}
	return s[start:end]
}
