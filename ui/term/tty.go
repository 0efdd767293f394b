package term

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	xterm "github.com/charmbracelet/x/term"
)

// Modes the interface turns on: bracketed paste (a paste arrives as one
// event and its newlines do not submit), xterm's modifyOtherKeys and the
// kitty keyboard protocol's disambiguation (Shift-Enter, Ctrl-J and a
// lone Esc arrive distinct where the terminal can tell them apart).
// Terminals ignore what they do not know.
const (
	enterModes = "\x1b[?2004h" + "\x1b[>4;2m" + "\x1b[>1u"
	// leaveModes undoes enterModes and leaves the cursor visible; it ends
	// a synchronized update a crash may have left open.
	leaveModes = "\x1b[?2026l" + "\x1b[<u" + "\x1b[>4m" + "\x1b[?2004l" + "\x1b[m" + showCursor
)

// TTY is the terminal the interface runs on: input in raw mode and the
// modes above while it is entered. Restore undoes both and is safe to
// call any number of times, from any goroutine (a signal handler, a
// deferred panic recovery), before or after Enter.
type TTY struct {
	in, out *os.File

	mu    sync.Mutex
	saved *xterm.State // guarded by mu: the line discipline before Enter
	on    bool         // guarded by mu: entered and not restored
}

// ErrNotTerminal says the interface needs a terminal on both sides.
var ErrNotTerminal = errors.New("the interactive interface needs a terminal: stdin and stdout must be a TTY")

// OpenTTY returns the TTY of in and out, both terminals (usually the
// process's stdin and stdout).
func OpenTTY(in, out *os.File) (*TTY, error) {
	if in == nil || out == nil || !xterm.IsTerminal(in.Fd()) || !xterm.IsTerminal(out.Fd()) {
		return nil, ErrNotTerminal
	}
	return &TTY{in: in, out: out}, nil
}

// In is the terminal's input.
func (t *TTY) In() *os.File { return t.in }

// Out is the terminal's output.
func (t *TTY) Out() io.Writer { return t.out }

// Size is the terminal's width and height in cells.
func (t *TTY) Size() (width, height int, err error) {
	w, h, err := xterm.GetSize(t.out.Fd())
	if err != nil {
		return 0, 0, fmt.Errorf("read the terminal size: %w", err)
	}
	return w, h, nil
}

// Enter puts the input in raw mode (no echo, no line editing, no
// signals from Ctrl-C or Ctrl-Z, no XON/XOFF, so Ctrl-S arrives as a
// key) and turns on the interface's modes.
func (t *TTY) Enter() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.on {
		return nil
	}
	st, err := xterm.MakeRaw(t.in.Fd())
	if err != nil {
		return fmt.Errorf("put the terminal in raw mode: %w", err)
	}
	t.saved, t.on = st, true
	if _, err := io.WriteString(t.out, enterModes); err != nil {
		return fmt.Errorf("set the terminal modes: %w", err)
	}
	return nil
}

// Restore turns the modes off, shows the cursor and puts the line
// discipline back as Enter found it. It does nothing when the terminal
// is not entered.
func (t *TTY) Restore() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.on {
		return nil
	}
	t.on = false
	_, werr := io.WriteString(t.out, leaveModes)
	var rerr error
	if err := xterm.Restore(t.in.Fd(), t.saved); err != nil {
		rerr = fmt.Errorf("restore the terminal: %w", err)
	}
	return errors.Join(werr, rerr)
}
