package tui

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"sync"
	"syscall"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/ui/term"
)

// Exit codes Run returns.
const (
	ExitOK    = 0
	ExitCrash = 1
)

// closeTimeout bounds closing the session at exit.
const closeTimeout = 10 * time.Second

// Run runs the interactive interface on the terminal of in and out until
// the user leaves, and returns the exit code: 0 after /exit, Ctrl-C or
// Ctrl-D twice; 128+n after signal n; 1 after a crash. The terminal is
// restored on every way out — before anything is printed after it:
// " Bye!", and the resume command on stderr when the session has a
// conversation. Run closes the session (o.Session and any it switched
// to). environ is the process environment (the colour profile, TERM).
func Run(ctx context.Context, o Options, in, out *os.File, environ []string) (code int, err error) {
	tty, err := term.OpenTTY(in, out)
	if err != nil {
		return ExitCrash, err
	}
	width, height, err := tty.Size()
	if err != nil {
		return ExitCrash, err
	}
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	// A session still opening when the user leaves is closed once it is
	// open: the start's result also goes here.
	started := make(chan startedMsg, 1)
	if start := o.Start; start != nil {
		o.Start = func(ctx context.Context) (Opened, error) {
			op, err := start(ctx)
			started <- startedMsg{o: op, err: err}
			return op, err
		}
	}

	profile := colorprofile.Detect(out, environ)
	w := &colorprofile.Writer{Forward: out, Profile: profile}
	d := &driver{tty: tty, scr: term.NewScreen(w, width, height), out: out}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	logger := o.Logger
	calls := newQueueCaller(ctx, func(r any) { logger.Error("session call panicked", "panic", fmt.Sprint(r)) })
	m := New(ctx, o, calls)
	m.term = d
	m.width, m.height = width, height
	d.m = m

	if err := tty.Enter(); err != nil {
		return ExitCrash, err
	}
	defer func() {
		if r := recover(); r != nil {
			d.restore()
			m.log.Error("interface crashed", "panic", fmt.Sprint(r))
			code, err = ExitCrash, fmt.Errorf("the interface crashed: %v", r)
		}
	}()
	if o.TUI.Theme == "" || o.TUI.Theme == "auto" {
		if o.TUI.env("CI") == "" {
			_, _ = io.WriteString(out, "\x1b]11;?\x1b\\") // the reply arrives as a BackgroundColorMsg
		}
	}

	p := tea.NewProgram(d, tea.WithContext(ctx), tea.WithInput(in), tea.WithOutput(io.Discard),
		tea.WithoutRenderer(), tea.WithoutSignalHandler(), tea.WithFPS(1),
		tea.WithWindowSize(width, height), tea.WithEnvironment(environ))
	d.p, d.ctx = p, ctx
	stop := d.signals(p)
	_, runErr := p.Run()
	if d.crashed != nil {
		runErr = d.crashed
	}
	stop()
	d.stopPump()

	d.restore()
	calls.Close()
	code = d.code
	if serr := m.StartError(); serr != nil {
		return ExitCrash, &StartError{Err: serr}
	}
	if m.opening != nil && o.Start != nil {
		select {
		case r := <-started:
			if r.err == nil {
				cctx, ccancel := context.WithTimeout(context.WithoutCancel(ctx), closeTimeout)
				_ = r.o.Session.Close(cctx) // nothing was done in it
				ccancel()
			}
		case <-time.After(closeTimeout):
		}
	}
	if errors.Is(runErr, tea.ErrProgramPanic) {
		m.log.Error("interface crashed", "err", runErr)
		code = ExitCrash
	}
	s := m.Session()
	if s != nil {
		cctx, ccancel := context.WithTimeout(context.WithoutCancel(ctx), closeTimeout)
		if cerr := s.Close(cctx); cerr != nil {
			m.log.Warn("close the session", "err", cerr)
			err = cerr
		}
		ccancel()
	}
	if code != ExitCrash {
		fmt.Fprintln(out, " Bye!")
	} else if runErr != nil {
		err = errors.Join(err, runErr)
	}
	if s != nil && m.HasContent() {
		fmt.Fprintf(o.Stderr, " To resume this session: %s\n", s.ResumeCommand())
	}
	return code, err
}

// StartError is the error of a session that did not open (Options.Start):
// Run returns it after restoring the terminal, having printed nothing.
type StartError struct{ Err error }

func (e *StartError) Error() string { return e.Err.Error() }

func (e *StartError) Unwrap() error { return e.Err }

// driver runs the model inside bubbletea and draws it with the inline
// screen: bubbletea reads the keys and runs the loop and the commands;
// the screen draws the live region when the model asks, not on a timer,
// so a key is on screen as soon as it is handled and an idle interface
// draws nothing.
type driver struct {
	m    *Model
	tty  *term.TTY
	scr  *term.Screen
	out  *os.File
	code int
	p    *tea.Program
	ctx  context.Context

	pumped    *event.Subscription // the subscription the pump reads
	pumpStop  context.CancelFunc
	pumpGroup sync.WaitGroup

	restoreOnce sync.Once
	// crashed is a panic of the model's Update or View, recovered here so
	// that bubbletea shuts down on its ordinary path (v2.1.1's panic path
	// closes the input while its reader still reads it).
	crashed error
}

