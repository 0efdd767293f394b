package agenttest

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"regexp"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kimigo/kimigo/agent/compaction"
	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/permission"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/agent/replay"
	"github.com/kimigo/kimigo/agent/turn"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/scripted"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/osenv/osenvtest"
	"github.com/kimigo/kimigo/tools"
)

// Host is the agent under test as the harness drives it. This package may
// not import the agent (STYLE.md §2: nothing under agent/ imports it), so
// the agent's tests adapt *agent.Agent to Host and pass the constructor to
// New; everything else the harness builds itself.
type Host interface {
	Prompt(ctx context.Context, input []llm.ContentPart, origin *history.Origin) (turn.Launch, error)
	Steer(ctx context.Context, input []llm.ContentPart, origin *history.Origin) (turn.Launch, error)
	Cancel(ctx context.Context, turnID *int, cause error) error
	WaitForCurrentTurn(ctx context.Context) (turn.Result, error)
	HasActiveTurn() bool
	CurrentTurnID() int
	History() []history.Message
	TokenCount() int
	// Resume restores the agent from its records, with the UI replay
	// stream when cards is set; without it the resume skips what only the
	// stream needs (the print-mode resume), and returns no cards.
	Resume(ctx context.Context, cards bool) (warning string, replayCards []replay.Card, err error)
	// NextRequest is the JSON of the request the next step would send.
	NextRequest(ctx context.Context) ([]byte, error)
	// State is the restorable state, compared with go-cmp.
	State(ctx context.Context) any
	Close(ctx context.Context) error
}

// Setup is everything the harness chooses for an agent.
type Setup struct {
	// Provider is the model; nil means none is configured.
	Provider     llm.Provider
	Capability   *llm.Capability
	SystemPrompt string
	// Budget are the completion budget settings.
	Budget      llm.BudgetInputs
	Env         osenv.Env
	HomeDir     string
	Persistence records.Persistence
	// Permission, when set, gives the agent a real permission manager
	// (agent.Options.Permission); it then authorizes calls instead of
	// Gate.
	Permission *permission.Options
	Gate       turn.PermissionGate
	Hooks      turn.HookRunner
	Tools      []loop.ExecutableTool
	// ToolManager, when set, builds the agent's tool manager on env.
	ToolManager func(env osenv.Env, c tools.StoreCommitter) *tools.Manager
	LoopControl func() turn.LoopControl
	// Compaction is the full compaction's strategy; RefreshSystemPrompt, when
	// set, re-renders the system prompt after a compaction.
	Compaction          compaction.StrategyOptions
	RefreshSystemPrompt func(ctx context.Context) (string, error)
	Loop                loop.Options
	// OnEvent sees every event the agent published, synchronously.
	OnEvent func(event.Event)
	Logger  *slog.Logger
	Now     func() time.Time
	NewUUID func() string
}

// Factory builds a Host from a Setup.
type Factory func(Setup) Host

// Option changes the harness's Setup.
type Option func(*Harness)

// Harness runs a real agent on an in-memory OS, a scripted model and
// in-memory records, and records the interleaved trace of records and
// events (STYLE.md §9).
type Harness struct {
	t       testing.TB
	factory Factory
	setup   Setup
	model   *Model
	env     *osenvtest.Env
	store   *records.MemoryPersistence
	host    Host
	noModel bool
	fault   func(records.Record) error
	flushF  func() error

	mu        sync.Mutex
	trace     []string                  // guarded by mu
	events    []event.Event             // guarded by mu
	observers map[int]func(event.Event) // guarded by mu
	nextObs   int                       // guarded by mu
}

// epoch is the harness clock: every record and duration sees this instant,
// so traces are byte-stable.
var epoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// New builds the harness and its agent. The agent is closed when the test
// ends.
func New(t testing.TB, factory Factory, opts ...Option) *Harness {
	t.Helper()
	h := &Harness{t: t, factory: factory, model: NewModel(t, "scripted-model"),
		env: osenvtest.New(osenvtest.Options{})}
	var uuids atomic.Int64
	h.setup = Setup{
		Capability: &llm.Capability{ToolUse: true, MaxContextTokens: 256_000},
		Env:        h.env,
		Now:        func() time.Time { return epoch },
		NewUUID:    func() string { return fmt.Sprintf("uuid-%d", uuids.Add(1)) },
		Loop: loop.Options{
			Sleep:  func(context.Context, time.Duration) error { return nil },
			Jitter: func() float64 { return 0 },
		},
		SystemPrompt: "You are kimigo, under test.",
	}
	for _, o := range opts {
		o(h)
	}
	h.store = records.NewMemory(records.MemoryOptions{OnRecord: h.onRecord})
	s := h.setup
	if !h.noModel {
		s.Provider = h.model.Provider()
	}
	s.Persistence = h.store
	if h.fault != nil || h.flushF != nil {
		s.Persistence = faultyStore{MemoryPersistence: h.store, fault: h.fault, flush: h.flushF}
	}
	s.OnEvent = h.onEvent
	h.host = factory(s)
	t.Cleanup(func() {
		if err := h.host.Close(context.WithoutCancel(t.Context())); err != nil {
			t.Errorf("close agent: %v", err)
		}
	})
	return h
}

