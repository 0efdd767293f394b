package mcp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kimigo/kimigo/osenv"
)

const (
	// stderrTailChars is how much of a server's stderr is kept for error
	// messages (spec 06 §7.4).
	stderrTailChars = 4096
	// Close ladder of a stdio server: its stdin is closed, then it gets
	// stopGrace to exit, then SIGTERM and killGrace, then SIGKILL.
	stopGrace = 2 * time.Second
	killGrace = 2 * time.Second
	// exitSettle is how long an unexpected close waits for the process to
	// end and its stderr to drain, so the message holds both.
	exitSettle = time.Second
)

// stdioProcess is a running stdio server: its process group, the pipes
// kimigo holds, and the tail of its stderr.
type stdioProcess struct {
	proc   osenv.Process
	stdin  *os.File
	stdout io.ReadCloser
	tail   *textTail
	// drained is closed when stderr reached EOF.
	drained chan struct{}

	closeOnce sync.Once
}

// startStdio spawns a stdio server (spec 06 §7.4): the command with the
// parent environment plus the server's env, in its cwd, as the leader of
// a new process group, with its stderr drained into a tail.
func startStdio(env osenv.Env, s Server, log *slog.Logger) (*stdioProcess, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("stdin pipe: %w", err)
	}
	p, err := env.Exec(osenv.Cmd{Args: append([]string{s.Command}, s.Args...), Dir: s.Cwd, Env: envPairs(s.Env), Stdin: inR})
	_ = inR.Close() // the child holds its own copy
	if err != nil {
		_ = inW.Close()
		return nil, err
	}
	sp := &stdioProcess{proc: p, stdin: inW, tail: &textTail{max: stderrTailChars}, drained: make(chan struct{})}
	sp.stdout = newLineFilter(p.Stdout(), func(line string) {
		log.Debug("mcp server wrote a non-JSON line to stdout", "server", s.Name, "line", line)
		fmt.Fprintf(sp.tail, "[stdout] %s\n", line)
	})
	go func() { // owned by sp: ends at EOF, at the latest when Close closes the pipes
		defer close(sp.drained)
		_, _ = io.Copy(sp.tail, p.Stderr())
	}()
	return sp, nil
}

// transport is the SDK transport over the process's pipes.
func (sp *stdioProcess) transport() sdk.Transport {
	return &sdk.IOTransport{Reader: sp.stdout, Writer: sp.stdin}
}

// exited waits up to d for the process to end and its stderr to drain.
func (sp *stdioProcess) exited(d time.Duration) (code int, ok bool) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-sp.proc.Done():
	case <-t.C:
		return 0, false
	}
	select {
	case <-sp.drained:
	case <-t.C:
	}
	return sp.proc.ExitCode()
}

// hangUp closes kimigo's ends of stdin and stdout: the server sees its
// input end, and the client session's reader stops at once.
func (sp *stdioProcess) hangUp() {
	_ = sp.stdin.Close()
	_ = sp.stdout.Close()
}

// close stops the server: stdin closed, a grace period, SIGTERM to the
// group, another, then SIGKILL; then the pipes are released. Safe to call
// more than once.
func (sp *stdioProcess) close() {
	sp.closeOnce.Do(func() {
		_ = sp.stdin.Close() // a well-behaved server exits when its input ends
		if !sp.waitDone(stopGrace) {
			_ = sp.proc.Kill(syscall.SIGTERM)
			if !sp.waitDone(killGrace) {
				_ = sp.proc.Kill(syscall.SIGKILL)
				<-sp.proc.Done()
			}
		}
		_ = sp.proc.Kill(syscall.SIGKILL) // whatever of the group is left
		_ = sp.stdout.Close()
		t := time.NewTimer(exitSettle)
		select {
		case <-sp.drained:
		case <-t.C: // a grandchild holds stderr; Close below ends the drain
		}
		t.Stop()
		_ = sp.proc.Close()
	})
}

func (sp *stdioProcess) waitDone(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-sp.proc.Done():
		return true
	case <-t.C:
		return false
	}
}

// envPairs turns a server's env map into sorted KEY=VALUE pairs.
func envPairs(env map[string]string) []string {
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// textTail keeps the last max characters written to it. Safe for
// concurrent use.
type textTail struct {
	max int
	mu  sync.Mutex
	buf []byte // guarded by mu
}

func (t *textTail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if limit := 4 * t.max; len(t.buf) > 2*limit { // bytes bound the work; String cuts by characters
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-limit:]...)
	}
	return len(p), nil
}

// String is the tail: the last max characters, trimmed.
func (t *textTail) String() string {
	t.mu.Lock()
	b := bytes.ToValidUTF8(t.buf, []byte("\uFFFD"))
	t.mu.Unlock()
	if n := utf8.RuneCount(b); n > t.max {
		r := []rune(string(b))
		return strings.TrimSpace(string(r[n-t.max:]))
	}
	return strings.TrimSpace(string(b))
}

// lineFilter passes on the lines of a server's stdout that may be JSON-RPC
// messages (they start with "{" or "["), and hands the others to junk: a
// server that logs to stdout keeps working.
type lineFilter struct {
	src  io.Reader
	br   *bufio.Reader
	junk func(string)
	buf  []byte // the rest of the current line
	mu   sync.Mutex
	done bool
}

func newLineFilter(src io.Reader, junk func(string)) *lineFilter {
	return &lineFilter{src: src, br: bufio.NewReaderSize(src, 64<<10), junk: junk}
}

func (f *lineFilter) Read(p []byte) (int, error) {
	for len(f.buf) == 0 {
		line, err := f.br.ReadBytes('\n')
		if len(line) > 0 {
			trimmed := bytes.TrimSpace(line)
			switch {
			case len(trimmed) == 0:
			case trimmed[0] == '{' || trimmed[0] == '[':
				f.buf = line
			default:
				f.junk(string(trimmed))
			}
		}
		if err != nil && len(f.buf) == 0 {
			return 0, err
		}
		if err != nil {
			break
		}
	}
	n := copy(p, f.buf)
	f.buf = f.buf[n:]
	return n, nil
}

// Close closes the pipe underneath, which ends a pending Read.
func (f *lineFilter) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.done {
		return nil
	}
	f.done = true
	if c, ok := f.src.(io.Closer); ok {
		if err := c.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
			return err
		}
	}
	return nil
}