// recoverCrash ends the program after a panic of the model.
func (d *driver) recoverCrash(model *tea.Model, cmd *tea.Cmd) {
	if r := recover(); r != nil {
		*model = d
		d.crashed = fmt.Errorf("%w: %v\n%s", tea.ErrProgramPanic, r, debug.Stack())
		d.m.quitting = true
		*cmd = tea.Quit
	}
}

// signalMsg is a signal the process received.
type signalMsg struct{ sig syscall.Signal }

func (d *driver) Init() tea.Cmd {
	cmd := d.m.Init()
	d.pump()
	return cmd
}

// pump reads the model's subscription on a goroutine of its own and
// sends each event into the program; a new subscription (a session
// switch) replaces it.
func (d *driver) pump() {
	sub := d.m.Subscription()
	if sub == d.pumped {
		return
	}
	d.stopPump()
	d.pumped = sub
	if sub == nil {
		return
	}
	ctx, cancel := context.WithCancel(d.ctx)
	d.pumpStop = cancel
	p := d.p
	d.pumpGroup.Go(func() {
		for {
			ev, err := sub.Next(ctx)
			if err != nil && ctx.Err() != nil {
				return
			}
			p.Send(eventMsg{sub: sub, ev: ev, err: err})
			if err != nil {
				return
			}
		}
	})
}

func (d *driver) stopPump() {
	if d.pumpStop != nil {
		d.pumpStop()
		d.pumpStop = nil
	}
	d.pumpGroup.Wait()
}

func (d *driver) Update(msg tea.Msg) (model tea.Model, cmd tea.Cmd) {
	if d.crashed != nil {
		return d, nil
	}
	defer d.recoverCrash(&model, &cmd)
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		d.scr.Resize(msg.Width, msg.Height)
		d.m.urgent = true
	case signalMsg:
		d.code = 128 + int(msg.sig)
		d.m.quitting = true
		return d, tea.Quit
	case tea.KeyPressMsg:
		if msg.String() == "ctrl+z" {
			return d, tea.Exec(&suspend{d: d}, func(error) tea.Msg { return resumedMsg{} })
		}
	case resumedMsg:
		d.m.urgent = true
		d.m.touch()
	}
	_, cmd = d.m.Update(msg)
	d.pump()
	return d, cmd
}

// View draws the live region when the model asks; bubbletea calls it
// after every update. What it returns is not used: bubbletea's own
// renderer is off.
func (d *driver) View() tea.View {
	d.paint()
	return tea.View{}
}

func (d *driver) paint() {
	m := d.m
	if m.quitting || !m.ShouldPaint() {
		return
	}
	if m.bell {
		m.bell = false
		_, _ = io.WriteString(d.out, "\a")
	}
	if m.clipboard != "" {
		_, _ = io.WriteString(d.out, osc52(m.clipboard))
		m.clipboard = ""
	}
	if err := d.scr.Update(m.TakePrints(), m.Frame()); err != nil {
		m.log.Warn("draw", "err", err)
	}
	m.Painted()
}

// restore leaves the terminal as it was: the live region erased, the
// prints flushed, the modes off and the line discipline back.
func (d *driver) restore() {
	d.restoreOnce.Do(func() {
		if prints := d.m.TakePrints(); len(prints) > 0 {
			_ = d.scr.Update(prints, term.Frame{})
		}
		_ = d.scr.Clear()
		_ = d.tty.Restore()
	})
}

// Release hands the terminal to a program in the foreground (Ctrl-G).
func (d *driver) Release() error {
	if prints := d.m.TakePrints(); len(prints) > 0 {
		_ = d.scr.Update(prints, term.Frame{})
	}
	_ = d.scr.Clear()
	return d.tty.Restore()
}

// Acquire takes the terminal back and redraws the live region.
func (d *driver) Acquire() error {
	err := d.tty.Enter()
	d.scr.Invalidate()
	d.m.touch()
	d.m.urgent = true
	return err
}

// signals turns SIGINT, SIGTERM and SIGHUP into an orderly exit and
// SIGWINCH into a resize. A second terminating signal while the first is
// handled restores the terminal and exits at once.
func (d *driver) signals(p *tea.Program) (stop func()) {
	ch := make(chan os.Signal, 4)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGWINCH)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		got := false
		for {
			select {
			case <-done:
				return
			case s := <-ch:
				sig := s.(syscall.Signal)
				if sig == syscall.SIGWINCH {
					if w, h, err := d.tty.Size(); err == nil {
						go p.Send(tea.WindowSizeMsg{Width: w, Height: h})
					}
					continue
				}
				if got {
					_ = d.tty.Restore()
					os.Exit(128 + int(sig))
				}
				got = true
				go p.Send(signalMsg{sig: sig})
			}
		}
	})
	return func() {
		signal.Stop(ch)
		close(done)
		wg.Wait()
	}
}

// suspend stops the process for the shell's job control (Ctrl-Z) with
// the terminal restored, and takes it back on SIGCONT.
type suspend struct{ d *driver }

type resumedMsg struct{}

func (s *suspend) Run() error {
	if err := s.d.Release(); err != nil {
		return err
	}
	_ = syscall.Kill(0, syscall.SIGTSTP) // stops here until SIGCONT
	return s.d.Acquire()
}

func (s *suspend) SetStdin(io.Reader)  {}
func (s *suspend) SetStdout(io.Writer) {}
func (s *suspend) SetStderr(io.Writer) {}

// osc52 asks the terminal to put text on the clipboard.
func osc52(text string) string {
	return "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(text)) + "\a"
}
