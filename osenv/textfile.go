package osenv

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"unicode/utf8"
)

// scanChunk is the read size of the streaming helpers below.
const scanChunk = 64 << 10

// chunkFor is the read size for f: scanChunk, or less for a regular file
// known to be smaller, so reading a small file allocates what it holds
// rather than 64 KiB per pass. A file that grows meanwhile is still read
// whole, in more reads.
func chunkFor(f File) int {
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() <= 0 || fi.Size() >= scanChunk {
		return scanChunk
	}
	return max(int(fi.Size())+1, 512) // +1: the read that meets the end needs no second one
}

// TextScan is what one streaming pass over a file learns (ScanTextFile).
type TextScan struct {
	Size int64
	// Lines counts "\n" bytes, plus one when the file is non-empty and
	// does not end with "\n".
	Lines           int
	EndsWithNewline bool
	HasNUL          bool
	// ValidUTF8 is strict: any invalid or truncated sequence makes it false.
	ValidUTF8 bool
	// Line-ending flags: "\r\n" seen, a bare "\n" seen, a "\r" not followed
	// by "\n" seen.
	CRLF, LF, LoneCR bool
}

// ScanTextFile reads name once, in 64 KiB chunks (chunkFor), and reports its line
// count, line endings, NUL bytes and UTF-8 validity. Memory use does not
// grow with the file.
func ScanTextFile(fsys FS, name string) (TextScan, error) {
	f, err := fsys.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return TextScan{}, err
	}
	defer f.Close() // read-only
	s := TextScan{ValidUTF8: true}
	chunk := chunkFor(f)
	buf := make([]byte, chunk+utf8.UTFMax)
	carry := 0      // bytes of an incomplete rune kept at the front of buf
	prevCR := false // the previous chunk ended with "\r"
	var last byte
	for {
		n, err := f.Read(buf[carry : carry+chunk])
		if n > 0 {
			chunk := buf[carry : carry+n]
			s.Size += int64(n)
			last = chunk[n-1]
			s.Lines += bytes.Count(chunk, []byte{'\n'})
			if bytes.IndexByte(chunk, 0) >= 0 {
				s.HasNUL = true
			}
			prevCR = s.scanEndings(chunk, prevCR)
			if s.ValidUTF8 {
				all := buf[:carry+n]
				cut := incompleteTail(all)
				if !utf8.Valid(all[:cut]) {
					s.ValidUTF8 = false
				}
				carry = copy(buf, all[cut:])
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return s, fmt.Errorf("scan %s: %w", f.Name(), err)
		}
	}
	if prevCR {
		s.LoneCR = true
	}
	if carry > 0 {
		s.ValidUTF8 = false
	}
	s.EndsWithNewline = last == '\n'
	if s.Size > 0 && !s.EndsWithNewline {
		s.Lines++
	}
	return s, nil
}

// ScanBytes is ScanTextFile for content already in memory.
func ScanBytes(b []byte) TextScan {
	s := TextScan{Size: int64(len(b)), ValidUTF8: utf8.Valid(b), HasNUL: bytes.IndexByte(b, 0) >= 0}
	s.Lines = bytes.Count(b, []byte{'\n'})
	if s.scanEndings(b, false) {
		s.LoneCR = true
	}
	s.EndsWithNewline = len(b) > 0 && b[len(b)-1] == '\n'
	if len(b) > 0 && !s.EndsWithNewline {
		s.Lines++
	}
	return s
}

// scanEndings updates the line-ending flags for chunk; prevCR says the
// previous chunk ended with "\r". It returns whether chunk does.
func (s *TextScan) scanEndings(chunk []byte, prevCR bool) bool {
	if bytes.IndexByte(chunk, '\r') < 0 {
		if len(chunk) > 0 && chunk[0] == '\n' && prevCR {
			s.CRLF = true
			if bytes.IndexByte(chunk[1:], '\n') >= 0 {
				s.LF = true
			}
		} else {
			if prevCR {
				s.LoneCR = true
			}
			if bytes.IndexByte(chunk, '\n') >= 0 {
				s.LF = true
			}
		}
		return false
	}
	for _, c := range chunk {
		switch {
		case c == '\n' && prevCR:
			s.CRLF = true
		case c == '\n':
			s.LF = true
		case prevCR:
			s.LoneCR = true
		}
		prevCR = c == '\r'
	}
	return prevCR
}

// incompleteTail returns where a possibly incomplete rune at the end of b
// starts (len(b) when b ends on a rune boundary).
func incompleteTail(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if utf8.FullRune(b[i:]) {
				return len(b)
			}
			return i
		}
	}
	return len(b)
}

// Line is one line of a file as the streaming readers return it.
type Line struct {
	// Number is 1-based.
	Number int
	// Text holds the line with its terminator, or its first maxLineBytes
	// bytes when Cut (the rest, terminator included, was skipped).
	Text string
	Cut  bool
}

// ReadHead returns the first n bytes of name (fewer when it is shorter).
func ReadHead(fsys FS, name string, n int) ([]byte, error) {
	f, err := fsys.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close() // read-only
	b := make([]byte, n)
	m, err := io.ReadFull(f, b)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, fmt.Errorf("read %s: %w", f.Name(), err)
	}
	return b[:m], nil
}

