package agent

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/kimigo/kimigo/agent/background"
	"github.com/kimigo/kimigo/agent/compaction"
	"github.com/kimigo/kimigo/agent/cron"
	"github.com/kimigo/kimigo/agent/goal"
	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/injection"
	"github.com/kimigo/kimigo/agent/permission"
	"github.com/kimigo/kimigo/agent/plan"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/agent/replay"
	"github.com/kimigo/kimigo/agent/swarm"
	"github.com/kimigo/kimigo/agent/turn"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/tools"
)

// Options build an Agent. The zero value is a usable agent without a model
// (every turn fails with model.not_configured), without tools, with its
// records in memory and every tool call approved: a library agent without
// Permission approves everything. The kimigo command always sets
// Permission.
type Options struct {
	// ID names the agent in the header of every event it publishes
	// ("main", "agent-0", …); "" means MainAgentID.
	ID string
	// Model is the model the agent starts with; the zero value is none
	// (every turn fails with model.not_configured). A resumed agent binds
	// the model its records saved through Models instead.
	Model ModelBinding
	// Models resolves a model alias for SetModel and Resume; nil keeps
	// Model for the agent's life.
	Models ModelResolver
	// Config is the initial configuration (system prompt, cwd, …). It is
	// recorded as config.update with the first record of a new log, so a
	// resumed agent gets it from its records.
	Config Config

	// Tools is a fixed tool table, offered after the manager's tools.
	Tools []loop.ExecutableTool
	// NewToolManager builds the agent's tool manager; the agent passes
	// itself as the committer of tool-store updates, so they are records.
	NewToolManager func(c tools.StoreCommitter) *tools.Manager

	// Env is the OS seam; the agent itself writes only spilled tool
	// results through it. Nil means the local file system for those.
	Env osenv.Env
	// HomeDir is the agent's home directory (<session>/agents/<id>):
	// oversized tool results go to its tool-results/. Empty keeps them
	// inline.
	HomeDir string
	// Persistence stores the records; nil keeps them in memory. The agent
	// closes it in Close.
	Persistence records.Persistence
	// KeepOldRecordFormat stops Resume from rewriting a log migrated from
	// an older protocol version.
	KeepOldRecordFormat bool

	// Permission, when set, gives the agent a permission manager built
	// from it (Agent.Permission), which authorizes every tool call in place
	// of Gate. The agent supplies the Recorder: set_mode and approval
	// records go through its commit path and are restored by Resume. Env,
	// Logger and Hooks default to the agent's own (Hooks adapted, so
	// PreToolUse and the approval hooks run on the same engine). Approver
	// puts approval requests to the user; with none, a call the chain asks
	// about is denied at once with a message saying what would allow it
	// (never approved, never waiting), and no approval record is written.
	// Print mode runs in auto mode, where nothing asks.
	Permission *permission.Options
	// Gate authorizes tool calls when Permission is nil; nil approves
	// every call.
	Gate turn.PermissionGate
	// Hooks runs the user's lifecycle hooks; nil runs none.
	Hooks turn.HookRunner
	// Compactor replaces the agent's full compaction; turn.NoCompaction{}
	// turns compaction off. Nil means a compaction.FullCompaction over
	// this agent, configured by Compaction: an agent with a model
	// compacts when its context nears the model's window.
	Compactor turn.Compactor
	// Compaction configures the full compaction when Compactor is nil.
	Compaction CompactionOptions
	// Loop injects the loop's sleep, jitter and ids.
	Loop loop.Options
	// Events is the bus the agent publishes its events on; a session
	// shares one among its agents, so a front end follows them on one
	// stream. Nil gives the agent a bus of its own (Agent.Events).
	Events *event.Bus
	// OnEvent, when set, sees every event the agent published, after the
	// bus stamped it, synchronously on the publishing goroutine: for
	// tests and traces that interleave events with records. It must not
	// block. Front ends subscribe to the bus instead.
	OnEvent func(event.Event)

	// Injection adds the reminders (todo list, permission mode, background
	// tasks after a compaction; plan and goal plug in as injectors); nil
	// adds none. Background runs background tasks: the caller hands the
	// same manager to the tool manager (tools.Options.Background); nil
	// means none. Cron schedules prompts, main agents only (the tool
	// manager gets it as tools.Options.Cron); nil means none. The agent
	// binds each to itself in New, starts the cron ticker, restores them
	// in Resume and closes them in Close.
	Injection  *injection.Manager
	Background *background.Manager
	Cron       *cron.Manager

	// Plan is the agent's plan mode and Goals its goal mode (main agents
	// only); nil means none. Like Background, the caller builds them and
	// hands the same values to the tool manager (tools.Options.Plan,
	// .Goals) and their reminders to the injection manager
	// (injection.PerStepWith(Plan.Reminder()), Goals.Reminder() in the
	// boundary group). The agent binds them to itself in New, fills the
	// permission chain's plan and goal slots with their policies (unless
	// Permission.Slots has them), drives goals from the turn worker and
	// restores both in Resume (modes.go).
	Plan  *plan.Mode
	Goals *goal.Store
	// Swarm is the agent's swarm mode; nil means none. The caller hands
	// the same value to the tool manager (tools.Options.SwarmMode); the
	// agent binds it, fills the chain's swarm slots, restores it in
	// Resume and ends a task's or a tool's swarm mode after each turn
	// (swarm_mode.go).
	Swarm *swarm.Mode

	// Logger receives logs; nil discards.
	Logger *slog.Logger
	// Now is the clock of record times and durations; nil means time.Now.
	Now func() time.Time
	// NewUUID names spilled tool results and, when Loop.NewUUID is nil,
	// steps and content parts; nil means random version 4 UUIDs.
	NewUUID func() string
}

