// Package termtest is a small VT terminal for tests: it interprets what a
// program writes to a terminal (text, the cursor movements, erasures and
// modes kimigo uses) into a grid of cells and a scrollback, and reflows
// its lines on a resize as tmux, kitty or VTE do. Tests compare what a
// user would see, not the bytes written.
//
// It knows: printable text of any width (grapheme clusters, East Asian
// wide characters and emoji take two cells), automatic wrapping at the
// right margin, CR, LF, BS, CUU/CUD/CUF/CUB (A–D), CHA (G), CUP (H), EL
// (K), ED (J), SGR (ignored), the private modes 25 (cursor), 2004
// (bracketed paste) and 2026 (synchronized output), the kitty keyboard
// stack (CSI > u, CSI < u) and modifyOtherKeys (CSI > 4 m). Anything else
// is recorded in Unknown.
package termtest

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// row is one screen row: its cells and whether it continues on the next
// row because the text wrapped there (so a reflow joins them).
type row struct {
	cells   []string // "" is a blank cell; a wide character's second cell is "\x00"
	wrapped bool
}

// VT is an emulated terminal. The zero value is not usable: call New.
type VT struct {
	Width, Height int
	screen        []row
	history       []row
	x, y          int
	pendingWrap   bool

	// CursorVisible, BracketedPaste, Synchronized are the modes' states;
	// KittyDepth is the depth of the kitty keyboard stack;
	// ModifyOtherKeys the last modifyOtherKeys level set.
	CursorVisible   bool
	BracketedPaste  bool
	Synchronized    bool
	KittyDepth      int
	ModifyOtherKeys int
	// ScrollOnClear keeps what a clear of the whole screen erased in the
	// history, as tmux does (its scroll-on-clear option, on by default):
	// an erase to the end of the screen from its top-left corner counts.
	ScrollOnClear bool
	// Unknown lists the sequences the terminal did not interpret.
	Unknown []string

	state  byte
	parser *ansi.Parser
	carry  []byte // an incomplete sequence or character left by the last Write
}

// New returns a blank terminal of width × height cells with the cursor
// at the top left, visible.
func New(width, height int) *VT {
	v := &VT{Width: width, Height: height, CursorVisible: true, parser: ansi.NewParser()}
	v.screen = make([]row, height)
	for i := range v.screen {
		v.screen[i] = v.blank()
	}
	return v
}

func (v *VT) blank() row { return row{cells: make([]string, v.Width)} }

// Write interprets p. It never fails.
func (v *VT) Write(p []byte) (int, error) {
	n := len(p)
	b := append(v.carry, p...)
	v.carry = nil
	for len(b) > 0 {
		seq, width, m, st := ansi.DecodeSequence(b, v.state, v.parser)
		if m == 0 || (st != ansi.NormalState && m == len(b)) {
			// incomplete: keep it for the next write
			v.carry = append([]byte(nil), b...)
			v.state = ansi.NormalState
			break
		}
		v.state = st
		v.handle(seq, width)
		b = b[m:]
	}
	return n, nil
}

// WriteString is Write of a string.
func (v *VT) WriteString(s string) (int, error) { return v.Write([]byte(s)) }

func (v *VT) handle(seq []byte, width int) {
	switch {
	case len(seq) == 0:
	case seq[0] == 0x1b && len(seq) > 1 && seq[1] == '[':
		v.csi(string(seq))
	case seq[0] == 0x1b:
		v.Unknown = append(v.Unknown, fmt.Sprintf("%q", seq))
	case seq[0] == '\r':
		v.x, v.pendingWrap = 0, false
	case seq[0] == '\n':
		v.lineFeed()
	case seq[0] == '\b':
		if v.x > 0 {
			v.x--
		}
		v.pendingWrap = false
	case seq[0] < 0x20 || seq[0] == 0x7f:
		// other controls (BEL, …): ignored
	default:
		v.print(string(seq), width)
	}
}

func (v *VT) print(g string, w int) {
	if w == 0 {
		return
	}
	if v.pendingWrap || v.x+w > v.Width {
		v.screen[v.y].wrapped = true
		v.x, v.pendingWrap = 0, false
		v.lineFeed()
	}
	r := &v.screen[v.y]
	r.cells[v.x] = g
	for i := 1; i < w && v.x+i < v.Width; i++ {
		r.cells[v.x+i] = "\x00"
	}
	v.x += w
	if v.x >= v.Width {
		v.x, v.pendingWrap = v.Width-1, true
	}
}

