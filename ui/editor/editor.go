package editor

import (
	"strings"

	tea "charm.land/bubbletea/v2"
)

// Editor is the multi-line input (spec 06 §5.3): text as lines, a
// cursor that moves by grapheme cluster, visual rows wrapped at the
// width it is drawn at, an undo log, and shell mode. Enter is not its
// business: the interface decides what submitting means.
//
// An Editor is used from one goroutine.
type Editor struct {
	buf    buffer
	lay    layout
	goalX  int // the column ↑/↓ aim for; -1 when none
	scroll int // the first visual row shown

	// Shell is shell mode: the text is a command for the user's shell.
	Shell bool
}

// New returns an empty editor.
func New() *Editor { return &Editor{buf: newBuffer(), goalX: -1, lay: layout{width: 80}} }

// Value is the text.
func (e *Editor) Value() string { return e.buf.text() }

// Empty reports whether there is no text.
func (e *Editor) Empty() bool { return e.buf.empty() }

// SetValue replaces the text, puts the cursor at its end and clears the
// undo log.
func (e *Editor) SetValue(s string) {
	e.buf.reset(clean(s))
	e.goalX = -1
}

// Cursor is the cursor's place in the text.
func (e *Editor) Cursor() Pos { return e.buf.cur }

// Lines is the number of lines of the text.
func (e *Editor) Lines() int { return len(e.buf.lines) }

// clean drops carriage returns and control characters other than tab
// and newline.
func clean(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 && r != '\n' && r != '\t' || r == 0x7f }) {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.Map(func(r rune) rune {
		if r == '\r' {
			return '\n'
		}
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f {
			return -1
		}
		return r
	}, s)
}

// Insert types s at the cursor (a key's text, or a paste, newlines and
// all).
func (e *Editor) Insert(s string) {
	s = clean(s)
	if s == "" {
		return
	}
	e.buf.apply(e.buf.cur, e.buf.cur, s, len(s) < 8)
	e.goalX = -1
}

// Newline inserts a line break.
func (e *Editor) Newline() {
	e.buf.apply(e.buf.cur, e.buf.cur, "\n", false)
	e.goalX = -1
}

// Undo reverts the last edit; it reports false when there was none.
func (e *Editor) Undo() bool {
	e.goalX = -1
	return e.buf.undoLast()
}

// Replace replaces the text from p to the cursor with s (a completion).
func (e *Editor) Replace(p Pos, s string) {
	e.buf.apply(p, e.buf.cur, s, false)
	e.goalX = -1
}

// LineBeforeCursor is the cursor's line up to the cursor.
func (e *Editor) LineBeforeCursor() string {
	return e.buf.lines[e.buf.cur.Row][:e.buf.cur.Col]
}

// OnFirstRow reports whether the cursor is on the first visual row: ↑
// there browses the history.
func (e *Editor) OnFirstRow() bool {
	if e.buf.cur.Row != 0 {
		return false
	}
	return e.rowOf(e.buf.cur) == 0
}

// OnLastRow reports whether the cursor is on the last visual row.
func (e *Editor) OnLastRow() bool {
	last := len(e.buf.lines) - 1
	if e.buf.cur.Row != last {
		return false
	}
	return e.rowOf(e.buf.cur) == e.lay.rowCount(e.buf.lines[last], &e.buf.meta[last])-1
}

// rowOf is the visual row, within its line, of p.
func (e *Editor) rowOf(p Pos) int {
	st := e.lay.starts(e.buf.lines[p.Row], &e.buf.meta[p.Row])
	k := 0
	for k+1 < len(st) && st[k+1] <= p.Col {
		k++
	}
	return k
}

