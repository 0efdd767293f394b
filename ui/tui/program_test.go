package tui

import (
	"bytes"
	"context"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/ui/term/termtest"
)

// ptyRig runs Run on a pseudo-terminal and reads what it draws into an
// emulated terminal.
type ptyRig struct {
	t      *testing.T
	ctl    *os.File
	tty    *os.File
	mu     sync.Mutex
	vt     *termtest.VT
	raw    bytes.Buffer
	done   chan struct{}
	code   int
	err    error
	stderr bytes.Buffer
	sess   *recorder
}

func startPTY(t *testing.T, mutate ...func(*Options)) *ptyRig {
	t.Helper()
	ctl, tty, err := termtest.OpenPTY(80, 24)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	r := &ptyRig{t: t, ctl: ctl, tty: tty, vt: termtest.New(80, 24), done: make(chan struct{}), sess: newRecorder()}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := ctl.Read(buf)
			r.mu.Lock()
			r.vt.Write(buf[:n])
			r.raw.Write(buf[:n])
			r.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	o := Options{Session: r.sess, Home: t.TempDir(), WorkDir: t.TempDir(), Version: "test", Stderr: &r.stderr,
		TUI: Settings{Theme: "dark"}}
	for _, f := range mutate {
		f(&o)
	}
	go func() {
		r.code, r.err = Run(context.Background(), o, tty, tty, []string{"TERM=xterm-256color"})
		close(r.done)
	}()
	t.Cleanup(func() {
		select {
		case <-r.done:
		case <-time.After(rigTimeout):
			t.Error("Run did not end")
		}
		// The terminal's side stays open: after a panic bubbletea's input
		// reader may still be reading it when Run has returned, and
		// closing the controller ends that read.
		ttys = append(ttys, tty)
		ctl.Close()
	})
	return r
}

// ttys keeps the rigs' terminals open until the tests end.
var ttys []*os.File

// waitFor polls the emulated screen until it holds s.
func (r *ptyRig) waitFor(s string) {
	r.t.Helper()
	deadline := time.Now().Add(rigTimeout)
	for {
		r.mu.Lock()
		screen := strings.Join(r.vt.Lines(), "\n")
		r.mu.Unlock()
		if strings.Contains(screen, s) {
			return
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("never saw %q on:\n%s", s, screen)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (r *ptyRig) send(s string) {
	r.t.Helper()
	if _, err := io.WriteString(r.ctl, s); err != nil {
		r.t.Fatal(err)
	}
}

func (r *ptyRig) wait() {
	r.t.Helper()
	select {
	case <-r.done:
	case <-time.After(rigTimeout):
		r.t.Fatal("Run did not end")
	}
	// Run restored the terminal before it returned; the reader takes the
	// last bytes when it gets to them.
	for deadline := time.Now().Add(rigTimeout); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		r.mu.Lock()
		back := r.vt.CursorVisible && !r.vt.BracketedPaste && r.vt.KittyDepth == 0
		r.mu.Unlock()
		if back {
			return
		}
	}
}

// rigTimeout bounds every wait on the pseudo-terminal; only a failing
// test waits that long.
const rigTimeout = 60 * time.Second

// restored checks the terminal is as a shell wants it back.
func (r *ptyRig) restored() {
	r.t.Helper()
	raw, err := termtest.Raw(r.tty)
	if err != nil {
		r.t.Fatal(err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if raw || !r.vt.CursorVisible || r.vt.BracketedPaste || r.vt.KittyDepth != 0 {
		r.t.Errorf("terminal left raw=%v cursor=%v paste=%v kitty=%d", raw, r.vt.CursorVisible, r.vt.BracketedPaste, r.vt.KittyDepth)
	}
}

func TestRunTypeAndExitTwice(t *testing.T) {
	r := startPTY(t)
	r.waitFor("context:")
	r.send("hello there")
	r.waitFor("> hello there")
	r.send("\x03") // Ctrl-C clears and arms
	r.waitFor("Press Ctrl+C again to exit")
	r.send("\x03")
	r.wait()
	if r.code != 0 || r.err != nil {
		t.Errorf("exit %d, %v", r.code, r.err)
	}
	r.restored()
	r.waitFor("Bye!")
	if r.stderr.Len() != 0 {
		t.Errorf("a session without a conversation printed a resume hint: %q", r.stderr.String())
	}
	if calls := r.sess.Calls(); len(calls) != 1 || calls[0] != "close" {
		t.Errorf("calls %v; want the session closed", calls)
	}
}

func TestRunPromptResizeAndExit(t *testing.T) {
	r := startPTY(t, func(o *Options) { o.Prompt = "start here" })
	r.waitFor("✨ start here")
	r.sess.bus.Publish(event.WithAgent(event.TurnStarted{Header: event.InTurn(1)}, mainAgent))
	r.sess.bus.Publish(event.WithAgent(event.AssistantDelta{Header: event.InTurn(1), Delta: "streamed answer"}, mainAgent))
	r.sess.bus.Publish(event.WithAgent(event.TurnEnded{Header: event.InTurn(1), Reason: event.EndCompleted}, mainAgent))
	r.waitFor("● streamed answer")
	if err := termtest.SetSize(r.tty, 50, 20); err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	r.vt.Resize(50, 20)
	r.mu.Unlock()
	r.send("x")
	r.waitFor("> x")
	r.send("\x04") // Ctrl-D with text deletes forward: nothing here
	r.send("\x15") // Ctrl-U clears
	r.send("\x04")
	r.waitFor("Press Ctrl+D again to exit")
	r.send("\x04")
	r.wait()
	r.restored()
	if !strings.Contains(r.stderr.String(), "To resume this session: kimigo -r session_test") {
		t.Errorf("no resume hint on stderr: %q", r.stderr.String())
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	screen := strings.Join(r.vt.Lines(), "\n")
	if strings.Count(screen, "✨ start here") != 1 {
		t.Errorf("the prompt shows %d times after the resize:\n%s", strings.Count(screen, "✨ start here"), screen)
	}
}

func TestRunRestoresAfterAPanic(t *testing.T) {
	r := startPTY(t, func(o *Options) {
		o.Commands = []Command{{Name: "boom", Run: func(*Ctx, string) tea.Cmd { panic("boom") }}}
	})
	r.waitFor("context:")
	r.send("/boom\r")
	r.wait()
	if r.code != ExitCrash {
		t.Errorf("exit %d after a panic; want %d", r.code, ExitCrash)
	}
	r.restored()
}
