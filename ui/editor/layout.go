package editor

import (
	"unicode/utf8"

	"github.com/rivo/uniseg"
)

// tabWidth is how many cells a tab takes in the editor.
const tabWidth = 4

// layout wraps lines into visual rows of at most width cells, by
// grapheme cluster. A line of printable ASCII wraps by arithmetic; the
// wrap of any other line is computed once per width and kept in the
// line's meta until the line changes.
type layout struct {
	width int
}

// meta caches what layout learned about one line.
type meta struct {
	kind   int8  // 0 unknown, 1 printable ASCII, 2 other
	width  int   // the width starts was computed for
	starts []int // row starts of a line of kind 2
}

func (l *layout) setWidth(w int) { l.width = max(w, 1) }

// ascii reports whether line is printable ASCII only (no tabs).
func ascii(line string) bool {
	for i := 0; i < len(line); i++ {
		if c := line[i]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

func (l *layout) isASCII(line string, m *meta) bool {
	if m.kind == 0 {
		m.kind = 2
		if ascii(line) {
			m.kind = 1
		}
	}
	return m.kind == 1
}

// starts returns the byte offsets where line's visual rows start; an
// empty line has one row.
func (l *layout) starts(line string, m *meta) []int {
	if l.isASCII(line, m) {
		n := max(1, (len(line)+l.width-1)/l.width)
		out := make([]int, n)
		for i := range out {
			out[i] = i * l.width
		}
		return out
	}
	if m.starts == nil || m.width != l.width {
		m.starts, m.width = l.wrap(line), l.width
	}
	return m.starts
}

// rowCount is how many visual rows line takes.
func (l *layout) rowCount(line string, m *meta) int {
	if l.isASCII(line, m) {
		return max(1, (len(line)+l.width-1)/l.width)
	}
	return len(l.starts(line, m))
}

func (l *layout) wrap(line string) []int {
	out := []int{0}
	x := 0
	for i := 0; i < len(line); {
		c, w := cluster(line, i)
		if x+w > l.width && x > 0 {
			out = append(out, i)
			x = 0
		}
		x += w
		i += len(c)
	}
	return out
}

// cluster returns the grapheme cluster at i and its width in cells.
func cluster(line string, i int) (string, int) {
	if c := line[i]; c < utf8.RuneSelf {
		switch {
		case c == '\t':
			return line[i : i+1], tabWidth
		case c < 0x20 || c == 0x7f:
			return line[i : i+1], 0
		}
		if i+1 == len(line) || line[i+1] < utf8.RuneSelf {
			return line[i : i+1], 1
		}
	}
	c, _, w, _ := uniseg.FirstGraphemeClusterInString(line[i:], -1)
	return c, w
}

// width is how many cells s takes in the editor.
func width(s string) int {
	w := 0
	for i := 0; i < len(s); {
		c, cw := cluster(s, i)
		w += cw
		i += len(c)
	}
	return w
}

// offsetAt is the byte offset in row (line[from:to]) of the cluster at
// cell x, or to when x is past the row's end.
func offsetAt(line string, from, to, x int) int {
	cx := 0
	for i := from; i < to; {
		c, w := cluster(line, i)
		if cx+w > x {
			return i
		}
		cx += w
		i += len(c)
	}
	return to
}

// render shows a row as the terminal should draw it: tabs as spaces.
func render(row string) string {
	if ascii(row) {
		return row
	}
	out := make([]byte, 0, len(row))
	for i := 0; i < len(row); i++ {
		switch c := row[i]; {
		case c == '\t':
			out = append(out, "    "...)
		case c < 0x20 || c == 0x7f:
		default:
			out = append(out, c)
		}
	}
	return string(out)
}
