package acp

import (
	"bytes"
	"io"
	"sync"
)

// lineWriter is the connection's stdout: the SDK writes one whole
// message per Write. It runs a callback once a line holding a given
// fragment has gone out, so a notification can follow a response
// (available commands after session/new) and never overtake it.
type lineWriter struct {
	w io.Writer

	mu    sync.Mutex
	hooks []hook // guarded by mu
}

type hook struct {
	fragment []byte
	fn       func()
}

// maxHooks bounds the hooks kept for responses that never went out (a
// failed write): the oldest are run then.
const maxHooks = 64

func (l *lineWriter) after(fragment []byte, fn func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.hooks = append(l.hooks, hook{fragment: fragment, fn: fn})
	if len(l.hooks) > maxHooks {
		go l.hooks[0].fn()
		l.hooks = l.hooks[1:]
	}
}

// Write writes p and then starts the callbacks it releases; they run on
// their own goroutines because the SDK holds its write lock here.
func (l *lineWriter) Write(p []byte) (int, error) {
	n, err := l.w.Write(p)
	l.mu.Lock()
	if len(l.hooks) > 0 && bytes.Contains(p, []byte(`"result":`)) {
		kept := l.hooks[:0]
		for _, h := range l.hooks {
			if bytes.Contains(p, h.fragment) {
				go h.fn()
				continue
			}
			kept = append(kept, h)
		}
		l.hooks = kept
	}
	l.mu.Unlock()
	return n, err
}
