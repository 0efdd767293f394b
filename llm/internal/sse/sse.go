// Package sse decodes Server-Sent Events streams for the provider wires.
//
// It owns line splitting and event assembly only: lines end in "\n" with an
// optional "\r"; "event:" sets the type; "data:" lines are joined with "\n";
// one space after the colon is stripped; lines starting with ":" are
// comments; an event is dispatched on a blank line. What an event means is
// the provider's business. A line longer than MaxLine is ErrLineTooLong,
// and EOF inside an event is ErrUnterminated (an io.ErrUnexpectedEOF), so
// a torn stream is never mistaken for a clean end. Ready tells whether the
// next event is buffered already, and never promises one that needs a read
// (FuzzReady). Guarded by sse_test.go and the providers' fuzz tests.
package sse

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// MaxLine is the longest line accepted (tool arguments can exceed 1 MB).
const MaxLine = 32 << 20

// ErrLineTooLong reports a line over MaxLine.
var ErrLineTooLong = errors.New("sse: line exceeds 32 MiB")

// ErrUnterminated reports a stream that ended cleanly inside an event: the
// body was complete as far as the transport knows, the event was not.
// errors.Is(ErrUnterminated, io.ErrUnexpectedEOF) holds. A transport that
// fails mid-body reports its own error instead.
var ErrUnterminated = fmt.Errorf("sse: stream ended inside an event: %w", io.ErrUnexpectedEOF)

// Event is one dispatched event. Data is valid until the next call to Next.
type Event struct {
	// Type is the "event:" field, or "" when none was given.
	Type string
	Data []byte
}

// Decoder reads events from a stream. It is not safe for concurrent use.
type Decoder struct {
	r    *bufio.Reader
	data []byte
	line []byte // spill buffer for lines longer than the bufio buffer
	typ  string
	n    int64 // bytes read so far
	// last is the previous event type: streams repeat a handful of types,
	// so an unchanged type costs no allocation.
	last string
}

// bufSize is the decoder's read buffer. A step's answer is a few hundred
// bytes and every request has a decoder of its own, so the buffer is not
// larger than a burst of events needs; a longer line spills into a buffer
// that grows to fit it.
const bufSize = 16 << 10

// NewDecoder returns a decoder reading r.
func NewDecoder(r io.Reader) *Decoder {
	return &Decoder{r: bufio.NewReaderSize(r, bufSize)}
}

// Next returns the next event. It returns io.EOF when the stream ends at an
// event boundary and ErrUnterminated when it ends inside an event.
// Errors from the underlying reader are returned as they are.
func (d *Decoder) Next() (Event, error) {
	d.data = d.data[:0]
	d.typ = ""
	inEvent := false
	hasData := false
	for {
		line, err := d.readLine()
		if err != nil {
			if err == io.EOF {
				if len(line) > 0 {
					// A final line without "\n" is still part of an
					// unterminated event.
					inEvent = true
				}
				if inEvent {
					return Event{}, ErrUnterminated
				}
			}
			return Event{}, err
		}
		if len(line) == 0 {
			if hasData || d.typ != "" {
				return Event{Type: d.typ, Data: d.data}, nil
			}
			inEvent = false
			continue
		}
		inEvent = true
		if line[0] == ':' {
			continue
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(field) {
		case "data":
			if hasData {
				d.data = append(d.data, '\n')
			}
			d.data = append(d.data, value...)
			hasData = true
		case "event":
			if string(value) != d.last {
				d.last = string(value)
			}
			d.typ = d.last
		}
		// id and retry are not used by either wire.
	}
}

// Ready reports whether the next event is buffered in full, so that Next
// returns it without reading from the stream. It never reads: a provider
// asks it to hand out deltas that arrived together as one part without
// waiting for bytes that are not there yet. It may report false for an
// event Next could return at once (one longer than the buffer), never true
// for one that needs a read.
func (d *Decoder) Ready() bool {
	buf, _ := d.r.Peek(d.r.Buffered()) // buffered bytes never fail to peek
	hasData, hasType := false, false
	for {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			return false
		}
		line := trimEOL(buf[:i+1])
		buf = buf[i+1:]
		if len(line) == 0 {
			if hasData || hasType {
				return true
			}
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value := line, []byte(nil)
		if j := bytes.IndexByte(line, ':'); j >= 0 {
			field, value = line[:j], line[j+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		// The same dispatch rule as Next: data, or a non-empty type.
		switch string(field) {
		case "data":
			hasData = true
		case "event":
			hasType = len(value) > 0
		}
	}
}

// Bytes is the number of bytes read from the stream so far; 0 after the
// first Next means the body was empty.
func (d *Decoder) Bytes() int64 { return d.n }

// readLine returns one line without its terminator. The slice is valid
// until the next call.
func (d *Decoder) readLine() ([]byte, error) {
	line, err := d.r.ReadSlice('\n')
	d.n += int64(len(line))
	if err == bufio.ErrBufferFull {
		d.line = append(d.line[:0], line...)
		for err == bufio.ErrBufferFull {
			line, err = d.r.ReadSlice('\n')
			d.n += int64(len(line))
			if len(d.line)+len(line) > MaxLine+2 {
				return nil, ErrLineTooLong
			}
			d.line = append(d.line, line...)
		}
		line = d.line
	}
	if err != nil && err != io.EOF {
		return nil, err
	}
	if err == io.EOF {
		return trimEOL(line), io.EOF
	}
	line = trimEOL(line)
	if len(line) > MaxLine {
		return nil, ErrLineTooLong
	}
	return line, nil
}

func trimEOL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b
}
