package turn

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
)

// ErrClosed is returned by a TurnFlow used after Close.
var ErrClosed = errors.New("turn flow is closed")

// errNoActiveTurn is returned by the waits when no turn ever ran.
var errNoActiveTurn = errors.New("no active turn")

// Options wire a TurnFlow to its agent. History, Commit and LLM are
// required; every other nil collaborator is absent (no compaction, no
// injections, every call approved, no goals, no hooks, no usage, no
// events).
type Options struct {
	History History
	Commit  Committer
	// LLM returns the model for the next run; ErrModelNotConfigured (or
	// any error) fails the turn before a request is made. It is asked at
	// the start of every run.
	LLM func() (loop.LLM, error)
	// Tools returns the tool table; it is asked before every step.
	Tools func(ctx context.Context) ([]loop.ExecutableTool, error)
	// DescribeMissingTool words the result for an unknown tool.
	DescribeMissingTool func(name string) (string, bool)

	Compactor Compactor
	Injector  Injector
	Gate      PermissionGate
	Goals     GoalStore
	// AfterTurn, when set, runs after each turn's body, before its
	// records are flushed and turn.ended is published, with a context
	// that outlives the turn's cancellation (swarm mode's auto exit).
	AfterTurn func(ctx context.Context)
	Hooks     HookRunner
	Usage     UsageRecorder
	Events    EventSink
	// LoopControl is asked at the start of every run; nil means no step
	// cap and the loop's retry default.
	LoopControl func() LoopControl
	// Budget spills oversized tool results; nil never spills.
	Budget *ResultBudget
	// Loop injects the loop's clock, jitter and ids.
	Loop loop.Options
	// Logger receives lifecycle logs; nil discards.
	Logger *slog.Logger
	// Now is the clock of turn durations; nil means time.Now.
	Now func() time.Time
}

// Launch says what Prompt or Steer did with the input.
type Launch struct {
	// TurnID is the new turn's id, or the current id when nothing was
	// launched.
	TurnID int
	// Launched is set when a new turn started with the input.
	Launched bool
	// Buffered is set when the input waits for the next step boundary of
	// the running turn (a steer) or for a compaction to finish.
	Buffered bool
}

// Result is how a turn ended.
type Result struct {
	Event      event.TurnEnded
	StopReason loop.StopReason
	// BlockedByUserPromptHook is set when a UserPromptSubmit hook blocked
	// the prompt.
	BlockedByUserPromptHook bool
}

// TurnFlow is the single owner of "is a turn running" for one agent (spec
// 03 §1): Prompt, Steer, Retry and Cancel, the turn worker with its goal
// driver, and the wiring of every loop hook to the agent's collaborators.
// Every exported method is safe for concurrent use; none holds the
// TurnFlow's lock while calling a collaborator.
type TurnFlow struct {
	o   Options
	log *slog.Logger
	now func() time.Time
	// base is the lifetime root of every turn's context; Close cancels
	// the active turn through it.
	base context.Context

	mu       sync.Mutex
	turnID   int          // guarded by mu; the last allocated id, -1 before the first
	active   *activeTurn  // guarded by mu; the running turn, nil when idle
	last     *activeTurn  // guarded by mu; the most recently launched turn
	steers   []bufferedIn // guarded by mu; FIFO of input for the next step boundary
	steerSeq uint64       // guarded by mu; identity of buffered input
	closed   bool         // guarded by mu
	wg       sync.WaitGroup
}

// bufferedIn is a steer (or a prompt deferred by compaction) waiting to be
// delivered.
type bufferedIn struct {
	input  []llm.ContentPart
	origin *history.Origin
	seq    uint64
}

// activeTurn is one launched worker.
type activeTurn struct {
	id     int
	ctx    context.Context
	cancel context.CancelCauseFunc
	// prev is the turn launched before this one; the worker waits for it
	// to finish so two workers never write history at once.
	prev  *activeTurn
	first *firstRequest
	done  chan struct{} // closed when result is set
	res   Result
}

// New returns a TurnFlow for o.
func New(o Options) *TurnFlow {
	if o.Compactor == nil {
		o.Compactor = NoCompaction{}
	}
	if o.Gate == nil {
		o.Gate = ApproveAll{}
	}
	if o.Usage == nil {
		o.Usage = noUsage{}
	}
	if o.LoopControl == nil {
		o.LoopControl = func() LoopControl { return LoopControl{} }
	}
	if o.Budget == nil {
		o.Budget = NewResultBudget(ResultBudgetOptions{})
	}
	f := &TurnFlow{o: o, log: o.Logger, now: o.Now, base: context.Background(), turnID: -1}
	if f.log == nil {
		f.log = slog.New(slog.DiscardHandler)
	}
	if f.now == nil {
		f.now = time.Now
	}
	return f
}

