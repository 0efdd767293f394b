package term

import (
	"io"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Escape sequences the screen writes. Terminals that do not know one
// ignore it.
const (
	syncBegin   = "\x1b[?2026h" // synchronized output: the frame appears at once
	syncEnd     = "\x1b[?2026l"
	hideCursor  = "\x1b[?25l"
	showCursor  = "\x1b[?25h"
	eraseLine   = "\x1b[2K"
	eraseBelow  = "\x1b[J"
	resetStyle  = "\x1b[m"
	carriageRet = "\r"
	newline     = "\r\n" // raw mode turns off output post-processing: LF alone does not return
)

// Cursor is where the terminal cursor shows in a frame: column X (cells)
// of line Y.
type Cursor struct{ X, Y int }

// Frame is the live region: its lines, top to bottom, and the cursor (nil
// hides it). A line wider than the screen is cut at the screen's width
// minus one cell, so the terminal never wraps a live line.
type Frame struct {
	Lines  []string
	Cursor *Cursor
}

// Screen draws a live region at the bottom of an inline terminal session
// and prints finished content above it, into the terminal's own
// scrollback. It writes only what changed: each Update rewrites the lines
// from the first one that differs from the last frame, so the work per
// frame is proportional to the live region, never to what was printed.
// It keeps no copy of printed content.
//
// A Screen is used from one goroutine at a time.
type Screen struct {
	out           io.Writer
	width, height int

	prev    []string // the lines painted last; nil when none are on screen
	row     int      // the terminal cursor's line, counted from the region's top
	col     int      // the cursor's column when shown, -1 when unknown
	shown   bool     // the cursor is visible
	cleared bool     // from row 0 down the region must be painted afresh
	buf     strings.Builder
}

// NewScreen returns a screen of width × height cells writing to out,
// which it assumes holds the terminal cursor at the start of an empty
// line.
func NewScreen(out io.Writer, width, height int) *Screen {
	return &Screen{out: out, width: max(width, 2), height: max(height, 1), cleared: true, col: -1}
}

// Size returns the screen's width and height in cells.
func (s *Screen) Size() (width, height int) { return s.width, s.height }

// Update prints blocks above the live region (each block is one or more
// lines; they scroll into the terminal's scrollback and are never touched
// again) and then draws f. Everything is one write, wrapped in
// synchronized output. It writes nothing when there is nothing to print
// and f equals the last frame.
func (s *Screen) Update(blocks []string, f Frame) error {
	s.buf.Reset()
	lines := s.fit(f.Lines)
	cur := f.Cursor
	if cut := len(f.Lines) - len(lines); cut > 0 && cur != nil {
		c := *cur
		c.Y -= cut
		cur = &c
		if c.Y < 0 {
			cur = nil
		}
	}
	if len(blocks) > 0 {
		s.hide()
		s.erase()
		for _, b := range blocks {
			for line := range strings.SplitSeq(b, "\n") {
				s.buf.WriteString(line)
				if strings.IndexByte(line, 0x1b) >= 0 {
					s.buf.WriteString(resetStyle)
				}
				s.buf.WriteString(newline)
			}
		}
		s.prev, s.row, s.cleared, s.col = nil, 0, true, -1
	}
	s.paint(lines)
	s.place(cur, len(lines))
	if s.buf.Len() == 0 {
		return nil
	}
	_, err := io.WriteString(s.out, syncBegin+s.buf.String()+syncEnd)
	return err
}

// fit cuts lines to the screen: at most height lines (the last ones) of
// at most width-1 cells each.
func (s *Screen) fit(lines []string) []string {
	if len(lines) > s.height {
		lines = lines[len(lines)-s.height:]
	}
	out := lines
	for i, l := range lines {
		if ansi.StringWidth(l) < s.width {
			continue
		}
		if &out[0] == &lines[0] {
			out = append([]string(nil), lines...)
		}
		out[i] = ansi.Truncate(l, s.width-1, "")
	}
	return out
}

// paint rewrites the lines from the first that changed, and erases what
// the last frame had below the new one.
func (s *Screen) paint(lines []string) {
	d := 0
	for d < len(lines) && d < len(s.prev) && lines[d] == s.prev[d] {
		d++
	}
	if d == len(lines) && len(lines) == len(s.prev) && !s.cleared {
		return // unchanged
	}
	s.hide()
	s.col = -1
	switch {
	case d < len(lines) && (d < len(s.prev) || s.cleared || len(s.prev) == 0):
		s.moveTo(d)
		s.buf.WriteString(carriageRet)
	case d < len(lines): // d == len(prev) > 0: open a new line below the last
		s.moveTo(len(s.prev) - 1)
		s.buf.WriteString(newline)
		s.row = d
	}
	for i := d; i < len(lines); i++ {
		if i > d {
			s.buf.WriteString(newline)
			s.row = i
		}
		s.buf.WriteString(eraseLine)
		s.buf.WriteString(lines[i])
		if strings.IndexByte(lines[i], 0x1b) >= 0 {
			s.buf.WriteString(resetStyle)
		}
	}
	if len(lines) < len(s.prev) {
		s.eraseRows(len(lines), len(s.prev))
		s.moveTo(max(len(lines)-1, 0))
	}
	if s.cleared { // after a resize the rows below are unknown
		if d >= len(lines) {
			s.moveTo(0)
			s.buf.WriteString(carriageRet)
		}
		s.buf.WriteString(eraseBelow)
	}
	s.prev = append(s.prev[:0], lines...)
	s.cleared = false
}

// erase blanks the live region and leaves the cursor at the start of its
// first line. It erases the region's own rows one by one rather than to
// the end of the screen: a terminal that keeps a cleared screen in its
// scrollback (tmux's scroll-on-clear) would otherwise keep a copy of the
// region whenever it sits at the top of the screen.
func (s *Screen) erase() {
	if s.cleared {
		s.moveTo(0)
		s.buf.WriteString(carriageRet + eraseBelow)
	} else {
		s.eraseRows(0, len(s.prev))
		s.moveTo(0)
		s.buf.WriteString(carriageRet)
	}
	s.prev, s.row, s.cleared, s.col = nil, 0, false, 0
}

// eraseRows blanks rows from to to-1 of the region, which are on screen.
func (s *Screen) eraseRows(from, to int) {
	for r := from; r < to; r++ {
		s.moveTo(r)
		s.buf.WriteString(carriageRet + eraseLine)
	}
	s.col = 0
}

// place shows the cursor at c, or keeps it hidden.
func (s *Screen) place(c *Cursor, n int) {
	if c == nil || c.Y >= n {
		s.hide()
		if s.col != 0 {
			// Park at the start of the line: a terminal that reflows on a
			// resize keeps a cursor there in the row Resize expects.
			s.buf.WriteString(carriageRet)
			s.col = 0
		}
		return
	}
	x := min(max(c.X, 0), s.width-1)
	if s.shown && c.Y == s.row && x == s.col {
		return
	}
	s.moveTo(c.Y)
	s.buf.WriteString("\x1b[" + strconv.Itoa(x+1) + "G")
	s.col = x
	if !s.shown {
		s.buf.WriteString(showCursor)
		s.shown = true
	}
}

func (s *Screen) hide() {
	if s.shown {
		s.buf.WriteString(hideCursor)
		s.shown = false
	}
}

// moveTo moves the cursor to line r of the region, keeping its column.
// Line r exists on screen: r is at most the last line painted.
func (s *Screen) moveTo(r int) {
	switch {
	case r < s.row:
		s.buf.WriteString("\x1b[" + strconv.Itoa(s.row-r) + "A")
	case r > s.row:
		s.buf.WriteString("\x1b[" + strconv.Itoa(r-s.row) + "B")
	}
	s.row = r
}

// Resize tells the screen the terminal is now width × height cells. A
// terminal that reflows its lines (most do) rewraps the region's lines
// that no longer fit; the screen works out how far above the cursor the
// region's top went, and the next Update repaints the region whole from
// there.
func (s *Screen) Resize(width, height int) {
	width, height = max(width, 2), max(height, 1)
	if width == s.width && height == s.height {
		return
	}
	if width < s.width {
		row := 0
		for i := 0; i < s.row && i < len(s.prev); i++ {
			row += rowsOf(s.prev[i], width)
		}
		if s.col > 0 {
			row += s.col / width
		}
		s.row = row
	}
	s.width, s.height = width, height
	s.prev, s.cleared, s.col = nil, true, -1
}

// rowsOf is how many rows line takes on a terminal width cells wide that
// reflows it.
func rowsOf(line string, width int) int {
	w := ansi.StringWidth(line)
	if w <= width {
		return 1
	}
	return (w + width - 1) / width
}

// Clear erases the live region and leaves the cursor, visible, at the
// start of its first line: what a program run in the foreground (an
// editor) or the shell after exit finds.
func (s *Screen) Clear() error {
	s.buf.Reset()
	s.erase()
	s.buf.WriteString(showCursor)
	s.shown = true
	_, err := io.WriteString(s.out, s.buf.String())
	return err
}

// Invalidate forgets what is on screen: the next Update paints the whole
// frame from the cursor's line, which must be the start of an empty line
// (after a program that ran in the foreground).
func (s *Screen) Invalidate() {
	s.prev, s.row, s.cleared, s.shown, s.col = nil, 0, true, true, -1
}