// Files writes files into the in-memory workspace, path then content.
func Files(pathsAndContents ...string) Option {
	return func(h *Harness) {
		for i := 0; i+1 < len(pathsAndContents); i += 2 {
			if err := h.env.WriteFile(pathsAndContents[i], []byte(pathsAndContents[i+1]), 0o644); err != nil {
				h.t.Fatal(err)
			}
		}
	}
}

// Tools adds tools to the agent's table.
func Tools(ts ...loop.ExecutableTool) Option {
	return func(h *Harness) { h.setup.Tools = append(h.setup.Tools, ts...) }
}

// BuiltinTools gives the agent a real tool manager over the in-memory
// workspace.
func BuiltinTools() Option {
	return func(h *Harness) {
		h.setup.ToolManager = func(env osenv.Env, c tools.StoreCommitter) *tools.Manager {
			return tools.New(tools.Options{Base: tools.Base{Env: env}, Committer: c})
		}
	}
}

// ToolManager gives the agent a tool manager built by f over the agent's
// OS (the harness's in-memory one, or the denying one on resume).
func ToolManager(f func(env osenv.Env, c tools.StoreCommitter) *tools.Manager) Option {
	return func(h *Harness) { h.setup.ToolManager = f }
}

// Gate sets the permission gate.
func Gate(g turn.PermissionGate) Option { return func(h *Harness) { h.setup.Gate = g } }

// Permission gives the agent a real permission manager built from o; leave
// o.Env nil so it runs on the harness's in-memory OS (and, on resume, on
// the denying one).
func Permission(o permission.Options) Option {
	return func(h *Harness) { h.setup.Permission = &o }
}

// HookRunner sets the lifecycle hook runner.
func HookRunner(r turn.HookRunner) Option { return func(h *Harness) { h.setup.Hooks = r } }

// LoopControl fixes the loop settings.
func LoopControl(lc turn.LoopControl) Option {
	return func(h *Harness) { h.setup.LoopControl = func() turn.LoopControl { return lc } }
}

// Compaction sets the full compaction's strategy.
func Compaction(o compaction.StrategyOptions) Option {
	return func(h *Harness) { h.setup.Compaction = o }
}

// RefreshSystemPrompt makes the agent re-render its system prompt with f
// after every compaction.
func RefreshSystemPrompt(f func(ctx context.Context) (string, error)) Option {
	return func(h *Harness) { h.setup.RefreshSystemPrompt = f }
}

// Clock replaces the harness's fixed clock.
func Clock(now func() time.Time) Option { return func(h *Harness) { h.setup.Now = now } }

// Capability sets the model capability (nil: unknown).
func Capability(c *llm.Capability) Option { return func(h *Harness) { h.setup.Capability = c } }

// Budget sets the completion budget settings.
func Budget(b llm.BudgetInputs) Option { return func(h *Harness) { h.setup.Budget = b } }

// HomeDir gives the agent a home directory in the in-memory file system.
func HomeDir(dir string) Option { return func(h *Harness) { h.setup.HomeDir = dir } }

// NoModel leaves the agent without a model.
func NoModel() Option { return func(h *Harness) { h.noModel = true } }

// Provider replaces the scripted model, for wire-level tests against the
// llmtest fake servers.
func Provider(p llm.Provider) Option {
	return func(h *Harness) { h.setup.Provider = p; h.noModel = true }
}

// AppendFault makes appending a record fail when fault returns an error:
// the record is then neither stored nor applied.
func AppendFault(fault func(records.Record) error) Option {
	return func(h *Harness) { h.fault = fault }
}

// FlushFault makes Flush fail while fault returns an error, as a full or
// broken disk would; the records stay stored, as a real log keeps them
// queued for the next flush.
func FlushFault(fault func() error) Option {
	return func(h *Harness) { h.flushF = fault }
}

// faultyStore is the harness's store with injected failures.
type faultyStore struct {
	*records.MemoryPersistence
	fault func(records.Record) error
	flush func() error
}

func (s faultyStore) Append(rec records.Record) error {
	if s.fault != nil {
		if err := s.fault(rec); err != nil {
			return err
		}
	}
	return s.MemoryPersistence.Append(rec)
}

