package wire

import (
	"io"
	"net/http"
	"reflect"
	"sync"
)

// WriteBufferSize is the transports' write buffer: a request body up to
// about this size is copied into the connection's buffer instead of
// through a copy buffer allocated per request.
const WriteBufferSize = 64 << 10

// Body is a request body that is encoded while the transport reads it: the
// fields before the messages (Head), the messages one at a time, separated
// by commas, and the fields after them (Tail). A long conversation thus
// never exists as one buffer: the request costs one message of memory, not
// the conversation's size twice over (issue 13 item 8), and no large block
// is allocated per request. NewBody encodes every message once beforehand,
// to report any message no request can carry before anything is sent and
// to know the length the body is sent with; Sizes spares that pass the
// messages the previous request already had.
type Body[M any] struct {
	head, tail []byte
	more       [][]byte
	msgs       []M
	comma      bool // a comma goes before the first message too
	enc        func(dst []byte, m *M) ([]byte, error)
	size       int64
}

// BodyParts describe a body: Head ends where the first message would
// start (after "[" or after a message of its own, then Comma is set); Tail
// closes the array and the body. Encode appends one message to dst; it
// must write the same bytes for the same message every time.
type BodyParts[M any] struct {
	Head, Tail []byte
	// More are pieces sent after Tail, as they are: bytes a caller keeps
	// from one request to the next (an encoded tool table) go out without
	// being copied into Tail.
	More     [][]byte
	Messages []M
	Comma    bool
	Encode   func(dst []byte, m *M) ([]byte, error)
	// Sizes, when not nil, remembers message sizes across requests.
	Sizes *Sizes[M]
	// Key is compared with the Key of the request Sizes last measured:
	// any difference (another dialect, say) measures everything again.
	// Equal, when not nil, reports whether two messages encode the same,
	// in place of reflect.DeepEqual, which a long conversation's messages
	// make the larger part of measuring a request.
	Key   any
	Equal func(a, b *M) bool
}

// NewBody measures the body of p. An error is Encode's, for the first
// message it refused.
func NewBody[M any](p BodyParts[M]) (*Body[M], error) {
	sizes := p.Sizes
	if sizes == nil {
		sizes = &Sizes[M]{}
	}
	n, err := sizes.measure(p.Messages, p.Key, p.Encode, p.Equal)
	if err != nil {
		return nil, err
	}
	n += int64(len(p.Head) + len(p.Tail))
	for _, m := range p.More {
		n += int64(len(m))
	}
	if k := len(p.Messages); k > 0 {
		n += int64(k - 1)
		if p.Comma {
			n++
		}
	}
	return &Body[M]{head: p.Head, tail: p.Tail, more: p.More, msgs: p.Messages, comma: p.Comma, enc: p.Encode, size: n}, nil
}

// Attach makes b the body of hr, with its length and a GetBody that starts
// it afresh.
func (b *Body[M]) Attach(hr *http.Request) {
	hr.Body = b.Reader()
	hr.ContentLength = b.size
	hr.GetBody = func() (io.ReadCloser, error) { return b.Reader(), nil }
}

// Len is the body's length in bytes.
func (b *Body[M]) Len() int64 { return b.size }

// Reader returns a reader of the whole body; each call starts afresh (the
// transport's GetBody).
func (b *Body[M]) Reader() io.ReadCloser { return &bodyReader[M]{b: b} }

// Bytes encodes the whole body into one buffer, for tests and logs.
func (b *Body[M]) Bytes() ([]byte, error) {
	out := make([]byte, 0, b.size)
	r := b.Reader()
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		out = append(out, buf[:n]...)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

type bodyReader[M any] struct {
	b       *Body[M]
	stage   int // 0 head, 1 messages, 2 tail and more, 3 done
	next    int // the next message, then the next piece of more
	piece   []byte
	off     int
	scratch []byte
}

func (r *bodyReader[M]) Read(p []byte) (int, error) {
	for r.off == len(r.piece) {
		if err := r.advance(); err != nil {
			return 0, err
		}
	}
	n := copy(p, r.piece[r.off:])
	r.off += n
	return n, nil
}

// advance loads the next piece of the body.
func (r *bodyReader[M]) advance() error {
	b := r.b
	r.off = 0
	switch r.stage {
	case 0:
		r.piece, r.stage = b.head, 1
	case 1:
		if r.next == len(b.msgs) {
			r.piece, r.stage, r.next, r.scratch = b.tail, 2, 0, nil
			return nil
		}
		buf := r.scratch[:0]
		if r.next > 0 || b.comma {
			buf = append(buf, ',')
		}
		buf, err := b.enc(buf, &b.msgs[r.next])
		if err != nil {
			return err
		}
		r.next++
		r.piece, r.scratch = buf, buf
	case 2:
		if r.next < len(b.more) {
			r.piece = b.more[r.next]
			r.next++
			return nil
		}
		r.stage, r.piece = 3, nil
		return io.EOF
	default:
		return io.EOF
	}
	return nil
}

func (r *bodyReader[M]) Close() error { return nil }

// Sizes remembers the encoded size of each message of the last request
// measured. The next request of a conversation repeats those messages, at
// the same positions, so only what is new is encoded to be measured. A
// message counts as repeated when it is equal (BodyParts.Equal, else
// reflect.DeepEqual) to the one before; the strings of a repeated message
// share their bytes, so the comparison costs little. Safe for concurrent
// use.
type Sizes[M any] struct {
	mu    sync.Mutex
	key   any
	last  []M
	sizes []int
}

func (s *Sizes[M]) measure(msgs []M, key any, enc func(dst []byte, m *M) ([]byte, error), equal func(a, b *M) bool) (int64, error) {
	if equal == nil {
		equal = func(a, b *M) bool { return reflect.DeepEqual(a, b) } // pointers: no copies boxed
	}
	s.mu.Lock()
	last, sizes := s.last, s.sizes
	if s.key != key {
		last = nil
	}
	s.mu.Unlock()
	out := make([]int, len(msgs))
	var total int64
	var scratch []byte
	for i := range msgs {
		if i < len(last) && equal(&msgs[i], &last[i]) {
			out[i] = sizes[i]
		} else {
			buf, err := enc(scratch[:0], &msgs[i])
			if err != nil {
				return 0, err
			}
			out[i], scratch = len(buf), buf
		}
		total += int64(out[i])
	}
	s.mu.Lock()
	s.key, s.last, s.sizes = key, msgs, out
	s.mu.Unlock()
	return total, nil
}
