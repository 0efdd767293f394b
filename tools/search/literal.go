package search

import (
	"bytes"
	"strings"
)

// literal is a byte string searched for with a memchr on its rarest byte
// (both cases of it when folding) and a comparison around each hit. A
// folded literal is ASCII and stored lower-cased.
type literal struct {
	needle []byte
	fold   bool
	rare   int  // index in needle of the byte to scan for
	lo, up byte // the rare byte's two cases (equal unless fold and a letter)
	// kelvin and longS: the needle has a letter with a non-ASCII case
	// variant (k ~ U+212A, s ~ U+017F), so buffers holding those runes
	// need the regular expression.
	kelvin, longS bool
}

func newLiteral(s string, fold bool) literal {
	if fold {
		s = strings.ToLower(s)
	}
	l := literal{needle: []byte(s), fold: fold}
	best := 1 << 30
	for i, c := range l.needle {
		cost := byteCost(c)
		if fold && c >= 'a' && c <= 'z' {
			cost += byteCost(c - 'a' + 'A')
		}
		if cost < best {
			best, l.rare = cost, i
		}
	}
	if len(l.needle) > 0 {
		c := l.needle[l.rare]
		l.lo, l.up = c, c
		if fold && c >= 'a' && c <= 'z' {
			l.up = c - 'a' + 'A'
		}
	}
	l.kelvin = fold && strings.ContainsRune(s, 'k')
	l.longS = fold && strings.ContainsRune(s, 's')
	return l
}

func (l literal) empty() bool { return len(l.needle) == 0 }

var (
	kelvinSign = []byte("\u212a")
	longS      = []byte("\u017f")
)

// unsafeFor reports whether buf holds a rune that folds to a letter of
// the needle but that the ASCII search would miss.
func (l literal) unsafeFor(buf []byte) bool {
	return (l.kelvin && bytes.Contains(buf, kelvinSign)) || (l.longS && bytes.Contains(buf, longS))
}

// index returns the first occurrence of the needle in h, or -1.
func (l literal) index(h []byte) int {
	n := len(l.needle)
	if !l.fold && n <= 2 {
		return bytes.Index(h, l.needle)
	}
	nextLo, nextUp := -2, -2 // next offset of each case of the rare byte; -2: not searched yet
	from := l.rare           // candidates before this cannot start a match
	for {
		if nextLo == -2 || (nextLo >= 0 && nextLo < from) {
			nextLo = indexByteFrom(h, l.lo, from)
		}
		if l.up != l.lo && (nextUp == -2 || (nextUp >= 0 && nextUp < from)) {
			nextUp = indexByteFrom(h, l.up, from)
		}
		at := nextLo
		if l.up != l.lo && nextUp >= 0 && (at < 0 || nextUp < at) {
			at = nextUp
		}
		if at < 0 {
			return -1
		}
		start := at - l.rare
		if start+n <= len(h) && l.equalAt(h[start:start+n]) {
			return start
		}
		from = at + 1
	}
}

func indexByteFrom(h []byte, c byte, from int) int {
	if from >= len(h) {
		return -1
	}
	if i := bytes.IndexByte(h[from:], c); i >= 0 {
		return from + i
	}
	return -1
}

func (l literal) equalAt(b []byte) bool {
	if !l.fold {
		return bytes.Equal(b, l.needle)
	}
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != l.needle[i] {
			return false
		}
	}
	return true
}

// count returns the number of non-overlapping occurrences in line.
func (l literal) count(line []byte) int {
	if !l.fold {
		return bytes.Count(line, l.needle)
	}
	n := 0
	for {
		i := l.index(line)
		if i < 0 {
			return n
		}
		n++
		line = line[i+len(l.needle):]
	}
}

// byteCost estimates how often c occurs in source text (lower is rarer),
// from a rough ranking of bytes in code and prose; bytes absent from the
// ranking count as rare.
func byteCost(c byte) int {
	if i := strings.IndexByte(byteRanking, c); i >= 0 {
		return len(byteRanking) - i + 8
	}
	return 1
}

// byteRanking lists common bytes of source files, most frequent first.
const byteRanking = " e\tt\nrianosldcup.m(),_f\"hg=;:bE/yTxwRSvICAN0-'kLOD1P{}M*F2>[]<Bq&!3H8#+GUz45V$6W|79XKjY%?Q@\\JZ^~`"
