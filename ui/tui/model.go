package tui

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/ui/editor"
	"github.com/kimigo/kimigo/ui/render"
	"github.com/kimigo/kimigo/ui/term"
)

// Timings of the live region.
const (
	// frameInterval paces everything that moves while a turn runs: the
	// spinners, the elapsed time and streamed text, at most 20 frames a
	// second (spec 06 §5.6: 50 ms coalescing).
	frameInterval = 50 * time.Millisecond
)

// Model is the interactive interface as a bubbletea model: the state of
// the live region, the transcript items not printed yet, and the editor
// or the panel that replaces it. Update is the only writer. Finished
// blocks collect in prints until the program takes them (TakePrints) and
// writes them above the live region; Frame is the live region.
type Model struct {
	o     Options
	sess  Session
	calls caller
	ctx   context.Context
	now   func() time.Time
	log   *slog.Logger
	rnd   *rand.Rand

	theme render.Theme
	md    *render.Markdown
	// bgDark is the background the terminal reported, nil before it did.
	bgDark *bool
	// mcpFailed are the MCP failures shown, by server: each once.
	mcpFailed map[string]string

	width, height int

	ed     *editor.Editor
	hist   *editor.History
	ladder *Ladder
	reg    *Registry

	sub *event.Subscription

	prints   []string
	live     []*item
	byID     map[string]*item // tool items by call id
	turn     *turnState
	turnSeq  int
	expand   []expandable
	todos    []render.Todo
	todoAll  bool
	queue    []queued
	status   event.Status
	model    string
	effort   string
	thinking bool
	hint     string
	hintGen  int
	tip      string

	overlay overlay
	menu    *menu
	// side is the open side conversation (/btw); children are the agents
	// other than main whose turn runs, for the footer (btw.go).
	side     *sidePanel
	children map[string]bool
	// suspended are the children a rate limit holds back, in the order
	// they were suspended, until they start again (swarm.go).
	suspended []suspension
	compact   *compaction
	shell     *shellRun

	frameOn     bool // a frame tick is scheduled
	streamDirty bool // text arrived since the last frame
	dirty       bool // the live region changed
	urgent      bool // paint now, not on the next frame
	frame       term.Frame
	framed      bool // frame is up to date

	pendingRequests []event.Event // approvals and questions behind the open one
	prompts         []string      // the user's prompts in this session, for /undo
	lastAnswer      string        // the last answer, for /copy
	clipboard       string        // text to copy (OSC 52), taken by the program
	bell            bool          // ring the bell on the next paint
	git             string
	term            terminalControl
	shellGen        int
	afterFunc       func(time.Duration, tea.Msg) tea.Cmd // the tests' clock

	opening *opening // the first session opens in the background
	// reopening is the session closed and opened again (/reload,
	// /add-dir): messages wait in the queue meanwhile.
	reopening *opening
	startErr  error // why it did not
	content   bool  // the session has a conversation worth resuming
	quitting  bool
}

// turnState is the running turn.
type turnState struct {
	id      int
	started time.Time
	phase   phase
	kind    int8 // the spinner kind shown: 1 moon, 2 braille
	retry   string
	detail  string
	tool    string // the running tool's header text
	// cancelling: the user cancelled the turn; its calls end interrupted.
	cancelling bool
}

type phase int8

const (
	phaseWaiting phase = iota
	phaseThinking
	phaseComposing
	phaseTool
)

// Messages the model sends itself.
type (
	eventMsg struct {
		sub *event.Subscription
		ev  event.Event
		err error
	}
	frameMsg struct{}
	// noticeMsg prints a notice a command's work ended with.
	noticeMsg struct {
		level        render.Level
		text, detail string
	}
	hintDoneMsg struct{ gen int }
)

// New returns the model for o. now and calls are injected by the program
// (and the tests).
func New(ctx context.Context, o Options, calls caller) *Model {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	m := &Model{o: o, sess: o.Session, calls: calls, ctx: ctx, now: o.Now, log: o.Logger,
		rnd: rand.New(rand.NewPCG(uint64(o.Now().UnixNano()), 7)), width: 80, height: 24,
		ed: editor.New(), ladder: NewLadder(o.Now), byID: map[string]*item{},
		model: o.Model, effort: o.Effort, thinking: o.Thinking, dirty: true, urgent: true}
	m.setTheme(o.TUI.theme())
	m.reg = builtinCommands()
	for _, c := range o.Commands {
		if err := m.reg.Add(c); err != nil {
			m.log.Warn("slash command not added", "command", c.Name, "err", err)
		}
	}
	if h, err := editor.LoadHistory(o.Home, o.WorkDir); err != nil {
		m.hist = h
		m.notice(render.Warning, err.Error())
	} else {
		m.hist = h
	}
	m.content = o.Resumed
	return m
}

func (m *Model) setTheme(t render.Theme) {
	m.theme = t
	m.md = render.NewMarkdown(t)
}

