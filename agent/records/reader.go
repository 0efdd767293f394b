package records

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// LineError reports a line of wire.jsonl that is not a record. Resume
// fails on it; nothing is rewritten or truncated because of it.
type LineError struct {
	Path string
	Line int // 1-based, counting empty lines
	Err  error
}

func (e *LineError) Error() string {
	return fmt.Sprintf("wire.jsonl: corrupted line %d in %s: %v", e.Line, e.Path, e.Err)
}

func (e *LineError) Unwrap() error { return e.Err }

// lineReader turns the bytes of a log into records. It is the one place
// that decides what a line means, so the torn-tail repair of the writer and
// a later quarantine of bad lines agree with replay:
//
//   - lines end in "\n"; one "\r" before it is dropped; empty lines are
//     skipped but counted;
//   - a terminated line that is not a record is a *LineError;
//   - a final line without "\n" is a record if it parses (its newline was
//     lost) and is ignored otherwise (a write torn by a crash).
type lineReader struct {
	r    *bufio.Reader
	path string
	n    int
}

func newLineReader(r io.Reader, path string) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), path: path}
}

// next returns the next record, or io.EOF after the last one.
func (lr *lineReader) next() (Record, error) {
	for {
		line, err := lr.r.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return Record{}, fmt.Errorf("read %s: %w", lr.path, err)
		}
		terminated := err == nil
		if !terminated && len(line) == 0 {
			return Record{}, io.EOF
		}
		lr.n++
		line = bytes.TrimSuffix(line, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) == 0 {
			continue
		}
		rec, perr := parseRecord(line)
		if perr != nil {
			if !terminated {
				return Record{}, io.EOF // torn tail: everything before it is intact
			}
			return Record{}, &LineError{Path: lr.path, Line: lr.n, Err: perr}
		}
		rec.lineNo = lr.n
		return rec, nil
	}
}

// tailIsRecord reports whether an unterminated final line is a complete
// record (so the repair adds its newline) rather than a torn write (so the
// repair cuts it off). It applies the same rule as lineReader.next.
func tailIsRecord(tail []byte) bool {
	tail = bytes.TrimSuffix(tail, []byte("\r"))
	if len(tail) == 0 {
		return true // only a stray "\r": keep it, it reads as an empty line
	}
	_, err := parseRecord(bytes.Clone(tail))
	return err == nil
}