// ReadLines streams the lines of name with their terminators. A line longer
// than maxLineBytes (0: no limit) is cut, so memory stays bounded.
func ReadLines(fsys FS, name string, maxLineBytes int) iter.Seq2[Line, error] {
	return func(yield func(Line, error) bool) {
		f, err := fsys.OpenFile(name, os.O_RDONLY, 0)
		if err != nil {
			yield(Line{}, err)
			return
		}
		defer f.Close() // read-only
		for l, err := range lines(f, chunkFor(f), 1, maxLineBytes) {
			if !yield(l, err) {
				return
			}
		}
	}
}

// ReadLineRange returns up to max lines of name starting at line start
// (1-based). Lines before start are skipped by counting newlines in 64 KiB
// chunks (less for a smaller file), without building strings.
func ReadLineRange(fsys FS, name string, start, max, maxLineBytes int) ([]Line, error) {
	if start < 1 {
		return nil, fmt.Errorf("read lines %s: start %d < 1", name, start)
	}
	f, err := fsys.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close() // read-only
	chunk := chunkFor(f)
	off, found, err := offsetOfLine(f, chunk, start)
	if err != nil || !found {
		return nil, err
	}
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return nil, fmt.Errorf("seek %s: %w", f.Name(), err)
	}
	return collect(lines(f, chunk, start, maxLineBytes), max)
}

// offsetOfLine finds the byte offset where line n (1-based) starts,
// reading chunk bytes at a time; found is false when the file has fewer
// lines.
func offsetOfLine(r io.Reader, chunk, n int) (int64, bool, error) {
	if n == 1 {
		return 0, true, nil
	}
	need := n - 1 // newlines to pass
	buf := make([]byte, chunk)
	var off int64
	for {
		m, err := r.Read(buf)
		chunk := buf[:m]
		if c := bytes.Count(chunk, []byte{'\n'}); c < need {
			need -= c
			off += int64(m)
		} else {
			for {
				i := bytes.IndexByte(chunk, '\n')
				need--
				off += int64(i + 1)
				chunk = chunk[i+1:]
				if need == 0 {
					// A line exists only if some byte follows.
					return off, len(chunk) > 0 || probe(r), nil
				}
			}
		}
		if err == io.EOF {
			return 0, false, nil
		}
		if err != nil {
			return 0, false, fmt.Errorf("read: %w", err)
		}
	}
}

func probe(r io.Reader) bool {
	var b [1]byte
	n, _ := io.ReadFull(r, b[:]) // any error means there is nothing more
	return n == 1
}

// ReadTailLines returns the last count lines of name, reading backwards from
// the end in 64 KiB chunks; their Number fields count from the first
// returned line as 1 (the caller, who knows the total, renumbers).
func ReadTailLines(fsys FS, name string, count, maxLineBytes int) ([]Line, error) {
	f, err := fsys.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close() // read-only
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	start, err := tailStart(f, fi.Size(), count)
	if err != nil {
		return nil, fmt.Errorf("read tail %s: %w", f.Name(), err)
	}
	if _, err := f.Seek(start, io.SeekStart); err != nil {
		return nil, fmt.Errorf("seek %s: %w", f.Name(), err)
	}
	return collect(lines(f, scanChunk, 1, maxLineBytes), count)
}

// tailStart finds the offset of the first of the last count lines.
func tailStart(r io.ReaderAt, size int64, count int) (int64, error) {
	if count <= 0 || size == 0 {
		return size, nil
	}
	end := size
	var last [1]byte
	if _, err := r.ReadAt(last[:], size-1); err != nil {
		return 0, err
	}
	if last[0] == '\n' {
		end-- // the final terminator ends the last line; it does not start one
	}
	buf := make([]byte, scanChunk)
	seen := 0
	for end > 0 {
		n := int64(len(buf))
		if n > end {
			n = end
		}
		chunk := buf[:n]
		if _, err := r.ReadAt(chunk, end-n); err != nil && err != io.EOF {
			return 0, err
		}
		for i := len(chunk) - 1; i >= 0; i-- {
			if chunk[i] == '\n' {
				seen++
				if seen == count {
					return end - n + int64(i) + 1, nil
				}
			}
		}
		end -= n
	}
	return 0, nil
}

func collect(seq iter.Seq2[Line, error], max int) ([]Line, error) {
	var out []Line
	if max <= 0 {
		return out, nil
	}
	for l, err := range seq {
		if err != nil {
			return out, err
		}
		out = append(out, l)
		if len(out) == max {
			break
		}
	}
	return out, nil
}

// lines reads r line by line through a chunk-byte buffer, numbering from
// first; lines past maxLineBytes (0: unlimited) are cut and their rest
// skipped.
func lines(r io.Reader, chunk, first, maxLineBytes int) iter.Seq2[Line, error] {
	return func(yield func(Line, error) bool) {
		br := bufio.NewReaderSize(r, chunk)
		n := first
		for {
			l, err := readLine(br, maxLineBytes)
			if l.Text != "" || l.Cut {
				l.Number = n
				n++
				if !yield(l, nil) {
					return
				}
			}
			if err == io.EOF {
				return
			}
			if err != nil {
				yield(Line{}, fmt.Errorf("read line %d: %w", n, err))
				return
			}
		}
	}
}

func readLine(br *bufio.Reader, max int) (Line, error) {
	var b []byte
	cut := false
	for {
		frag, err := br.ReadSlice('\n')
		if !cut {
			if max > 0 && len(b)+len(frag) > max {
				b = append(b, frag[:max-len(b)]...)
				cut = true
			} else {
				b = append(b, frag...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return Line{Text: string(b), Cut: cut}, err
	}
}