// HandleKey applies an editing key and reports whether it was one. Keys
// the editor leaves alone (Enter, Esc, Tab, ↑ on the first row, ↓ on the
// last, the interface's shortcuts) return false.
func (e *Editor) HandleKey(k tea.KeyPressMsg) bool {
	b := &e.buf
	line := b.lines[b.cur.Row]
	switch k.String() {
	case "ctrl+j", "alt+enter", "shift+enter":
		e.Newline()
	case "backspace", "ctrl+h":
		switch {
		case b.cur.Col > 0:
			b.apply(Pos{b.cur.Row, prevCluster(line, b.cur.Col)}, b.cur, "", false)
		case b.cur.Row > 0:
			b.apply(Pos{b.cur.Row - 1, len(b.lines[b.cur.Row-1])}, b.cur, "", false)
		}
	case "delete":
		e.DeleteForward()
	case "left":
		switch {
		case b.cur.Col > 0:
			b.cur.Col = prevCluster(line, b.cur.Col)
		case b.cur.Row > 0:
			b.cur = Pos{b.cur.Row - 1, len(b.lines[b.cur.Row-1])}
		}
	case "right":
		switch {
		case b.cur.Col < len(line):
			b.cur.Col = nextCluster(line, b.cur.Col)
		case b.cur.Row < len(b.lines)-1:
			b.cur = Pos{b.cur.Row + 1, 0}
		}
	case "alt+left", "ctrl+left", "alt+b":
		if b.cur.Col == 0 && b.cur.Row > 0 {
			b.cur = Pos{b.cur.Row - 1, len(b.lines[b.cur.Row-1])}
		} else {
			b.cur.Col = wordLeft(line, b.cur.Col)
		}
	case "alt+right", "ctrl+right", "alt+f":
		if b.cur.Col == len(line) && b.cur.Row < len(b.lines)-1 {
			b.cur = Pos{b.cur.Row + 1, 0}
		} else {
			b.cur.Col = wordRight(line, b.cur.Col)
		}
	case "home", "ctrl+a":
		b.cur.Col = 0
	case "end", "ctrl+e":
		b.cur.Col = len(line)
	case "ctrl+w", "alt+backspace":
		if b.cur.Col == 0 {
			return e.HandleKey(tea.KeyPressMsg{Code: tea.KeyBackspace})
		}
		b.apply(Pos{b.cur.Row, wordLeft(line, b.cur.Col)}, b.cur, "", false)
	case "ctrl+u":
		b.apply(Pos{b.cur.Row, 0}, b.cur, "", false)
	case "ctrl+k":
		if b.cur.Col == len(line) && b.cur.Row < len(b.lines)-1 {
			b.apply(b.cur, Pos{b.cur.Row + 1, 0}, "", false)
		} else {
			b.apply(b.cur, Pos{b.cur.Row, len(line)}, "", false)
		}
	case "ctrl+_", "ctrl+-", "ctrl+/":
		e.Undo()
		return true
	case "up":
		if e.OnFirstRow() {
			return false
		}
		e.vertical(-1)
		return true
	case "down":
		if e.OnLastRow() {
			return false
		}
		e.vertical(1)
		return true
	default:
		if k.Text == "" || k.Mod.Contains(tea.ModCtrl) || k.Mod.Contains(tea.ModAlt) {
			return false
		}
		e.Insert(k.Text)
		return true
	}
	e.goalX = -1
	return true
}

// DeleteForward deletes the cluster after the cursor, or joins the next
// line.
func (e *Editor) DeleteForward() {
	b := &e.buf
	line := b.lines[b.cur.Row]
	switch {
	case b.cur.Col < len(line):
		b.apply(b.cur, Pos{b.cur.Row, nextCluster(line, b.cur.Col)}, "", false)
	case b.cur.Row < len(b.lines)-1:
		b.apply(b.cur, Pos{b.cur.Row + 1, 0}, "", false)
	}
	e.goalX = -1
}

// vertical moves the cursor one visual row up (-1) or down (1), keeping
// the column it aims for.
func (e *Editor) vertical(dir int) {
	b := &e.buf
	line := b.lines[b.cur.Row]
	st := e.lay.starts(line, &b.meta[b.cur.Row])
	k := e.rowOf(b.cur)
	if e.goalX < 0 {
		e.goalX = width(line[st[k]:b.cur.Col])
	}
	row, vk := b.cur.Row, k+dir
	if vk < 0 {
		row--
		vk = e.lay.rowCount(b.lines[row], &b.meta[row]) - 1
	} else if vk >= len(st) {
		row++
		vk = 0
	}
	target := b.lines[row]
	ts := e.lay.starts(target, &b.meta[row])
	from, to := ts[vk], len(target)
	if vk+1 < len(ts) {
		to = ts[vk+1]
		// the cluster that starts the next row belongs to it
		to = prevCluster(target, to)
		if to < from {
			to = from
		}
	}
	b.cur = Pos{row, offsetAt(target, from, to, e.goalX)}
}
