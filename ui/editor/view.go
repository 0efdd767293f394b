package editor

// View lays the text out at cols cells and returns at most maxRows
// visual rows, scrolled so the cursor shows, and the cursor's cell
// (x, y) among them. The cursor may sit one cell past a full row. The
// work is proportional to the rows shown plus one pass over the line
// lengths; only lines that are not plain ASCII are wrapped cluster by
// cluster, once, and cached.
func (e *Editor) View(cols, maxRows int) (rows []string, x, y int) {
	e.lay.setWidth(cols)
	maxRows = max(maxRows, 1)
	b := &e.buf
	// The cursor's visual row in the whole text.
	curRow := 0
	for r := 0; r < b.cur.Row; r++ {
		curRow += e.lay.rowCount(b.lines[r], &b.meta[r])
	}
	line := b.lines[b.cur.Row]
	st := e.lay.starts(line, &b.meta[b.cur.Row])
	k := e.rowOf(b.cur)
	curRow += k
	x = width(line[st[k]:b.cur.Col])
	if e.scroll > curRow {
		e.scroll = curRow
	}
	if curRow >= e.scroll+maxRows {
		e.scroll = curRow - maxRows + 1
	}
	// Rows from e.scroll.
	seen := 0
	for r := 0; r < len(b.lines) && len(rows) < maxRows; r++ {
		l := b.lines[r]
		n := e.lay.rowCount(l, &b.meta[r])
		if seen+n <= e.scroll {
			seen += n
			continue
		}
		ls := e.lay.starts(l, &b.meta[r])
		for i := max(0, e.scroll-seen); i < len(ls) && len(rows) < maxRows; i++ {
			end := len(l)
			if i+1 < len(ls) {
				end = ls[i+1]
			}
			rows = append(rows, render(l[ls[i]:end]))
		}
		seen += n
	}
	return rows, x, curRow - e.scroll
}

// Rows is how many visual rows the text takes at cols cells.
func (e *Editor) Rows(cols int) int {
	e.lay.setWidth(cols)
	n := 0
	for i, l := range e.buf.lines {
		n += e.lay.rowCount(l, &e.buf.meta[i])
	}
	return n
}
