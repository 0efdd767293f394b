package glob

import (
	"math/bits"
	"strings"
	"unicode"
	"unicode/utf8"
)

// match reports whether s matches the whole program. The matcher tracks the
// set of value positions the pattern can have reached so far, node by node,
// like an NFA simulation: no backtracking, so no exponential blow-up.
func (p *program) match(s string, noCase bool) bool {
	switch {
	case len(p.nodes) == 0: // an empty brace alternative: "{,a}"
		return s == ""
	case p.exact:
		if noCase {
			return strings.EqualFold(s, p.nodes[0].lit)
		}
		return s == p.nodes[0].lit
	case p.prefixStar:
		rest, ok := strings.CutPrefix(s, p.nodes[0].lit)
		return ok && strings.IndexByte(rest, '/') < 0
	}
	if !noCase && p.nodes[0].kind == kLit && !strings.HasPrefix(s, p.nodes[0].lit) {
		return false
	}
	m := matcher{s: s, noCase: noCase, words: len(s)/64 + 1}
	start := m.newSet()
	start.add(0)
	return m.seq(p.nodes, start).has(len(s))
}

// set is a bitset of value positions 0..len(s).
type set []uint64

func (b set) add(i int)      { b[i>>6] |= 1 << (i & 63) }
func (b set) has(i int) bool { return b[i>>6]&(1<<(i&63)) != 0 }

func (b set) empty() bool {
	for _, w := range b {
		if w != 0 {
			return false
		}
	}
	return true
}

// each calls fn for every position in ascending order.
func (b set) each(fn func(p int)) {
	for i, w := range b {
		for w != 0 {
			fn(i<<6 + bits.TrailingZeros64(w))
			w &= w - 1
		}
	}
}

func (b set) or(c set) {
	for i := range b {
		b[i] |= c[i]
	}
}

type matcher struct {
	s      string
	noCase bool
	words  int
}

func (m *matcher) newSet() set { return make(set, m.words) }

// seq returns the positions reachable by matching nodes from the positions
// in in.
func (m *matcher) seq(nodes []node, in set) set {
	cur := in
	for i := range nodes {
		cur = m.step(&nodes[i], cur)
		if cur.empty() {
			break
		}
	}
	return cur
}

func (m *matcher) step(n *node, cur set) set {
	out := m.newSet()
	s := m.s
	switch n.kind {
	case kLit:
		cur.each(func(p int) {
			if q, ok := m.lit(p, n.lit); ok {
				out.add(q)
			}
		})
	case kAny, kClass:
		cur.each(func(p int) {
			if p >= len(s) || s[p] == '/' || (n.segStart && s[p] == '.' && n.kind == kAny) {
				return
			}
			r, size := utf8.DecodeRuneInString(s[p:])
			if n.kind == kAny || n.class.matches(r, m.noCase) {
				out.add(p + size)
			}
		})
	case kStar:
		m.star(n, cur, out)
	case kGlobAll:
		cur.each(func(p int) { m.segments(p, out) })
	case kGlobPrefix:
		cur.each(func(p int) { m.prefixSegments(p, out) })
	case kGlobMiddle:
		cur.each(func(p int) {
			if p < len(s) && s[p] == '/' {
				m.prefixSegments(p+1, out)
			}
		})
	case kGlobSuffix:
		cur.each(func(p int) {
			out.add(p)
			if p < len(s) && s[p] == '/' {
				out.add(p + 1)
				m.segments(p+1, out)
			}
		})
	case kExt:
		m.ext(n, cur, out)
	}
	return out
}

// lit matches the literal l at p and returns the position after it.
func (m *matcher) lit(p int, l string) (int, bool) {
	rest := m.s[p:]
	if !m.noCase {
		return p + len(l), strings.HasPrefix(rest, l)
	}
	q := p
	for _, lr := range l {
		if q >= len(m.s) {
			return 0, false
		}
		r, size := utf8.DecodeRuneInString(m.s[q:])
		if !foldRune(r, lr) {
			return 0, false
		}
		q += size
	}
	return q, true
}

// star adds, for each start position, every position up to the next "/".
// Positions already covered by an earlier start are not walked again.
func (m *matcher) star(n *node, cur, out set) {
	s := m.s
	covered := -1
	cur.each(func(p int) {
		if n.segStart && (p >= len(s) || s[p] == '.') {
			return // picomatch: (?!\.)(?=.) before a segment-leading star
		}
		if p <= covered {
			return
		}
		q := p
		out.add(q)
		for q < len(s) && s[q] != '/' {
			q += runeLen(s, q)
			out.add(q)
		}
		covered = q
	})
}

// segments adds the end of every run of one or more whole segments that
// starts at p; no segment may start with ".".
func (m *matcher) segments(p int, out set) {
	s := m.s
	for p < len(s) && s[p] != '.' && s[p] != '/' {
		e := p + nextSlash(s[p:])
		out.add(e)
		if e >= len(s) {
			return
		}
		p = e + 1
	}
}

// prefixSegments adds p and the position after every run of whole segments
// each followed by "/" that starts at p.
func (m *matcher) prefixSegments(p int, out set) {
	s := m.s
	out.add(p)
	for p < len(s) && s[p] != '.' && s[p] != '/' {
		e := p + nextSlash(s[p:])
		if e >= len(s) {
			return
		}
		p = e + 1
		out.add(p)
	}
}

func (m *matcher) alts(n *node, in set) set {
	out := m.newSet()
	for _, alt := range n.alts {
		out.or(m.seq(alt, in))
	}
	return out
}

func (m *matcher) ext(n *node, cur, out set) {
	switch n.extOp {
	case '@':
		out.or(m.alts(n, cur))
	case '?':
		out.or(cur)
		out.or(m.alts(n, cur))
	case '+', '*':
		if n.extOp == '*' {
			out.or(cur)
		}
		reached := m.alts(n, cur)
		frontier := reached
		for !frontier.empty() {
			next := m.alts(n, frontier)
			fresh := m.newSet()
			for i := range next {
				fresh[i] = next[i] &^ reached[i]
			}
			reached.or(fresh)
			frontier = fresh
		}
		out.or(reached)
	case '!':
		s := m.s
		cur.each(func(p int) {
			if n.segStart && p < len(s) && s[p] == '.' {
				return
			}
			one := m.newSet()
			one.add(p)
			excluded := m.alts(n, one)
			for q := p; ; q += runeLen(s, q) {
				if !excluded.has(q) {
					out.add(q)
				}
				if q >= len(s) || s[q] == '/' {
					break
				}
			}
		})
	}
}

func nextSlash(s string) int {
	if i := strings.IndexByte(s, '/'); i >= 0 {
		return i
	}
	return len(s)
}

func runeLen(s string, i int) int {
	if s[i] < utf8.RuneSelf {
		return 1
	}
	_, n := utf8.DecodeRuneInString(s[i:])
	return n
}

func foldRune(a, b rune) bool {
	if a == b {
		return true
	}
	for f := unicode.SimpleFold(a); f != a; f = unicode.SimpleFold(f) {
		if f == b {
			return true
		}
	}
	return false
}
