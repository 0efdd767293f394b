package sandbox

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// The sandbox server and its client talk over a unix stream socket in
// frames: a 4-byte little-endian length, then the body, whose first byte
// is the op. Strings and lists carry uvarint lengths. A start frame is sent
// together with the command's three standard streams (SCM_RIGHTS); no
// other frame carries descriptors.

// op is what a frame says.
type op byte

// The ops.
const (
	// opStart (client → server): start a command; its stdin, stdout and
	// stderr ride along.
	opStart op = 1 + iota
	// opReady (server → client), first and once: the server is set up,
	// or it failed (Text) and exits.
	opReady
	// opStarted (server → client): the command runs, as Pid.
	opStarted
	// opFailed (server → client): the command could not be started
	// (Errno, Text).
	opFailed
	// opExited (server → client): the command ended with wait status
	// Status.
	opExited
	// opStale (server → client): the command was not started because the
	// server's mounts no longer protect the work dirs (Text says which);
	// the client starts it in a new server.
	opStale
)

// maxFrame bounds a frame: far above any argv and environment execve
// accepts, far below what would hurt to allocate.
const maxFrame = 64 << 20

// message is one frame's content; which fields count depends on Op.
type message struct {
	Op op
	ID uint64 // start, started, failed, exited: the request's id

	Path, Dir string   // start: the program and its working directory
	Args, Env []string // start: argv and the whole environment

	Pid    int    // started
	Errno  uint64 // failed: the errno (0: none)
	Text   string // failed, ready, stale: what went wrong
	Status uint32 // exited: the wait status
}

// appendFrame appends m's frame to b.
func appendFrame(b []byte, m message) []byte {
	start := len(b)
	b = append(b, 0, 0, 0, 0, byte(m.Op))
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	strs := func(ss []string) {
		b = binary.AppendUvarint(b, uint64(len(ss)))
		for _, s := range ss {
			str(s)
		}
	}
	switch m.Op {
	case opStart:
		b = binary.AppendUvarint(b, m.ID)
		str(m.Path)
		str(m.Dir)
		strs(m.Args)
		strs(m.Env)
	case opReady:
		str(m.Text)
	case opStarted:
		b = binary.AppendUvarint(b, m.ID)
		b = binary.AppendUvarint(b, uint64(m.Pid))
	case opFailed:
		b = binary.AppendUvarint(b, m.ID)
		b = binary.AppendUvarint(b, m.Errno)
		str(m.Text)
	case opStale:
		b = binary.AppendUvarint(b, m.ID)
		str(m.Text)
	case opExited:
		b = binary.AppendUvarint(b, m.ID)
		b = binary.AppendUvarint(b, uint64(m.Status))
	}
	binary.LittleEndian.PutUint32(b[start:], uint32(len(b)-start-4))
	return b
}

// readFrame reads one frame's body from r; io.EOF means the peer closed
// the connection between frames.
func readFrame(r io.Reader, buf []byte) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	n := binary.LittleEndian.Uint32(hdr[:])
	if n == 0 || n > maxFrame {
		return nil, fmt.Errorf("sandbox wire: frame of %d bytes", n)
	}
	if cap(buf) < int(n) {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err := io.ReadFull(r, buf); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("sandbox wire: frame body: %w", err)
	}
	return buf, nil
}

// decodeMessage reads a frame body. Errors name the field that is wrong;
// no input makes it panic.
func decodeMessage(body []byte) (message, error) {
	d := decoder{b: body}
	var m message
	if len(body) == 0 {
		return m, errors.New("sandbox wire: empty frame")
	}
	m.Op = op(d.b[0])
	d.b = d.b[1:]
	switch m.Op {
	case opStart:
		m.ID = d.uvarint("id")
		m.Path = d.str("path")
		m.Dir = d.str("dir")
		m.Args = d.strs("args")
		m.Env = d.strs("env")
	case opReady:
		m.Text = d.str("error")
	case opStarted:
		m.ID = d.uvarint("id")
		pid := d.uvarint("pid")
		if d.err == nil && (pid == 0 || pid > 1<<31-1) {
			d.fail("pid", fmt.Errorf("%d is no process id", pid))
		}
		m.Pid = int(pid)
	case opFailed:
		m.ID = d.uvarint("id")
		m.Errno = d.uvarint("errno")
		m.Text = d.str("error")
	case opStale:
		m.ID = d.uvarint("id")
		m.Text = d.str("error")
	case opExited:
		m.ID = d.uvarint("id")
		st := d.uvarint("status")
		if d.err == nil && st > 1<<32-1 {
			d.fail("status", fmt.Errorf("%d does not fit a wait status", st))
		}
		m.Status = uint32(st)
	default:
		return m, fmt.Errorf("sandbox wire: unknown op %d", m.Op)
	}
	if d.err == nil && len(d.b) != 0 {
		d.fail("end", fmt.Errorf("%d bytes left over", len(d.b)))
	}
	if d.err != nil {
		return message{}, d.err
	}
	return m, nil
}

// decoder reads a frame body; the first error sticks.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail(field string, err error) {
	if d.err == nil {
		d.err = fmt.Errorf("sandbox wire: %s: %w", field, err)
	}
}

func (d *decoder) uvarint(field string) uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail(field, errors.New("truncated or overlong number"))
		return 0
	}
	d.b = d.b[n:]
	return v
}

// count reads a list length, each item being at least minSize bytes, so
// that a forged length cannot make the decoder allocate more than the
// frame holds.
func (d *decoder) count(field string, minSize int) int {
	n := d.uvarint(field)
	if d.err == nil && n > uint64(len(d.b)/minSize) {
		d.fail(field, fmt.Errorf("%d items cannot fit in %d bytes", n, len(d.b)))
		return 0
	}
	return int(n)
}

func (d *decoder) str(field string) string {
	n := d.uvarint(field)
	if d.err != nil {
		return ""
	}
	if n > uint64(len(d.b)) {
		d.fail(field, fmt.Errorf("%d bytes promised, %d left", n, len(d.b)))
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *decoder) strs(field string) []string {
	n := d.count(field, 1)
	out := make([]string, 0, n)
	for i := 0; i < n && d.err == nil; i++ {
		out = append(out, d.str(field))
	}
	return out
}