// Prompt records the user's input and starts a turn with it (spec 03
// §1.2). While a turn runs, the input is refused with a turn.agent_busy
// error event; while a compaction runs, it waits for the compaction. The
// turn.prompt record is written either way. origin nil means the user.
func (f *TurnFlow) Prompt(ctx context.Context, input []llm.ContentPart, origin *history.Origin) (Launch, error) {
	if origin == nil {
		origin = history.UserOrigin()
	}
	return f.submit(ctx, TypePrompt, input, origin)
}

// Steer delivers input to the running turn at its next step boundary, or
// starts a turn with it when the agent is idle. origin nil means the user.
func (f *TurnFlow) Steer(ctx context.Context, input []llm.ContentPart, origin *history.Origin) (Launch, error) {
	if origin == nil {
		origin = history.UserOrigin()
	}
	return f.submit(ctx, TypeSteer, input, origin)
}

// Retry runs the model again on the existing history: a prompt with no
// input and a retry origin, so no message is added and no UserPromptSubmit
// hook runs.
func (f *TurnFlow) Retry(ctx context.Context, trigger string) (Launch, error) {
	return f.Prompt(ctx, nil, &history.Origin{Kind: history.OriginRetry, Trigger: history.Trigger(trigger)})
}

// submit is Prompt and Steer: decide, record, then act.
func (f *TurnFlow) submit(ctx context.Context, typ records.Type, input []llm.ContentPart, origin *history.Origin) (Launch, error) {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return Launch{}, ErrClosed
	}
	var (
		l        = Launch{TurnID: f.turnID}
		t        *activeTurn
		buffered uint64
		busy     bool
	)
	switch {
	case f.active != nil && typ == TypePrompt:
		busy = true
	case f.active != nil || f.o.Compactor.IsCompacting():
		f.steerSeq++
		buffered = f.steerSeq
		f.steers = append(f.steers, bufferedIn{input: input, origin: origin, seq: buffered})
		l.Buffered = true
	default:
		t = f.launchLocked()
		l = Launch{TurnID: t.id, Launched: true}
	}
	f.mu.Unlock()

	rec := InputRecord{Input: input, Origin: origin}
	if t != nil {
		id := t.id
		rec.TurnID = &id
	}
	if err := f.o.Commit.Commit(ctx, typ, rec); err != nil {
		err = fmt.Errorf("record %s: %w", typ, err)
		f.withdraw(t, buffered, err)
		return Launch{}, err
	}
	if t != nil {
		// A prompt is accepted once it is in the file; its fsync runs
		// while the turn builds and sends its first request, and the
		// response waits for it (agent.generate).
		if err := f.written(ctx); err != nil {
			f.withdraw(t, 0, err)
			f.emit(event.Error{Header: event.InTurn(event.NoTurn), ErrorPayload: event.ErrorOf(err)})
			return Launch{}, err
		}
	}
	if busy {
		f.emit(event.Error{Header: event.InTurn(event.NoTurn), ErrorPayload: busyPayload(l.TurnID)})
	}
	if t != nil {
		go f.work(t, input, origin)
	}
	return l, nil
}

// launchLocked allocates the next turn and makes it active. The caller
// holds mu and must either start its worker or withdraw it.
func (f *TurnFlow) launchLocked() *activeTurn {
	f.turnID++
	ctx, cancel := context.WithCancelCause(f.base)
	t := &activeTurn{id: f.turnID, ctx: ctx, cancel: cancel, prev: f.last,
		first: newFirstRequest(), done: make(chan struct{})}
	f.active, f.last = t, t
	f.wg.Add(1)
	return t
}

// withdraw undoes a submission whose record could not be written, or
// made durable, because of err.
func (f *TurnFlow) withdraw(t *activeTurn, buffered uint64, err error) {
	f.mu.Lock()
	if buffered != 0 {
		for i := range f.steers {
			if f.steers[i].seq == buffered {
				f.steers = append(f.steers[:i], f.steers[i+1:]...)
				break
			}
		}
	}
	if t != nil && f.active == t {
		f.active = nil
	}
	f.mu.Unlock()
	if t != nil {
		t.cancel(err)
		p := withTurnID(event.ErrorOf(err), t.id)
		t.finish(Result{Event: event.TurnEnded{Header: event.InTurn(t.id), Reason: event.EndFailed, Error: &p}})
		f.wg.Done()
	}
}

// Cancel records turn.cancel and stops the running turn with cause (nil
// means loop.ErrUserCancelled). A turnID other than the current one is
// recorded and ignored. When Cancel returns, HasActiveTurn is false; the
// cancelled turn still finishes its bookkeeping and ends with turn.ended
// {cancelled}, and a turn launched meanwhile waits for it.
func (f *TurnFlow) Cancel(ctx context.Context, turnID *int, cause error) error {
	if err := f.o.Commit.Commit(ctx, TypeCancel, CancelRecord{TurnID: turnID}); err != nil {
		return fmt.Errorf("record %s: %w", TypeCancel, err)
	}
	f.mu.Lock()
	t := f.active
	if t == nil || (turnID != nil && *turnID != f.turnID) {
		f.mu.Unlock()
		return nil
	}
	f.active = nil
	f.mu.Unlock()
	if cause == nil {
		cause = loop.ErrUserCancelled
	}
	t.cancel(cause)
	return nil
}