// MainAgentID is the id of a session's main agent, and of an agent given
// none.
const MainAgentID = "main"

// Agent is one conversation's mutable state and the host that drives the
// stateless loop over it: history, configuration, tool store, usage and
// the turn counter, all changed only by committing a record and applying
// it (commit.go). It needs no session: New plus Prompt is a working agent.
// Every exported method is safe for concurrent use.
type Agent struct {
	o       Options
	logger  *slog.Logger
	now     func() time.Time
	log     *records.Log
	events  publisher
	turns   *turn.TurnFlow
	adapter *turn.LLM
	manager *tools.Manager      // nil without NewToolManager
	perm    *permission.Manager // nil without Options.Permission
	// compactor is the agent's own full compaction; nil when
	// Options.Compactor replaced it.
	compactor *compaction.FullCompaction

	// mu guards the state below, and every call into mem and store that
	// changes them. It is held while a record is appended and applied,
	// never while calling the loop, hooks, the model or event sinks.
	mu            sync.Mutex
	mem           *history.Memory
	bound         boundModel // the model in use, its budget resolved
	store         *tools.Store
	usage         usageState
	config        Config
	configPending bool            // the initial Config is not recorded yet
	recordTime    time.Time       // time of the record being applied
	cards         *replay.Builder // set while Resume collects the replay stream
	pending       unrestored      // set while a replay counts the records it cannot restore yet
	toolsHashes   map[string]bool // llm.tools_snapshot hashes already written

	hashMu sync.Mutex       // guards hashes
	hashes requestHashCache // the last request's tool and system prompt hashes
}

// New returns an agent for o. It reads and writes nothing: a new agent
// starts empty, and Resume restores one from its records.
func New(o Options) *Agent {
	if o.Config.ModelAlias == "" && o.Model.Alias != "" {
		o.Config.ModelAlias, o.Config.ThinkingEffort = o.Model.Alias, o.Model.ThinkingEffort
	}
	a := &Agent{o: o, logger: o.Logger, now: o.Now, config: o.Config.clone(), bound: newBound(o.Model),
		configPending: !o.Config.isZero(), toolsHashes: map[string]bool{}}
	if a.logger == nil {
		a.logger = slog.New(slog.DiscardHandler)
	}
	if a.now == nil {
		a.now = time.Now
	}
	if a.o.NewUUID == nil {
		a.o.NewUUID = newUUID
	}
	if a.o.Loop.NewUUID == nil {
		a.o.Loop.NewUUID = a.o.NewUUID
	}
	a.log = records.NewLog(records.LogOptions{Persistence: o.Persistence, Now: a.now, Logger: a.logger,
		KeepOldFormat: o.KeepOldRecordFormat})
	if o.ID == "" {
		a.o.ID = MainAgentID
	}
	if o.Events == nil {
		a.o.Events = event.NewBus(event.BusOptions{})
	}
	a.events = publisher{id: a.o.ID, bus: a.o.Events, onEvent: o.OnEvent, log: a.logger}
	a.mem = history.New(history.Options{Logger: a.logger, Now: func() time.Time { return a.recordTime },
		Hooks: a.historyHooks()})
	a.store = tools.NewStore()
	if o.NewToolManager != nil {
		a.manager = o.NewToolManager(storeCommitter{a})
		a.store = a.manager.Store()
	}
	a.perm = a.newPermission()
	a.adapter = turn.NewLLM(turn.LLMOptions{Snapshot: a.snapshot, UsedContextTokens: a.TokenCount,
		Generate: a.generate, Now: a.now})
	a.turns = turn.New(a.turnOptions())
	a.bindRuntime()
	return a
}