// subscribe subscribes to the current session's events. The program
// reads the subscription (Subscription) and sends each event as an
// eventMsg.
func (m *Model) subscribe() tea.Cmd {
	if m.sub != nil {
		m.sub.Close()
	}
	m.sub = m.sess.Subscribe()
	m.mcpFailed = nil
	m.mcpStartupFailures()
	return nil
}

// Subscription is the event stream the model reads now.
func (m *Model) Subscription() *event.Subscription { return m.sub }

// after delivers msg after d.
func (m *Model) after(d time.Duration, msg tea.Msg) tea.Cmd {
	if m.afterFunc != nil {
		return m.afterFunc(d, msg)
	}
	return tea.Tick(d, func(time.Time) tea.Msg { return msg })
}

// Update handles one message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.update(msg)
	return m, cmd
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		if msg.Width != m.width || msg.Height != m.height {
			m.width, m.height = max(msg.Width, 20), max(msg.Height, 5)
			m.touch()
		}
		return nil
	case tea.KeyPressMsg:
		m.urgent = true
		cmd := m.key(msg)
		m.touch()
		return cmd
	case tea.PasteMsg:
		m.urgent = true
		m.touch()
		return m.paste(msg.Content)
	case tea.BackgroundColorMsg:
		dark := msg.IsDark()
		m.bgDark = &dark
		if m.o.TUI.Theme == "" || m.o.TUI.Theme == "auto" {
			if msg.IsDark() != m.theme.Dark {
				if msg.IsDark() {
					m.setTheme(render.Dark())
				} else {
					m.setTheme(render.Light())
				}
				m.touch()
			}
		}
		return nil
	case eventMsg:
		if msg.sub != m.sub {
			return nil // a subscription of a session left behind
		}
		if msg.err != nil {
			if !errors.Is(msg.err, event.ErrClosed) && !errors.Is(msg.err, context.Canceled) {
				m.log.Warn("event stream ended", "err", msg.err)
				m.notice(render.Warning, "The session's event stream ended: "+msg.err.Error())
			}
			return nil
		}
		cmd := m.handleEvent(msg.ev)
		return tea.Batch(cmd, m.animate())
	case frameMsg:
		m.frameOn = false
		if m.streamDirty {
			m.streamDirty = false
			m.flushLive()
		}
		m.touch()
		m.urgent = true
		return m.animate()
	case hintDoneMsg:
		if msg.gen == m.hintGen && m.hint != "" {
			m.hint = ""
			m.urgent = true
			m.touch()
		}
		return nil
	case callDoneMsg:
		return m.callDone(msg)
	case btwStartedMsg:
		return m.btwStarted(msg)
	case btwAskedMsg:
		return m.btwAsked(msg)
	case switchedMsg:
		return m.switched(msg)
	case reopenedMsg:
		return m.reopened(msg)
	case dirAddedMsg:
		return m.dirAdded(msg)
	case loginModelsMsg:
		return m.loginModels(msg)
	case loginSavedMsg:
		return m.loginSaved(msg)
	case startedMsg:
		return m.startedSession(msg)
	case shellMsg:
		return m.shellEvent(msg)
	case completionMsg:
		m.completed(msg)
		m.urgent = true
		return nil
	case editorDoneMsg:
		m.urgent = true
		return m.editorDone(msg)
	case planEditedMsg:
		return m.planEdited(msg)
	case compactDoneMsg:
		return m.compactDone(msg)
	case undoneMsg:
		m.urgent = true
		if msg.err != nil {
			m.notice(render.Error, msg.err.Error())
			return nil
		}
		m.prompts = m.prompts[:max(0, len(m.prompts)-msg.n)]
		m.notice(render.Success, fmt.Sprintf("Withdrew %d %s; the files stay as they are.", msg.n, plural(msg.n, "prompt", "prompts")))
		if m.ed.Empty() && msg.text != "" {
			m.ed.SetValue(msg.text)
		}
		m.touch()
		return nil
	case noticeMsg:
		m.urgent = true
		m.print(render.Notice(m.theme, msg.level, msg.text, msg.detail, m.width))
		return nil
	case exportedMsg:
		m.urgent = true
		m.print(render.Notice(m.theme, render.Success, "Exported the session", msg.path, m.width))
		return nil
	case gitMsg:
		if msg.branch != m.git {
			m.git = msg.branch
			m.touch()
		}
		return nil
	}
	if m.overlay != nil {
		if cmd, ok := m.overlay.message(m, msg); ok {
			m.touch()
			return cmd
		}
	}
	return nil
}

// touch marks the live region changed.
func (m *Model) touch() { m.dirty, m.framed = true, false }

// busy reports whether a turn, a compaction or a shell command runs.
func (m *Model) busy() bool {
	return m.turn != nil || m.compact != nil || m.shell != nil || m.opening != nil || m.reopening != nil
}

