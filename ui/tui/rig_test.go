package tui

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/session"
	"github.com/kimigo/kimigo/ui/term"
	"github.com/kimigo/kimigo/ui/term/termtest"
)

// recorder is a session for the model tests: it records the calls the
// interface makes and publishes the events a test gives it on a real
// event bus, so the model reads a real subscription.
type recorder struct {
	bus *event.Bus

	mu      sync.Mutex
	calls   []string
	status  event.Status
	compact chan error
	btws    int
}

func newRecorder() *recorder {
	return &recorder{bus: event.NewBus(event.BusOptions{}),
		status: event.Status{Model: "fake", ContextTokens: 1200, MaxContextTokens: 131072, Permission: event.ModeManual}}
}

func (r *recorder) log(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, fmt.Sprintf(format, args...))
}

// Calls returns and forgets the calls made so far.
func (r *recorder) Calls() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.calls
	r.calls = nil
	return c
}

func text(in []llm.ContentPart) string {
	var b strings.Builder
	for _, p := range in {
		b.WriteString(p.Text)
	}
	return b.String()
}

func (r *recorder) ID() string      { return "session_test" }
func (r *recorder) WorkDir() string { return "/home/u/proj" }
func (r *recorder) Prompt(_ context.Context, in []llm.ContentPart) error {
	r.log("prompt %q", text(in))
	return nil
}
func (r *recorder) Steer(_ context.Context, in []llm.ContentPart) error {
	r.log("steer %q", text(in))
	return nil
}
func (r *recorder) Cancel(context.Context, error) error { r.log("cancel"); return nil }
func (r *recorder) Compact(ctx context.Context, instruction string) error {
	r.log("compact %q", instruction)
	if r.compact != nil {
		select {
		case err := <-r.compact:
			return err
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}
func (r *recorder) SetMode(_ context.Context, m event.PermissionMode) error {
	r.log("mode %s", m)
	return nil
}
func (r *recorder) SetModel(_ context.Context, a string) error { r.log("model %s", a); return nil }
func (r *recorder) AnswerApproval(id string, a event.ApprovalAnswer) error {
	if a.SelectedLabel != "" {
		r.log("approval %s %s %q [%s]", id, a.Choice, a.Feedback, a.SelectedLabel)
		return nil
	}
	r.log("approval %s %s %q", id, a.Choice, a.Feedback)
	return nil
}
func (r *recorder) AnswerQuestion(id string, answers map[string]string) error {
	keys := make([]string, 0, len(answers))
	for k, v := range answers {
		keys = append(keys, k+"="+v)
	}
	sort.Strings(keys)
	r.log("question %s %v", id, keys)
	return nil
}
func (r *recorder) Subscribe() *event.Subscription { return r.bus.Subscribe() }
func (r *recorder) Status() event.Status           { return r.status }
func (r *recorder) Rename(t string) error          { r.log("rename %q", t); return nil }
func (r *recorder) ResumeCommand() string          { return session.ResumeCommand(r.ID()) }
func (r *recorder) Close(context.Context) error    { r.log("close"); r.bus.Close(); return nil }

// The side conversations (btwer): ids btw-1, btw-2, …; a test publishes
// their events.
func (r *recorder) StartBtw(context.Context) (string, error) {
	r.mu.Lock()
	r.btws++
	id := fmt.Sprintf("btw-%d", r.btws)
	r.mu.Unlock()
	r.log("btw start %s", id)
	return id, nil
}
func (r *recorder) AskBtw(_ context.Context, id string, in []llm.ContentPart) error {
	r.log("btw ask %s %q", id, text(in))
	return nil
}
func (r *recorder) CancelBtw(_ context.Context, id string) error {
	r.log("btw cancel %s", id)
	return nil
}
func (r *recorder) CloseBtw(_ context.Context, id string) error {
	r.log("btw close %s", id)
	return nil
}

// rig drives a Model through Update with a fake clock and draws it on an
// emulated terminal, as the program would.
type rig struct {
	t      *testing.T
	clock  *fakeClock
	sess   *recorder
	m      *Model
	vt     *termtest.VT
	scr    *term.Screen
	timers []timer
	quit   bool
}

type timer struct {
	at  time.Time
	msg tea.Msg
}

func newRig(t *testing.T, mutate ...func(*Options)) *rig {
	t.Helper()
	r := &rig{t: t, clock: newFakeClock(), sess: newRecorder(), vt: termtest.New(80, 30)}
	o := Options{Session: r.sess, Home: t.TempDir(), WorkDir: "/home/u/proj", UserHome: "/home/u",
		Version: "v0.0.0-test", Now: r.clock.Now, Model: "fake", Models: []ModelChoice{{Alias: "fake"}, {Alias: "other"}},
		TUI: Settings{Theme: "dark"}}
	for _, f := range mutate {
		f(&o)
	}
	r.m = New(t.Context(), o, inlineCaller{ctx: t.Context()})
	r.m.afterFunc = func(d time.Duration, msg tea.Msg) tea.Cmd {
		r.timers = append(r.timers, timer{r.clock.Now().Add(d), msg})
		return nil
	}
	r.scr = term.NewScreen(r.vt, 80, 30)
	r.send(tea.WindowSizeMsg{Width: 80, Height: 30})
	r.run(r.m.Init())
	r.paint()
	return r
}

// send delivers msg and runs what it returns.
func (r *rig) send(msg tea.Msg) {
	r.t.Helper()
	_, cmd := r.m.Update(msg)
	r.run(cmd)
	r.paint()
}

// run runs a command and delivers its messages.
func (r *rig) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	msg := cmd()
	switch msg := msg.(type) {
	case nil:
	case tea.BatchMsg:
		for _, c := range msg {
			r.run(c)
		}
	case tea.QuitMsg:
		r.quit = true
	default:
		_, next := r.m.Update(msg)
		r.run(next)
	}
}

func (r *rig) paint() {
	if r.m.ShouldPaint() {
		if err := r.scr.Update(r.m.TakePrints(), r.m.Frame()); err != nil {
			r.t.Fatal(err)
		}
		r.m.Painted()
	}
}

// advance moves the clock and fires the timers due.
func (r *rig) advance(d time.Duration) {
	r.t.Helper()
	r.clock.Advance(d)
	for {
		sort.SliceStable(r.timers, func(i, j int) bool { return r.timers[i].at.Before(r.timers[j].at) })
		if len(r.timers) == 0 || r.timers[0].at.After(r.clock.Now()) {
			return
		}
		t := r.timers[0]
		r.timers = r.timers[1:]
		r.send(t.msg)
	}
}

// event publishes ev on the session's bus and delivers it as the program
// would.
func (r *rig) event(ev event.Event) {
	r.t.Helper()
	r.sess.bus.Publish(event.WithAgent(ev, mainAgent))
	got, err := r.m.Subscription().Next(r.t.Context())
	if err != nil {
		r.t.Fatal(err)
	}
	r.send(eventMsg{sub: r.m.Subscription(), ev: got})
}

var keyCodes = map[string]rune{"enter": tea.KeyEnter, "esc": tea.KeyEscape, "backspace": tea.KeyBackspace,
	"up": tea.KeyUp, "down": tea.KeyDown, "left": tea.KeyLeft, "right": tea.KeyRight, "tab": tea.KeyTab,
	"space": tea.KeySpace, "pgdown": tea.KeyPgDown, "pgup": tea.KeyPgUp}

// key presses one key: "enter", "ctrl+c", "a".
func (r *rig) key(k string) {
	r.t.Helper()
	var msg tea.KeyPressMsg
	switch {
	case keyCodes[k] != 0:
		msg = tea.KeyPressMsg{Code: keyCodes[k]}
	case strings.HasPrefix(k, "ctrl+"):
		msg = tea.KeyPressMsg{Code: []rune(k[5:])[0], Mod: tea.ModCtrl}
	case strings.HasPrefix(k, "shift+tab"):
		msg = tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	default:
		msg = tea.KeyPressMsg{Code: []rune(k)[0], Text: k}
	}
	r.send(msg)
}

// typeText types s a key at a time.
func (r *rig) typeText(s string) {
	r.t.Helper()
	for _, c := range s {
		r.key(string(c))
	}
}

// screen is everything the terminal shows or scrolled by, joined.
func (r *rig) screen() string { return strings.Join(r.vt.Lines(), "\n") }

// live is the live region as the terminal shows it.
func (r *rig) live() string {
	f := r.m.Frame()
	var b strings.Builder
	for _, l := range f.Lines {
		b.WriteString(strings.TrimRight(stripANSI(l), " "))
		b.WriteByte('\n')
	}
	return b.String()
}

func (r *rig) expectCalls(want ...string) {
	r.t.Helper()
	got := r.sess.Calls()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		r.t.Errorf("session calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func (r *rig) contains(where, s string) {
	r.t.Helper()
	if !strings.Contains(where, s) {
		r.t.Errorf("missing %q in:\n%s", s, where)
	}
}

func (r *rig) lacks(where, s string) {
	r.t.Helper()
	if strings.Contains(where, s) {
		r.t.Errorf("unexpected %q in:\n%s", s, where)
	}
}

// Undo makes the recorder an undoer.
func (r *recorder) Undo(_ context.Context, n int) error { r.log("undo %d", n); return nil }