func (v *VT) lineFeed() {
	v.pendingWrap = false
	if v.y < v.Height-1 {
		v.y++
		return
	}
	v.history = append(v.history, v.screen[0])
	copy(v.screen, v.screen[1:])
	v.screen[v.Height-1] = v.blank()
}

func (v *VT) csi(seq string) {
	body := seq[2 : len(seq)-1]
	final := seq[len(seq)-1]
	prefix := byte(0)
	if body != "" && strings.ContainsRune("?<>=", rune(body[0])) {
		prefix, body = body[0], body[1:]
	}
	n := 1
	if body != "" && !strings.Contains(body, ";") {
		fmt.Sscanf(body, "%d", &n)
	}
	switch {
	case prefix == '?' && (final == 'h' || final == 'l'):
		on := final == 'h'
		switch body {
		case "25":
			v.CursorVisible = on
		case "2004":
			v.BracketedPaste = on
		case "2026":
			v.Synchronized = on
		default:
			v.Unknown = append(v.Unknown, seq)
		}
	case prefix == '>' && final == 'u':
		v.KittyDepth++
	case prefix == '<' && final == 'u':
		v.KittyDepth = max(0, v.KittyDepth-max(n, 1))
	case prefix == '>' && final == 'm':
		var res, lvl int
		fmt.Sscanf(body, "%d;%d", &res, &lvl)
		v.ModifyOtherKeys = lvl
	case prefix != 0:
		v.Unknown = append(v.Unknown, seq)
	case final == 'm':
	case final == 'A':
		v.y = max(0, v.y-max(n, 1))
		v.pendingWrap = false
	case final == 'B':
		v.y = min(v.Height-1, v.y+max(n, 1))
		v.pendingWrap = false
	case final == 'C':
		v.x = min(v.Width-1, v.x+max(n, 1))
		v.pendingWrap = false
	case final == 'D':
		v.x = max(0, v.x-max(n, 1))
		v.pendingWrap = false
	case final == 'G':
		v.x = min(v.Width-1, max(n, 1)-1)
		v.pendingWrap = false
	case final == 'H':
		r, c := 1, 1
		fmt.Sscanf(body, "%d;%d", &r, &c)
		v.y, v.x = min(v.Height-1, max(r, 1)-1), min(v.Width-1, max(c, 1)-1)
		v.pendingWrap = false
	case final == 'K':
		v.eraseLine(body)
	case final == 'J':
		v.eraseDisplay(body)
	default:
		v.Unknown = append(v.Unknown, seq)
	}
}

func (v *VT) eraseLine(mode string) {
	r := &v.screen[v.y]
	from, to := v.x, v.Width
	switch mode {
	case "1":
		from, to = 0, v.x+1
	case "2":
		from = 0
	}
	for i := from; i < to && i < v.Width; i++ {
		r.cells[i] = ""
	}
	if to >= v.Width {
		r.wrapped = false
	}
}

func (v *VT) eraseDisplay(mode string) {
	if v.ScrollOnClear && (mode == "2" || (mode == "" || mode == "0") && v.x == 0 && v.y == 0) {
		last := lastNonBlank(v.screen)
		v.history = append(v.history, v.screen[:last+1]...)
	}
	switch mode {
	case "", "0":
		v.eraseLine("")
		for i := v.y + 1; i < v.Height; i++ {
			v.screen[i] = v.blank()
		}
	case "1":
		v.eraseLine("1")
		for i := 0; i < v.y; i++ {
			v.screen[i] = v.blank()
		}
	case "2":
		for i := range v.screen {
			v.screen[i] = v.blank()
		}
	}
}

// text is a row's text with trailing blanks removed.
func (r row) text() string {
	var b strings.Builder
	for _, c := range r.cells {
		switch c {
		case "":
			b.WriteByte(' ')
		case "\x00":
		default:
			b.WriteString(c)
		}
	}
	return strings.TrimRight(b.String(), " ")
}