// CurrentID is the last allocated turn id, even after that turn ended; -1
// before the first turn.
func (f *TurnFlow) CurrentID() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.turnID
}

// HasActiveTurn reports a running turn. It is true as soon as Prompt
// launched one and false before turn.ended is published.
func (f *TurnFlow) HasActiveTurn() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.active != nil
}

// OnCompactionFinished is called by the compactor in every terminal path.
// Input that waited for it goes into the running turn, or the first of it
// starts a turn and the rest follow at that turn's first step boundary.
func (f *TurnFlow) OnCompactionFinished(ctx context.Context) {
	f.mu.Lock()
	if len(f.steers) == 0 || f.closed {
		f.mu.Unlock()
		return
	}
	if f.active != nil {
		f.mu.Unlock()
		if _, err := f.flushSteers(ctx); err != nil {
			f.log.Warn("deliver input after compaction failed", "error", err)
		}
		return
	}
	f.launchBufferedLocked(ctx)
}

// launchLeftover starts a turn for input buffered after the ended turn's
// last step boundary: a steer (the user's, a background task's
// notification) that arrived while that turn was finishing would
// otherwise wait for a prompt that may never come. Input left by a
// cancelled turn waits for the next prompt instead.
func (f *TurnFlow) launchLeftover(ctx context.Context) {
	f.mu.Lock()
	if f.closed || f.active != nil || len(f.steers) == 0 || f.o.Compactor.IsCompacting() {
		f.mu.Unlock()
		return
	}
	f.launchBufferedLocked(ctx)
}

// launchBufferedLocked starts a turn with the first buffered input; the
// rest follows at that turn's first step boundary. The caller holds mu,
// which it releases.
func (f *TurnFlow) launchBufferedLocked(ctx context.Context) {
	first := f.steers[0]
	f.steers = f.steers[1:]
	t := f.launchLocked()
	f.mu.Unlock()
	// The input's record was written without a turn id when it was
	// buffered; this one counts the turn on resume.
	if err := f.o.Commit.Commit(ctx, TypeLaunch, LaunchRecord{TurnID: t.id}); err != nil {
		f.log.Warn("record turn launched for buffered input failed", "turn", t.id, "error", err)
	}
	go f.work(t, first.input, first.origin)
}

// ObserveTurnID raises the turn counter to n; it never lowers it. The
// agent's apply calls it for every record that carries a turn id, live and
// on resume, so a resumed agent continues the numbering.
func (f *TurnFlow) ObserveTurnID(n int) {
	f.mu.Lock()
	if n > f.turnID {
		f.turnID = n
	}
	f.mu.Unlock()
}

// FinishResume drops input buffered before the process stopped (spec 02
// §6.10): a steer that never reached history is lost.
func (f *TurnFlow) FinishResume() {
	f.mu.Lock()
	f.steers = nil
	f.mu.Unlock()
}

// Close cancels the running turn and waits until every worker has
// finished, or ctx ends.
func (f *TurnFlow) Close(ctx context.Context) error {
	f.mu.Lock()
	f.closed = true
	t := f.active
	f.mu.Unlock()
	if t != nil {
		t.cancel(ErrClosed)
	}
	done := make(chan struct{})
	go func() { f.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("close turn flow: %w", ctx.Err())
	}
}

// release clears the active slot if t still holds it; a turn launched
// after a Cancel is never clobbered.
func (f *TurnFlow) release(t *activeTurn) {
	f.mu.Lock()
	if f.active == t {
		f.active = nil
	}
	f.mu.Unlock()
}

// allocate gives the running worker the next turn id (goal continuations).
func (f *TurnFlow) allocate() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.turnID++
	return f.turnID
}

func (t *activeTurn) finish(r Result) {
	t.res = r
	close(t.done)
}

func (f *TurnFlow) emit(ev event.Event) {
	if f.o.Events != nil {
		f.o.Events.Publish(ev)
	}
}

func (f *TurnFlow) flush(ctx context.Context) error {
	if err := f.o.Commit.Flush(ctx); err != nil {
		var fe *FlushError
		if errors.As(err, &fe) {
			return err
		}
		return &FlushError{Err: err}
	}
	return nil
}

func (f *TurnFlow) written(ctx context.Context) error {
	if err := f.o.Commit.Written(ctx); err != nil {
		var fe *FlushError
		if errors.As(err, &fe) {
			return err
		}
		return &FlushError{Err: err}
	}
	return nil
}

// noUsage is the UsageRecorder of a flow without accounting.
type noUsage struct{}

func (noUsage) BeginTurn()                                               {}
func (noUsage) EndTurn()                                                 {}
func (noUsage) RecordStep(context.Context, string, llm.TokenUsage) error { return nil }