func (s faultyStore) Flush(ctx context.Context) error {
	if s.flush != nil {
		if err := s.flush(); err != nil {
			return err
		}
	}
	return s.MemoryPersistence.Flush(ctx)
}

// Agent is the agent under test.
func (h *Harness) Agent() Host { return h.host }

// Env is the in-memory OS environment.
func (h *Harness) Env() *osenvtest.Env { return h.env }

// ScriptedModel is the harness's model.
func (h *Harness) ScriptedModel() *Model { return h.model }

// Model appends responses to the model's script.
func (h *Harness) Model(rs ...scripted.Response) { h.model.Add(rs...) }

// Held appends a response that streams after parts and then waits.
func (h *Harness) Held(r scripted.Response, after int) *Hold { return h.model.AddHeld(r, after) }

// Start prompts with text and returns without waiting.
func (h *Harness) Start(text string) turn.Launch {
	h.t.Helper()
	l, err := h.host.Prompt(h.t.Context(), []llm.ContentPart{llm.TextPart(text)}, nil)
	if err != nil {
		h.t.Fatalf("prompt %q: %v", text, err)
	}
	return l
}

// Prompt prompts with text and waits for the turn to end.
func (h *Harness) Prompt(text string) turn.Result {
	h.t.Helper()
	if l := h.Start(text); !l.Launched {
		h.t.Fatalf("prompt %q was not launched: %+v", text, l)
	}
	return h.Wait()
}

// Steer steers text with origin (nil: the user).
func (h *Harness) Steer(text string, origin *history.Origin) turn.Launch {
	h.t.Helper()
	l, err := h.host.Steer(h.t.Context(), []llm.ContentPart{llm.TextPart(text)}, origin)
	if err != nil {
		h.t.Fatalf("steer %q: %v", text, err)
	}
	return l
}

// Wait waits for the current turn to end.
func (h *Harness) Wait() turn.Result {
	h.t.Helper()
	res, err := h.host.WaitForCurrentTurn(h.t.Context())
	if err != nil {
		h.t.Fatalf("wait for the turn: %v", err)
	}
	return res
}

// Requests are the model requests so far.
func (h *Harness) Requests() []llm.Request { return h.model.Requests() }

// Records are the records written so far.
func (h *Harness) Records() []records.Record { return h.store.Records() }

// Persistence is the agent's in-memory record store.
func (h *Harness) Persistence() *records.MemoryPersistence { return h.store }

// Events are the events published so far.
func (h *Harness) Events() []event.Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]event.Event(nil), h.events...)
}

// EventTypes are the types of the events so far, in order, leaving out
// the given ones.
func (h *Harness) EventTypes(except ...event.Type) []event.Type {
	var out []event.Type
	for _, ev := range h.Events() {
		if !contains(except, ev.EventType()) {
			out = append(out, ev.EventType())
		}
	}
	return out
}

func (h *Harness) onRecord(rec records.Record) {
	h.mu.Lock()
	h.trace = append(h.trace, "record "+rec.String())
	h.mu.Unlock()
}

func (h *Harness) onEvent(ev event.Event) {
	b, err := event.Marshal(ev)
	line := "event " + string(b)
	if err != nil {
		line = fmt.Sprintf("event %s (unencodable: %v)", ev.EventType(), err)
	}
	h.mu.Lock()
	h.events = append(h.events, ev)
	h.trace = append(h.trace, line)
	obs := slices.Collect(maps.Values(h.observers))
	h.mu.Unlock()
	for _, f := range obs {
		f(ev)
	}
}

// Observe calls f with every later event, synchronously on the goroutine
// that published it (the agent's OnEvent), so f sees the agent's state as
// it was when the event went out. The returned func stops it.
func (h *Harness) Observe(f func(event.Event)) (stop func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.observers == nil {
		h.observers = map[int]func(event.Event){}
	}
	h.nextObs++
	id := h.nextObs
	h.observers[id] = f
	return func() {
		h.mu.Lock()
		delete(h.observers, id)
		h.mu.Unlock()
	}
}

// Trace is the interleaved trace of records and events so far, one per
// line, for golden files. Stream timings ("llm…Ms") are measurements, some
// taken with the real clock inside llm.Generate, so the trace shows them
// as 0: a golden file pins behaviour, not speed.
func (h *Harness) Trace() []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []byte
	for _, l := range h.trace {
		out = append(out, streamTiming.ReplaceAll([]byte(l), []byte("${1}0"))...)
		out = append(out, '\n')
	}
	return out
}

// streamTiming matches one stream timing field of a record or an event.
var streamTiming = regexp.MustCompile(`("llm[A-Za-z]*Ms":)[0-9]+`)
