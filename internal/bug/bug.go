// Package bug reports broken invariants: conditions that indicate a defect
// in kimigo rather than bad input. In tests a report panics, so the defect
// fails the test that found it; in the product it is logged and the program
// keeps running. Guarded by bug_test.go.
package bug

import (
	"fmt"
	"log/slog"
	"sync/atomic"
	"testing"
)

var logger atomic.Pointer[slog.Logger]

// SetLogger directs reports to l. Only cmd/kimigo calls it.
func SetLogger(l *slog.Logger) { logger.Store(l) }

// Reportf reports a broken invariant. Under testing.Testing() it panics.
func Reportf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if testing.Testing() && !quiet.Load() {
		panic("bug: " + msg)
	}
	if l := logger.Load(); l != nil {
		l.Error("bug", "detail", msg)
	}
}

var quiet atomic.Bool

// Quiet makes Reportf log instead of panic until the returned func is
// called; for tests that exercise the product's recovery path.
func Quiet() (restore func()) {
	quiet.Store(true)
	return func() { quiet.Store(false) }
}
