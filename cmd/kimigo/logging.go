package main

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
)

// logFile is the destination of kimigo's diagnostic log: the global log
// <root>/logs/kimigo.log until a session opens, then the session's own
// log (ERRATA 7). The file is opened at the first line written to it, so
// a run that logs nothing creates nothing. It is safe for concurrent use.
type logFile struct {
	mu   sync.Mutex
	path string   // guarded by mu
	f    *os.File // guarded by mu; nil until the first write to path
	err  error    // guarded by mu; the open error of path, not retried
}

// Write appends p to the current file. Logging never fails the program: a
// file that cannot be opened drops its lines.
func (l *logFile) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil && l.err == nil && l.path != "" {
		if l.err = os.MkdirAll(filepath.Dir(l.path), 0o700); l.err == nil {
			l.f, l.err = os.OpenFile(l.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		}
	}
	if l.f == nil {
		return len(p), nil
	}
	return l.f.Write(p)
}

// written reports whether the current file was opened: a line reached it.
func (l *logFile) written() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.f != nil
}

// switchTo sends later lines to path.
func (l *logFile) switchTo(path string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if path == l.path {
		return
	}
	l.closeLocked()
	l.path, l.err = path, nil
}

// Close closes the current file.
func (l *logFile) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.closeLocked()
}

func (l *logFile) closeLocked() error {
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

// newLogger returns a logger writing text lines to w at level.
func newLogger(w io.Writer, level *slog.LevelVar) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}

// logLevel is the level KIMI_LOG_LEVEL names (spec 06 §1.10), as the
// config layer read it: off, error, warn, info (the default) or debug.
func logLevel(name string) slog.Level {
	switch name {
	case "off":
		return slog.LevelError + 1 // above every level kimigo logs at
	case "error":
		return slog.LevelError
	case "warn":
		return slog.LevelWarn
	case "debug":
		return slog.LevelDebug
	}
	return slog.LevelInfo
}
