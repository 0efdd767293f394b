package hooks

import (
	"strings"
	"sync"
	"unicode/utf8"
)

// outputCap bounds what is kept of each output stream.
const outputCap = 1 << 20

// tailBuffer keeps the last outputCap bytes written to it. Safe for
// concurrent use.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte // guarded by mu
	cut bool   // guarded by mu
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if len(p) >= outputCap {
		t.buf = append(t.buf[:0], p[len(p)-outputCap:]...)
		t.cut = true
		return n, nil
	}
	if over := len(t.buf) + len(p) - outputCap; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.cut = true
	}
	t.buf = append(t.buf, p...)
	return n, nil
}

// String is the kept text; a cut never starts inside a UTF-8 sequence,
// and invalid bytes become U+FFFD.
func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	if t.cut {
		for len(b) > 0 && !utf8.RuneStart(b[0]) {
			b = b[1:]
		}
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}
