package background

import "unicode/utf8"

// ring keeps the last cap bytes written to it (spec 05 §6.4: the
// in-memory output of a task). It is not safe for concurrent use.
type ring struct {
	buf   []byte // grows up to cap, then wraps
	cap   int
	start int // index of the oldest byte once full
	full  bool
}

func newRing(capacity int) *ring { return &ring{cap: capacity} }

func (r *ring) write(p []byte) {
	if len(p) >= r.cap {
		r.buf = append(r.buf[:0], p[len(p)-r.cap:]...)
		r.start, r.full = 0, true
		return
	}
	if !r.full {
		if len(r.buf)+len(p) <= r.cap {
			r.buf = append(r.buf, p...)
			if len(r.buf) == r.cap {
				r.full = true
			}
			return
		}
		// Fill up to cap, then wrap with the rest.
		n := r.cap - len(r.buf)
		r.buf = append(r.buf, p[:n]...)
		r.full, r.start, p = true, 0, p[n:]
	}
	for len(p) > 0 {
		n := copy(r.buf[r.start:], p)
		p = p[n:]
		r.start = (r.start + n) % r.cap
	}
}

// len is how many bytes the ring holds.
func (r *ring) len() int { return len(r.buf) }

// tail returns a copy of the last n bytes held (all of them when n is
// larger).
func (r *ring) tail(n int) []byte {
	n = min(max(n, 0), len(r.buf))
	out := make([]byte, 0, n)
	if n == 0 {
		return out
	}
	if !r.full {
		return append(out, r.buf[len(r.buf)-n:]...)
	}
	// Logical order: buf[start:], buf[:start].
	from := (r.start + len(r.buf) - n) % len(r.buf)
	if from >= r.start {
		out = append(out, r.buf[from:]...)
		return append(out, r.buf[:r.start]...)
	}
	return append(out, r.buf[from:r.start]...)
}

// runeAligned drops the leading bytes of b that continue a rune cut off
// before it, so a tail never starts with a broken character.
func runeAligned(b []byte) []byte {
	for i := 0; i < len(b) && i < utf8.UTFMax; i++ {
		if utf8.RuneStart(b[i]) {
			return b[i:]
		}
	}
	return b
}
