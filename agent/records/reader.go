package records

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/kimigo/kimigo/osenv"
)

// LineError reports a line of wire.jsonl that is not a record where it
// cannot be skipped: before the metadata record (the log's version is
// unknown) or in a log of a newer protocol version (which is never
// touched). Resume fails on it; nothing is rewritten or truncated because
// of it. A corrupt line anywhere else is quarantined (quarantine.go).
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
//     skipped but counted; a UTF-8 byte order mark at the start of the
//     file is ignored (editors add one);
//   - a terminated line that is not a record is a *LineError, unless
//     skipBad is set: then it is kept in bad (bytes, line, offset) and
//     skipped;
//   - a final line without "\n" is a record if it parses (its newline was
//     lost) and is ignored otherwise (a write torn by a crash).
type lineReader struct {
	r       *bufio.Reader
	path    string
	n       int
	off     int64     // offset of the next line in the file
	skipBad bool      // skip corrupt terminated lines instead of failing
	bad     []badLine // the lines skipped
	long    []byte    // reused to gather a line longer than r's buffer
	last    badLine   // where the record next returned last was, as stored
}

// badLine is a corrupt terminated line, as stored, or the line of a
// record its owner refused.
type badLine struct {
	line   int    // 1-based
	off    int64  // offset of its first byte
	raw    []byte // its bytes, line ending included
	reason string // why its record was refused; "" for a corrupt line
}

// byteOrderMark is the UTF-8 BOM some editors put at the start of a file.
var byteOrderMark = []byte("\xef\xbb\xbf")

// withoutBOM drops a byte order mark from a line that starts the file.
func withoutBOM(line []byte, off int64) []byte {
	if off == 0 {
		return bytes.TrimPrefix(line, byteOrderMark)
	}
	return line
}

func newLineReader(r io.Reader, path string) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), path: path}
}

// next returns the next record, or io.EOF after the last one.
func (lr *lineReader) next() (Record, error) {
	for {
		line, err := lr.readLine()
		if err != nil && !errors.Is(err, io.EOF) {
			return Record{}, fmt.Errorf("read %s: %w", lr.path, err)
		}
		terminated := err == nil
		if !terminated && len(line) == 0 {
			return Record{}, io.EOF
		}
		lr.n++
		off := lr.off
		lr.off += int64(len(line))
		raw := line
		line = bytes.TrimSuffix(line, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		line = withoutBOM(line, off)
		if len(line) == 0 {
			continue
		}
		rec, perr := parseRecord(line)
		if perr != nil {
			if !terminated {
				return Record{}, io.EOF // torn tail: everything before it is intact
			}
			if lr.skipBad {
				lr.bad = append(lr.bad, badLine{line: lr.n, off: off, raw: bytes.Clone(raw)})
				continue
			}
			return Record{}, &LineError{Path: lr.path, Line: lr.n, Err: perr}
		}
		rec.lineNo = lr.n
		lr.last = badLine{line: lr.n, off: off, raw: raw}
		return rec, nil
	}
}

// readLine is bufio.Reader.ReadBytes('\n'): a fresh slice holding the
// line with its "\n" (without one at the end of the input, where err is
// io.EOF). A line longer than the reader's buffer is gathered in a reused
// buffer and copied once, where ReadBytes would copy every buffer-full
// twice: resume reads lines of megabytes.
func (lr *lineReader) readLine() ([]byte, error) {
	frag, err := lr.r.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return bytes.Clone(frag), err
	}
	lr.long = append(lr.long[:0], frag...)
	for errors.Is(err, bufio.ErrBufferFull) {
		frag, err = lr.r.ReadSlice('\n')
		lr.long = append(lr.long, frag...)
	}
	line := bytes.Clone(lr.long)
	if cap(lr.long) > 16<<20 {
		lr.long = nil // do not hold on to one outsized line
	}
	return line, err
}

// tailIsRecord reports whether an unterminated final line, starting at
// off, is a complete record (so the repair adds its newline) rather than a
// torn write (so the repair cuts it off). It applies the same rule as
// lineReader.next.
func tailIsRecord(tail []byte, off int64) bool {
	tail = withoutBOM(bytes.TrimSuffix(tail, []byte("\r")), off)
	if len(tail) == 0 {
		return true // only a stray "\r": keep it, it reads as an empty line
	}
	_, err := parseRecord(bytes.Clone(tail))
	return err == nil
}

// NewerVersionError reports a log written by a newer protocol version
// than this kimigo's: a newer kimigo wrote it.
type NewerVersionError struct {
	Path    string
	Version string
}

func (e *NewerVersionError) Error() string {
	return fmt.Sprintf("%s was written with records protocol %s; this kimigo reads up to %s", e.Path, e.Version, ProtocolVersion)
}

// CheckVersion reads the metadata record at the head of the log at path
// and fails with a *NewerVersionError when its protocol version is newer
// than ProtocolVersion. A missing or empty log, or one that does not start
// with a readable metadata record, passes: replay judges those. It only
// reads.
func CheckVersion(fsys osenv.FS, path string) error {
	f, err := fsys.OpenFile(path, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read records %s: %w", path, err)
	}
	defer func() { _ = f.Close() }() // read-only
	lr := newLineReader(io.LimitReader(f, 1<<20), path)
	rec, err := lr.next()
	if errors.Is(err, io.EOF) {
		return nil
	}
	var le *LineError
	if errors.As(err, &le) {
		return nil
	}
	if err != nil {
		return err
	}
	if rec.Type == TypeMetadata && newerMetadata(rec) {
		o, _ := parseObject(rec.encode())
		raw, _ := o.get(metadataVersionKey)
		v, _ := decodeString(raw)
		return &NewerVersionError{Path: path, Version: v}
	}
	return nil
}

// ScanFile yields the records of the log at path in order, only reading:
// corrupt lines are skipped (not quarantined), a torn tail is ignored, no
// migration or blob rehydration happens. yield returning ErrStopReplay
// ends the scan without an error. A missing log has no records. It serves
// tools that look into a log without opening it, such as rebuilding the
// session index.
func ScanFile(fsys osenv.FS, path string, yield func(Record) error) error {
	f, err := fsys.OpenFile(path, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read records %s: %w", path, err)
	}
	defer func() { _ = f.Close() }() // read-only
	lr := newLineReader(f, path)
	lr.skipBad = true
	for {
		rec, err := lr.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := yield(rec); errors.Is(err, ErrStopReplay) {
			return nil
		} else if err != nil {
			return err
		}
	}
}