// Screen returns the visible rows' text, trailing blanks and trailing
// blank rows removed.
func (v *VT) Screen() []string {
	out := make([]string, len(v.screen))
	for i, r := range v.screen {
		out[i] = r.text()
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// History returns the rows that scrolled off the top, oldest first.
func (v *VT) History() []string {
	out := make([]string, len(v.history))
	for i, r := range v.history {
		out[i] = r.text()
	}
	return out
}

// All is History followed by Screen: everything a user can scroll
// through.
func (v *VT) All() []string { return append(v.History(), v.Screen()...) }

// Lines is All with the rows the terminal wrapped joined into the lines
// that were written, trailing blank lines removed.
func (v *VT) Lines() []string {
	var out []string
	var cur strings.Builder
	for _, r := range append(append([]row(nil), v.history...), v.screen...) {
		if r.wrapped {
			for _, c := range r.cells {
				switch c {
				case "":
					cur.WriteByte(' ')
				case "\x00":
				default:
					cur.WriteString(c)
				}
			}
			continue
		}
		cur.WriteString(r.text())
		out = append(out, strings.TrimRight(cur.String(), " "))
		cur.Reset()
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// Cursor returns the cursor's column and row on the screen.
func (v *VT) Cursor() (x, y int) { return v.x, v.y }

// Resize changes the terminal's size and reflows its lines: rows that
// wrapped are joined into their line and the lines are wrapped again at
// the new width; the cursor keeps its place in its line. The screen keeps
// its top line where it can; what no longer fits goes to the history.
func (v *VT) Resize(width, height int) {
	type line struct{ cells []string }
	all := append(append([]row(nil), v.history...), v.screen...)
	top := len(v.history) // index in all of the screen's first row
	curRow := top + v.y
	var lines []line
	curLine, curOff, topLine, topOff := 0, 0, 0, 0
	var cur []string
	for i, r := range all {
		if i == curRow {
			curLine, curOff = len(lines), len(cur)+v.x
		}
		if i == top {
			topLine, topOff = len(lines), len(cur)
		}
		cells := r.cells
		if !r.wrapped {
			cells = trimBlankCells(cells)
		}
		cur = append(cur, cells...)
		if !r.wrapped {
			lines = append(lines, line{cur})
			cur = nil
		}
	}
	if cur != nil {
		lines = append(lines, line{cur})
	}
	v.Width, v.Height = width, height
	var rows []row
	newCur, newTop := 0, 0
	for li, l := range lines {
		start := len(rows)
		cells := l.cells
		if len(cells) == 0 {
			rows = append(rows, v.blank())
		}
		for len(cells) > 0 {
			n := min(width, len(cells))
			if n < len(cells) && cells[n] == "\x00" { // keep a wide character whole
				n--
			}
			r := v.blank()
			copy(r.cells, cells[:n])
			cells = cells[n:]
			r.wrapped = len(cells) > 0
			rows = append(rows, r)
		}
		if li == curLine {
			newCur = start + min(curOff/width, len(rows)-start)
			if curOff/width >= len(rows)-start {
				for len(rows) <= newCur {
					rows = append(rows, v.blank())
				}
			}
			v.x = curOff % width
		}
		if li == topLine {
			newTop = start + topOff/width
		}
	}
	end := max(newCur+1, lastNonBlank(rows)+1)
	start := max(newTop, end-height)
	if newCur < start {
		start = newCur
	}
	v.history = rows[:start]
	v.screen = make([]row, height)
	for i := range v.screen {
		if start+i < len(rows) {
			v.screen[i] = rows[start+i]
		} else {
			v.screen[i] = v.blank()
		}
		if len(v.screen[i].cells) != width {
			c := make([]string, width)
			copy(c, v.screen[i].cells)
			v.screen[i].cells = c
		}
	}
	v.y = min(newCur-start, height-1)
	v.pendingWrap = false
}

func trimBlankCells(c []string) []string {
	for len(c) > 0 && c[len(c)-1] == "" {
		c = c[:len(c)-1]
	}
	return c
}

func lastNonBlank(rows []row) int {
	for i := len(rows) - 1; i >= 0; i-- {
		if rows[i].text() != "" {
			return i
		}
	}
	return -1
}
