package editor

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/rivo/uniseg"
)

// Pos is a place in the text: line Row, byte offset Col in that line.
type Pos struct{ Row, Col int }

func (p Pos) before(q Pos) bool { return p.Row < q.Row || (p.Row == q.Row && p.Col < q.Col) }

// buffer is the text as lines (without their newlines) and the cursor.
// Every change goes through replace, which keeps the undo log.
type buffer struct {
	lines []string // never empty: an empty text is one empty line
	meta  []meta   // meta[i] caches the layout of lines[i]
	cur   Pos
	undo  []edit
	redo  []edit
}

// edit is one change: at From, Removed was replaced by Inserted; the
// cursor was at Cursor before it. Merge says typing may extend it.
type edit struct {
	From              Pos
	Removed, Inserted string
	Cursor            Pos
	merge             bool
}

// maxUndo bounds the undo log.
const maxUndo = 200

func newBuffer() buffer { return buffer{lines: []string{""}, meta: make([]meta, 1)} }

// text is the whole text.
func (b *buffer) text() string { return strings.Join(b.lines, "\n") }

// empty reports whether the text is empty.
func (b *buffer) empty() bool { return len(b.lines) == 1 && b.lines[0] == "" }

// between returns the text from a to c (a before or at c).
func (b *buffer) between(a, c Pos) string {
	if a.Row == c.Row {
		return b.lines[a.Row][a.Col:c.Col]
	}
	var s strings.Builder
	s.WriteString(b.lines[a.Row][a.Col:])
	for r := a.Row + 1; r < c.Row; r++ {
		s.WriteByte('\n')
		s.WriteString(b.lines[r])
	}
	s.WriteByte('\n')
	s.WriteString(b.lines[c.Row][:c.Col])
	return s.String()
}

// replace replaces the text from a to c with text, puts the cursor after
// it and returns the end of the inserted text. It does not log.
func (b *buffer) replace(a, c Pos, text string) Pos {
	if c.before(a) {
		a, c = c, a
	}
	prefix, suffix := b.lines[a.Row][:a.Col], b.lines[c.Row][c.Col:]
	ins := strings.Split(text, "\n")
	end := Pos{Row: a.Row + len(ins) - 1, Col: len(ins[len(ins)-1])}
	if len(ins) == 1 {
		end.Col += len(prefix)
	}
	ins[0] = prefix + ins[0]
	ins[len(ins)-1] += suffix
	tail := b.lines[c.Row+1:]
	if len(ins) == c.Row-a.Row+1 {
		copy(b.lines[a.Row:], ins)
		clear(b.meta[a.Row : a.Row+len(ins)])
	} else {
		lines := make([]string, 0, a.Row+len(ins)+len(tail))
		lines = append(lines, b.lines[:a.Row]...)
		lines = append(lines, ins...)
		lines = append(lines, tail...)
		b.lines = lines
		m := make([]meta, 0, len(lines))
		m = append(m, b.meta[:a.Row]...)
		m = append(m, make([]meta, len(ins))...)
		m = append(m, b.meta[c.Row+1:]...)
		b.meta = m
	}
	b.cur = end
	return end
}

// apply replaces the text from a to c with text and logs the change;
// typing (merge) extends the last logged typing when it continues it.
func (b *buffer) apply(a, c Pos, text string, merge bool) {
	if c.before(a) {
		a, c = c, a
	}
	removed := b.between(a, c)
	if removed == "" && text == "" {
		return
	}
	before := b.cur
	b.replace(a, c, text)
	b.redo = nil
	if n := len(b.undo); merge && n > 0 && b.undo[n-1].merge && removed == "" && b.undo[n-1].Removed == "" &&
		!strings.HasSuffix(b.undo[n-1].Inserted, " ") && !strings.Contains(text, "\n") && b.undo[n-1].end() == a {
		b.undo[n-1].Inserted += text
		return
	}
	b.undo = append(b.undo, edit{From: a, Removed: removed, Inserted: text, Cursor: before, merge: merge && removed == ""})
	if len(b.undo) > maxUndo {
		b.undo = b.undo[len(b.undo)-maxUndo:]
	}
}

// end is where an edit's inserted text ends.
func (e edit) end() Pos {
	lines := strings.Split(e.Inserted, "\n")
	if len(lines) == 1 {
		return Pos{e.From.Row, e.From.Col + len(e.Inserted)}
	}
	return Pos{e.From.Row + len(lines) - 1, len(lines[len(lines)-1])}
}

// undoLast reverts the last change; false when there is none.
func (b *buffer) undoLast() bool {
	n := len(b.undo)
	if n == 0 {
		return false
	}
	e := b.undo[n-1]
	b.undo = b.undo[:n-1]
	b.replace(e.From, e.end(), e.Removed)
	b.cur = e.Cursor
	b.redo = append(b.redo, e)
	return true
}

// reset replaces the whole text, clearing the undo log.
func (b *buffer) reset(text string) {
	b.lines = strings.Split(text, "\n")
	b.meta = make([]meta, len(b.lines))
	b.cur = Pos{len(b.lines) - 1, len(b.lines[len(b.lines)-1])}
	b.undo, b.redo = nil, nil
}

// nextCluster is the offset after the grapheme cluster at col of line.
func nextCluster(line string, col int) int {
	if col >= len(line) {
		return len(line)
	}
	if line[col] < utf8.RuneSelf && (col+1 == len(line) || line[col+1] < utf8.RuneSelf) {
		return col + 1
	}
	c, _, _, _ := uniseg.FirstGraphemeClusterInString(line[col:], -1)
	return col + len(c)
}

// prevCluster is the offset of the grapheme cluster before col.
func prevCluster(line string, col int) int {
	if col <= 0 {
		return 0
	}
	if line[col-1] < utf8.RuneSelf && (col == 1 || line[col-2] < utf8.RuneSelf) {
		return col - 1
	}
	// Walk clusters from a safe start: the beginning of the line, or a
	// little before col for long lines.
	start := max(0, col-64)
	for start > 0 && !utf8.RuneStart(line[start]) {
		start--
	}
	prev := start
	for i := start; i < col; {
		prev = i
		i = nextCluster(line, i)
	}
	return prev
}

// wordLeft is the offset of the start of the word before col.
func wordLeft(line string, col int) int {
	i := col
	for i > 0 {
		r, n := utf8.DecodeLastRuneInString(line[:i])
		if !unicode.IsSpace(r) {
			break
		}
		i -= n
	}
	for i > 0 {
		r, n := utf8.DecodeLastRuneInString(line[:i])
		if unicode.IsSpace(r) {
			break
		}
		i -= n
	}
	return i
}

// wordRight is the offset of the end of the word after col.
func wordRight(line string, col int) int {
	i := col
	for i < len(line) {
		r, n := utf8.DecodeRuneInString(line[i:])
		if !unicode.IsSpace(r) {
			break
		}
		i += n
	}
	for i < len(line) {
		r, n := utf8.DecodeRuneInString(line[i:])
		if unicode.IsSpace(r) {
			break
		}
		i += n
	}
	return i
}
