package glob

import (
	"strings"
	"unicode/utf8"
)

// nodeKind is what one element of a compiled pattern matches.
type nodeKind uint8

const (
	kLit        nodeKind = iota // a literal run
	kAny                        // ? : one character but "/"
	kStar                       // * : any run without "/"
	kClass                      // [...]
	kExt                        // @(…) ?(…) *(…) +(…) !(…)
	kGlobAll                    // ** as the whole pattern: one or more segments
	kGlobPrefix                 // **/ : zero or more segments, each with its "/"
	kGlobMiddle                 // /**/ : "/" then zero or more segments with theirs
	kGlobSuffix                 // /** at the end: nothing, or "/" and segments
)

// node is one element of a compiled pattern.
type node struct {
	kind nodeKind
	// segStart is set on a wildcard that begins a pattern segment: it must
	// not match a leading "." (and a "*" there needs a character).
	segStart bool
	lit      string
	class    *class
	extOp    byte
	alts     [][]node
}

// program is one brace expansion of a pattern, ready to match.
type program struct {
	nodes []node
	// Fast paths, set when the program has one of these shapes.
	exact      bool // a single literal
	prefixStar bool // a literal followed by a "*" that does not start a segment
}

// compileProgram turns an expanded pattern (no braces left to expand) into a
// program. It cannot fail: malformed classes were reported before expansion
// and anything else unclosed is literal.
func compileProgram(s string, opts Options) *program {
	var segs []string
	for _, seg := range splitSegments(s) {
		if seg == "**" && len(segs) > 0 && segs[len(segs)-1] == "**" {
			continue // "**/**" spans what one "**" spans
		}
		segs = append(segs, seg)
	}
	var nodes []node
	for i, seg := range segs {
		globstar := seg == "**"
		last := i == len(segs)-1
		// A globstar takes the "/" on each side of it that it spans.
		if i > 0 && !globstar && segs[i-1] != "**" {
			nodes = appendLit(nodes, "/")
		}
		if globstar {
			switch {
			case len(segs) == 1:
				nodes = append(nodes, node{kind: kGlobAll})
			case i == 0:
				nodes = append(nodes, node{kind: kGlobPrefix})
			case last:
				nodes = append(nodes, node{kind: kGlobSuffix})
			default:
				nodes = append(nodes, node{kind: kGlobMiddle})
			}
			continue
		}
		nodes = append(nodes, parseSegment(seg, true)...)
	}
	nodes = mergeLits(nodes)
	p := &program{nodes: nodes}
	if len(nodes) == 1 && nodes[0].kind == kLit {
		p.exact = true
	}
	if len(nodes) == 2 && nodes[0].kind == kLit && nodes[1].kind == kStar && !nodes[1].segStart && !opts.NoCase {
		p.prefixStar = true
	}
	return p
}

// splitSegments splits s at the "/" characters that are not escaped and not
// inside a class or an extglob.
func splitSegments(s string) []string {
	var segs []string
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '[':
			if j := classEnd(s, i); j > 0 {
				i = j
			}
		case '(':
			if i > 0 && strings.IndexByte("@?*+!", s[i-1]) >= 0 {
				if j := parenEnd(s, i); j > 0 {
					i = j
				}
			}
		case '/':
			segs = append(segs, s[start:i])
			start = i + 1
		}
	}
	return append(segs, s[start:])
}

// parenEnd returns the index of the ")" closing the "(" at s[i], or -1.
func parenEnd(s string, i int) int {
	j, _ := groupEnd(s, i, '(', ')', 0)
	return j
}

// splitAlts splits an extglob body at its top-level "|".
func splitAlts(s string) []string {
	var alts []string
	start, depth := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '[':
			if j := classEnd(s, i); j > 0 {
				i = j
			}
		case '(':
			depth++
		case ')':
			depth--
		case '|':
			if depth == 0 {
				alts = append(alts, s[start:i])
				start = i + 1
			}
		}
	}
	return append(alts, s[start:])
}

// parseSegment compiles the text of one segment (or one extglob
// alternative). first says whether its first element begins a segment.
func parseSegment(s string, first bool) []node {
	var nodes []node
	atStart := first
	for i := 0; i < len(s); {
		c := s[i]
		start := atStart
		atStart = false
		switch {
		case c == '\\':
			if i+1 >= len(s) {
				nodes = appendLit(nodes, `\`)
				i++
				continue
			}
			_, n := utf8.DecodeRuneInString(s[i+1:])
			nodes = appendLit(nodes, s[i+1:i+1+n])
			i += 1 + n
		case strings.IndexByte("@?*+!", c) >= 0 && i+1 < len(s) && s[i+1] == '(' && parenEnd(s, i+1) > 0:
			end := parenEnd(s, i+1)
			ext := node{kind: kExt, extOp: c, segStart: start}
			for _, alt := range splitAlts(s[i+2 : end]) {
				ext.alts = append(ext.alts, mergeLits(parseSegment(alt, start)))
			}
			nodes = append(nodes, ext)
			i = end + 1
		case c == '*':
			for i < len(s) && s[i] == '*' && !(i+1 < len(s) && s[i+1] == '(' && parenEnd(s, i+1) > 0) {
				i++
			}
			nodes = append(nodes, node{kind: kStar, segStart: start})
		case c == '?':
			nodes = append(nodes, node{kind: kAny, segStart: start})
			i++
		case c == '[':
			cl, end, _ := parseClass(s, i)
			if end < 0 {
				nodes = appendLit(nodes, "[")
				i++
				continue
			}
			nodes = append(nodes, node{kind: kClass, class: cl, segStart: start})
			i = end + 1
		default:
			_, n := utf8.DecodeRuneInString(s[i:])
			nodes = appendLit(nodes, s[i:i+n])
			i += n
		}
	}
	return nodes
}

func appendLit(nodes []node, s string) []node {
	if n := len(nodes); n > 0 && nodes[n-1].kind == kLit {
		nodes[n-1].lit += s
		return nodes
	}
	return append(nodes, node{kind: kLit, lit: s})
}

func mergeLits(nodes []node) []node {
	var out []node
	for _, n := range nodes {
		if n.kind == kLit {
			out = appendLit(out, n.lit)
			continue
		}
		out = append(out, n)
	}
	return out
}