// animate keeps one frame tick scheduled while anything on screen moves.
func (m *Model) animate() tea.Cmd {
	if m.frameOn || !m.busy() && !m.streamDirty && !m.sideRunning() {
		return nil
	}
	m.frameOn = true
	return m.after(frameInterval, frameMsg{})
}

// ShouldPaint reports whether the program should draw now: a key, a
// panel or a frame asked for it, or the region changed while nothing
// streams. Paints while a turn streams wait for the next frame.
func (m *Model) ShouldPaint() bool {
	return len(m.prints) > 0 && (m.urgent || !m.busy()) || m.dirty && (m.urgent || !m.busy())
}

// TakePrints returns the blocks to print above the live region and
// forgets them.
func (m *Model) TakePrints() []string {
	p := m.prints
	m.prints = nil
	return p
}

// Painted records that the program drew the current frame.
func (m *Model) Painted() { m.dirty, m.urgent = false, false }

// Quitting reports whether the model asked the program to end.
func (m *Model) Quitting() bool { return m.quitting }

// Session is the session shown now.
func (m *Model) Session() Session { return m.sess }

// HasContent reports whether the session has a conversation worth the
// resume hint.
func (m *Model) HasContent() bool { return m.content }

// quit ends the program.
func (m *Model) quit() tea.Cmd {
	m.quitting = true
	return tea.Quit
}

// setHint shows a transient footer hint for d.
func (m *Model) setHint(text string, d time.Duration) tea.Cmd {
	m.hintGen++
	m.hint = text
	return m.after(d, hintDoneMsg{m.hintGen})
}

// notice prints a status line.
func (m *Model) notice(l render.Level, text string) {
	m.print(render.Status(m.theme, l, text, m.width))
}

// submit sends what the user typed: a slash command, a shell command or
// a prompt, now or into the queue.
func (m *Model) submit(text string, shell bool) tea.Cmd {
	if shell {
		return m.runShell(text)
	}
	if name, args, ok := ParseCommand(text); ok {
		if c := m.reg.Lookup(name); c != nil {
			return m.runCommand(c, name, args)
		}
	}
	if m.busy() || m.sess == nil {
		m.queue = append(m.queue, queued{text: text})
		return nil
	}
	return m.sendPrompt(text)
}

// sendPrompt starts a turn with text.
func (m *Model) sendPrompt(text string) tea.Cmd { return m.sendPromptAs(text, text) }

// sendPromptAs starts a turn with text, shown as shown (/init shows
// itself, not the instructions it sends).
func (m *Model) sendPromptAs(shown, text string) tea.Cmd {
	m.print(render.UserMessage(m.theme, shown, m.width, false))
	m.prompts = append(m.prompts, shown)
	m.content = true
	m.turn = &turnState{id: -1, started: m.now(), phase: phaseWaiting}
	m.pickTip(1)
	s := m.sess
	input := []llm.ContentPart{{Type: llm.PartText, Text: text}}
	return tea.Batch(m.call("prompt", func(ctx context.Context) error { return s.Prompt(ctx, input) }), m.animate())
}

// callDone reports a failed session call.
func (m *Model) callDone(msg callDoneMsg) tea.Cmd {
	if msg.err == nil {
		return nil
	}
	m.urgent = true
	if msg.label == "prompt" && m.turn != nil && m.turn.id < 0 {
		m.turn = nil // the turn never started
	}
	p := event.ErrorOf(msg.err)
	m.print(render.ErrorLine(m.theme, p.Code, p.Message, m.width))
	return m.drainQueue()
}

// modelDisplay is the footer's and banner's name of the model.
func (m *Model) modelDisplay() string {
	for _, c := range m.o.Models {
		if c.Alias == m.model && c.Display != "" {
			return c.Display
		}
	}
	if m.model != "" {
		return m.model
	}
	return m.status.Model
}

// pickTip picks a tip for a new spinner kind, never the last one again.
func (m *Model) pickTip(kind int8) {
	if m.turn == nil || m.turn.kind == kind {
		return
	}
	m.turn.kind = kind
	for range 4 {
		t := tips[m.rnd.IntN(len(tips))]
		if t != m.tip {
			m.tip = t
			return
		}
	}
}

// tips are the hints the activity line rotates through.
var tips = []string{
	"Esc interrupts the model",
	"Ctrl-J or Alt-Enter starts a new line",
	"@ completes a file path",
	"/ lists the commands",
	"Ctrl-S sends your draft into the running turn",
	"Ctrl-O shows the full output of the last turns",
	"Ctrl-T expands the todo list",
	"! runs a shell command",
	"/compact frees context",
	"/undo withdraws your last prompt",
	"kimigo -c continues the last session here",
	"/model switches the model",
}

// String is for debugging.
func (m *Model) String() string {
	return fmt.Sprintf("tui.Model{turn=%v live=%d queue=%d}", m.turn != nil, len(m.live), len(m.queue))
}