func (a *Agent) turnOptions() turn.Options {
	var fs osenv.FS
	if a.o.Env != nil {
		fs = a.o.Env
	}
	var gate turn.PermissionGate = a.o.Gate
	if a.perm != nil {
		gate = a.perm
	}
	return turn.Options{
		History:             historyView{a},
		Commit:              turnCommitter{a},
		LLM:                 a.model,
		Tools:               a.toolTable,
		DescribeMissingTool: a.describeMissingTool,
		Compactor:           a.newCompactor(),
		Injector:            a.injector(),
		Gate:                gate,
		Goals:               a.goalDriver(),
		AfterTurn:           a.afterTurn,
		Hooks:               a.o.Hooks,
		Usage:               usageRecorder{a},
		Events:              a.events,
		LoopControl:         func() turn.LoopControl { return a.Model().LoopControl },
		Budget: turn.NewResultBudget(turn.ResultBudgetOptions{FS: fs, HomeDir: a.o.HomeDir,
			NewUUID: a.o.NewUUID, Logger: a.logger}),
		Loop:   a.o.Loop,
		Logger: a.logger,
		Now:    a.now,
	}
}

// Close cancels the running turn and the running compaction, waits for
// them, stops the background tasks and the cron ticker, and closes the
// records (flushing them). A compaction stopped this
// way leaves history as it was. The agent cannot be used afterwards.
func (a *Agent) Close(ctx context.Context) error {
	err := a.turns.Close(ctx)
	err = errors.Join(err, a.closeRuntime(ctx))
	if a.compactor != nil {
		if cerr := a.compactor.Close(ctx); cerr != nil {
			err = errors.Join(err, fmt.Errorf("close compaction: %w", cerr))
		}
	}
	if cerr := a.log.Close(ctx); cerr != nil {
		err = errors.Join(err, fmt.Errorf("close agent records: %w", cerr))
	}
	return err
}

// ID is the agent's id in the events it publishes.
func (a *Agent) ID() string { return a.o.ID }

// Events is the bus the agent publishes on: Options.Events, or its own.
func (a *Agent) Events() *event.Bus { return a.o.Events }

// Prompt records input and starts a turn with it; origin nil means the
// user. While a turn runs the prompt is refused with a turn.agent_busy
// error event (and Launch.Launched false).
func (a *Agent) Prompt(ctx context.Context, input []llm.ContentPart, origin *history.Origin) (turn.Launch, error) {
	return a.turns.Prompt(ctx, input, origin)
}

// Steer delivers input to the running turn at its next step boundary, or
// starts a turn with it when the agent is idle.
func (a *Agent) Steer(ctx context.Context, input []llm.ContentPart, origin *history.Origin) (turn.Launch, error) {
	return a.turns.Steer(ctx, input, origin)
}

// Retry runs the model again on the existing history.
func (a *Agent) Retry(ctx context.Context, trigger string) (turn.Launch, error) {
	return a.turns.Retry(ctx, trigger)
}

// Cancel stops the running turn (turnID nil: whatever runs) with cause;
// nil means the user cancelled it.
func (a *Agent) Cancel(ctx context.Context, turnID *int, cause error) error {
	return a.turns.Cancel(ctx, turnID, cause)
}

// WaitForCurrentTurn waits for the most recently launched turn; see
// turn.TurnFlow.WaitForCurrentTurn.
func (a *Agent) WaitForCurrentTurn(ctx context.Context) (turn.Result, error) {
	return a.turns.WaitForCurrentTurn(ctx)
}

// WaitForFirstRequest waits for the first sign of a model response in the
// running turn.
func (a *Agent) WaitForFirstRequest(ctx context.Context) error {
	return a.turns.WaitForFirstRequest(ctx)
}

// HasActiveTurn reports a running turn.
func (a *Agent) HasActiveTurn() bool { return a.turns.HasActiveTurn() }

// CurrentTurnID is the last allocated turn id; -1 before the first turn.
func (a *Agent) CurrentTurnID() int { return a.turns.CurrentID() }

// History returns a snapshot of the conversation; it never changes.
func (a *Agent) History() []history.Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.mem.History()
}

// TokenCount is the last known context size.
func (a *Agent) TokenCount() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.mem.TokenCount()
}

// TokenCountWithPending adds the estimate of the messages TokenCount does
// not cover yet: the number compaction decisions use.
func (a *Agent) TokenCountWithPending() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.mem.TokenCountWithPending()
}

// Config returns the current configuration.
func (a *Agent) Config() Config {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.config.clone()
}

// model is TurnFlow's source of the model for each run.
func (a *Agent) model() (loop.LLM, error) {
	if a.Model().Provider == nil {
		return nil, turn.ErrModelNotConfigured
	}
	return a.adapter, nil
}

// snapshot is what the next request is built from (spec 03 §7.3): the
// model bound now and the current system prompt, read together.
func (a *Agent) snapshot() (turn.Snapshot, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	b := a.bound
	if b.Provider == nil {
		return turn.Snapshot{}, turn.ErrModelNotConfigured
	}
	return turn.Snapshot{Provider: b.Provider, SystemPrompt: a.config.SystemPrompt, Capability: b.capability(),
		Budget: b.budget}, nil
}

// newUUID returns a random version 4 UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
