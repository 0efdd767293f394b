package compaction

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"sync"

	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
)

// Options wire a FullCompaction to its agent. History, Commit, Turns and
// Model are required; every other nil field is absent (no tools offered,
// plain llm.Generate, usage not recorded, no events, no hooks, no system
// prompt refresh, no reinjection, no todo list).
type Options struct {
	History History
	Commit  Committer
	Turns   Turns
	// Model returns the current model; an error means none is configured
	// (the window is unknown and a round fails).
	Model func() (Model, error)
	// Tools returns the loop's tool definitions; the summary request
	// offers the same tools as the loop to keep the prompt cache warm.
	Tools func(ctx context.Context) []llm.Tool
	// Generate is the request choke point; nil means llm.Generate.
	Generate GenerateFunc
	Usage    UsageRecorder
	Events   EventSink
	Hooks    Hooks
	// RefreshSystemPrompt re-renders the system prompt after a successful
	// compaction (spec 03 §6.14); its error is logged and ignored.
	RefreshSystemPrompt func(ctx context.Context) error
	// Reinject appends the reminders a compaction removed (goal, tools,
	// background tasks, per-step injections) right after the rewrite,
	// while input is still held back (spec 03 §6.8).
	Reinject func(ctx context.Context) error
	// Todos returns the todo list appended to every summary.
	Todos func() []Todo

	// Rand returns jitter in [0, 1) for the retry backoff; nil means
	// math/rand/v2.
	Rand func() float64
	// Logger receives lifecycle logs; nil discards.
	Logger *slog.Logger
}

// FullCompaction is an agent's full compaction (spec 03 §6): the strategy
// and its step hooks, overflow recovery, manual compaction, and the worker
// that summarises history with the model and rewrites it through a
// context.apply_compaction record. It implements the turn layer's
// Compactor seam. Every exported method is safe for concurrent use; none
// holds the compaction's lock while calling a collaborator.
type FullCompaction struct {
	o    Options
	log  *slog.Logger
	rand func() float64
	// base is the lifetime root of every worker; Close cancels it.
	base   context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu sync.Mutex
	// compacting is the running compaction, nil when none; last is the
	// most recent one. Both guarded by mu.
	compacting, last *run
	// countInTurn counts the automatic compactions of the turn; guarded
	// by mu.
	countInTurn int
	// lastCompactedTokens is the context size right after this turn's
	// last compaction, nil before one (spec 03 §6.3); guarded by mu.
	lastCompactedTokens *int
	// consecutiveOverflows counts overflow recoveries since the last
	// successful step; guarded by mu.
	consecutiveOverflows int
	// observed maps a model to the window its overflows taught; guarded
	// by mu. It lives as long as the agent and is never persisted.
	observed map[string]int
	// limitRaised is set while the per-turn limit error travels through
	// the turn's overflow classification; guarded by mu.
	limitRaised bool
	closed      bool // guarded by mu
}

// New returns a FullCompaction for o.
func New(o Options) *FullCompaction {
	c := &FullCompaction{o: o, log: o.Logger, rand: o.Rand, observed: map[string]int{}}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if c.rand == nil {
		c.rand = rand.Float64
	}
	if c.o.Generate == nil {
		c.o.Generate = plainGenerate
	}
	c.base, c.cancel = context.WithCancel(context.Background())
	return c
}

// Strategy is the compaction's strategy now: the current model's
// options over its effective window. A model switch changes it at once.
func (c *FullCompaction) Strategy() Strategy {
	var o StrategyOptions
	if m, err := c.o.Model(); err == nil {
		o = m.Strategy
	}
	return NewStrategy(o, c.EffectiveMaxContextTokens)
}

// IsCompacting reports a compaction in flight. TurnFlow calls it with its
// own lock held; it only takes the compaction's lock.
func (c *FullCompaction) IsCompacting() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.compacting != nil
}

// ResetForTurn clears the per-turn counters at the start of every turn
// (spec 03 §6.4).
func (c *FullCompaction) ResetForTurn() {
	c.mu.Lock()
	c.countInTurn, c.lastCompactedTokens, c.consecutiveOverflows = 0, nil, 0
	c.limitRaised = false
	c.mu.Unlock()
}

// Close cancels a running compaction and waits for its worker. A
// compaction cancelled this way writes no cancel record: it ends with the
// process, and resume finds the history it had before.
func (c *FullCompaction) Close(ctx context.Context) error {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.cancel()
	done := make(chan struct{})
	go func() { c.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// tools is the loop's current tool table, offered unchanged.
func (c *FullCompaction) tools() []llm.Tool {
	if c.o.Tools == nil {
		return nil
	}
	return c.o.Tools(c.base)
}

// emit publishes ev when there is a sink.
func (c *FullCompaction) emit(ev event.Event) {
	if c.o.Events != nil {
		c.o.Events.Publish(ev)
	}
}

// failed reports a failure nobody waits for when there is a sink.
func (c *FullCompaction) failed(err error) {
	if c.o.Events != nil {
		c.o.Events.Failed(err)
	}
}

// header is the header of a compaction event: the running turn's, or
// none between turns (a manual compaction).
func (c *FullCompaction) header() event.Header {
	if c.o.Turns.HasActiveTurn() {
		return event.InTurn(c.o.Turns.CurrentID())
	}
	return event.InTurn(event.NoTurn)
}

func plainGenerate(ctx context.Context, p llm.Provider, req llm.Request, cb llm.Callbacks,
	_ loop.RequestLogFields) (*llm.Result, error) {
	return llm.Generate(ctx, p, req, cb)
}
