package print

import (
	"io"
	"unicode/utf8"
)

// BlockWriter writes text blocks to one stream the way print mode's text
// format shows them (spec 06 §1.6.2): a block starts with "• ", every line
// after the first is indented by two spaces, lines longer than the
// terminal are wrapped onto an indented continuation, and ending a block
// leaves one blank line after it.
//
// A BlockWriter is not safe for concurrent use; the renderer that owns it
// serializes calls.
type BlockWriter struct {
	w io.Writer
	// width is the terminal's width in columns; 0 (or anything up to 3)
	// means no wrapping.
	width int

	open        bool // a block has been started and not ended
	atLineStart bool // the last byte written was a newline
	col         int  // columns used on the current line
	buf         []byte
	err         error // first write error; later writes are dropped
}

// NewBlockWriter returns a writer of blocks to w. width is the terminal
// width of w, or 0 when w is not a terminal.
func NewBlockWriter(w io.Writer, width int) *BlockWriter {
	return &BlockWriter{w: w, width: width}
}

// Open reports whether a block is in progress.
func (b *BlockWriter) Open() bool { return b.open }

// Write appends s to the current block, starting one when none is open.
func (b *BlockWriter) Write(s string) {
	if s == "" {
		return
	}
	b.buf = b.buf[:0]
	for _, r := range s {
		b.rune(r)
	}
	b.flush()
}

// End closes the current block: a newline when the cursor is at the start
// of a line, else two, so that every block is followed by a blank line.
// Ending when no block is open writes nothing.
func (b *BlockWriter) End() {
	if !b.open {
		return
	}
	b.buf = b.buf[:0]
	if b.atLineStart {
		b.buf = append(b.buf, '\n')
	} else {
		b.buf = append(b.buf, '\n', '\n')
	}
	b.open, b.atLineStart, b.col = false, false, 0
	b.flush()
}

// Err is the first error the underlying writer returned.
func (b *BlockWriter) Err() error { return b.err }

func (b *BlockWriter) rune(r rune) {
	if !b.open {
		b.open = true
		b.buf = append(b.buf, "• "...)
		b.col = 2
	}
	if r == '\n' {
		b.buf = append(b.buf, '\n')
		b.atLineStart, b.col = true, 0
		return
	}
	if b.atLineStart {
		b.buf = append(b.buf, "  "...)
		b.atLineStart, b.col = false, 2
	}
	w := 1
	if r == '\t' {
		w = 4
	}
	if b.width > 3 && b.col+w > b.width {
		b.buf = append(b.buf, "\n  "...)
		b.col = 2
	}
	b.buf = utf8.AppendRune(b.buf, r)
	b.col += w
}

func (b *BlockWriter) flush() {
	if len(b.buf) == 0 || b.err != nil {
		return
	}
	_, b.err = b.w.Write(b.buf)
}
