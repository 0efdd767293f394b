package batch

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
)

// initialLaunchLimit is how many tasks start at once (spec 05 §5.7).
const initialLaunchLimit = 5

// Timing are the scheduler's intervals. The zero value, and any zero
// field, is spec 05 §5.7's: a ramp of 700 ms, a rate-limit retry base of
// 3 s, capacity shrinks at most every 2 s and grows after 3 quiet
// minutes. Only tests that drive a real host on the wall clock change
// them, to keep a batch short.
type Timing struct {
	Ramp, RetryBase, ShrinkEvery, RecoverAfter time.Duration
}

// withDefaults fills the zero fields.
func (t Timing) withDefaults() Timing {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&t.Ramp, 700*time.Millisecond)
	def(&t.RetryBase, 3*time.Second)
	def(&t.ShrinkEvery, 2*time.Second)
	def(&t.RecoverAfter, 3*time.Minute)
	return t
}

// never is a time that does not come.
const never = time.Duration(math.MaxInt64)

// Options configure Run. The zero value is no cap, the real clock, rate
// limits known by llm.IsProviderRateLimitError and user cancellation by
// loop.ErrUserCancelled.
type Options struct {
	// MaxConcurrency caps the attempts running at once in the normal
	// phase; 0 is no cap. The rate-limit phase has its own capacity.
	MaxConcurrency int
	// Clock tells the time and makes timers; nil is the real clock.
	Clock Clock
	// IsRateLimit reports a child that failed on a provider rate limit;
	// nil means llm.IsProviderRateLimitError.
	IsRateLimit func(error) bool
	// Timing changes the intervals; zero is the spec's.
	Timing Timing
	// Logger receives logs; nil discards.
	Logger *slog.Logger
}

// Clock is the scheduler's time: Now, and timers that deliver once.
type Clock interface {
	Now() time.Time
	// After returns a channel that receives once d has passed, and a stop
	// function that releases the timer.
	After(d time.Duration) (<-chan time.Time, func())
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) After(d time.Duration) (<-chan time.Time, func()) {
	t := time.NewTimer(d)
	return t.C, func() { t.Stop() }
}

// Run runs tasks through l and returns one result per task, in input
// order. ctx is the batch's: when it is cancelled by the user
// (loop.ErrUserCancelled) Run returns the finished results and marks the
// others aborted; any other cancellation fails the batch with its cause.
// Run returns only after every attempt it started has ended.
func Run(ctx context.Context, l Launcher, tasks []Task, o Options) ([]Result, error) {
	if len(tasks) == 0 {
		return []Result{}, nil
	}
	b := newBatch(ctx, l, tasks, o)
	return b.loop()
}

// taskState is a task and what the scheduler knows about it. Only the
// event loop touches it.
type taskState struct {
	index        int
	task         Task
	agentID      string // the child, once known
	retryAgentID string // set after a rate limit: the next attempt retries it
	retryCount   int
	retryReadyAt time.Duration // earliest relaunch, since the batch began
	started      bool          // some attempt became ready
}

// attempt is one launch of a task. Only the event loop touches its fields;
// its goroutine sees the copies it was given.
type attempt struct {
	state  *taskState
	cancel context.CancelCauseFunc
	ready  bool
}

// Events the attempts send to the loop.
type (
	launched struct {
		a       *attempt
		agentID string
	}
	ready   struct{ a *attempt }
	outcome struct {
		a           *attempt
		result      Result
		rateLimited bool
	}
)

// batch is one Run: the event loop's state.
type batch struct {
	ctx    context.Context
	l      Launcher
	o      Options
	clock  Clock
	logger *slog.Logger
	t0     time.Time

	events chan any
	done   chan struct{} // closed when the loop has returned
	wg     sync.WaitGroup
	// lastLaunch is closed when the last started attempt's launch
	// returned; nil before the first.
	lastLaunch chan struct{}

	states  []*taskState
	pending []*taskState
	results []*Result
	active  map[*attempt]struct{}

	normalLaunches int
	normalAt       time.Duration // the ramp's next launch; never when unset

	rateLimited         bool
	readyNormal         int // normal-phase launches that became ready
	capacity            int
	lastRateLimitAt     time.Duration // never before the first
	lastShrinkAt        time.Duration
	lastRecoveryAt      time.Duration // 0 before the first
	interval            time.Duration
	nextRateLimitLaunch time.Duration
	rateLimitAt         time.Duration // the rate-limit phase's wake-up; never when unset
}

func newBatch(ctx context.Context, l Launcher, tasks []Task, o Options) *batch {
	b := &batch{
		ctx: ctx, l: l, o: o, clock: o.Clock, logger: o.Logger,
		events: make(chan any), done: make(chan struct{}),
		results: make([]*Result, len(tasks)), active: map[*attempt]struct{}{},
		normalAt: never, capacity: 1, lastRateLimitAt: never, lastShrinkAt: never,
		rateLimitAt: never,
	}
	b.o.Timing = o.Timing.withDefaults()
	b.interval = b.o.Timing.RetryBase
	if b.clock == nil {
		b.clock = realClock{}
	}
	if b.logger == nil {
		b.logger = slog.New(slog.DiscardHandler)
	}
	if b.o.IsRateLimit == nil {
		b.o.IsRateLimit = llm.IsProviderRateLimitError
	}
	b.t0 = b.clock.Now()
	for i, t := range tasks {
		s := &taskState{index: i, task: t}
		b.states = append(b.states, s)
		b.pending = append(b.pending, s)
	}
	return b
}

// now is the time since the batch began.
func (b *batch) now() time.Duration { return b.clock.Now().Sub(b.t0) }

// loop is the event loop: it launches what may start, sleeps until the
// next event or wake-up, and returns when every task has a result or the
// batch is cancelled.
func (b *batch) loop() ([]Result, error) {
	defer b.close()
	for {
		if out, ok := b.complete(); ok {
			return out, nil
		}
		if b.ctx.Err() != nil {
			return b.cancelled()
		}
		now := b.now()
		b.schedule(now)
		var wake <-chan time.Time
		stop := func() {}
		if at := min(b.normalAt, b.rateLimitAt); at != never {
			wake, stop = b.clock.After(max(0, at-now))
		}
		select {
		case ev := <-b.events:
			b.handle(ev)
		case <-wake:
			b.woke()
		case <-b.ctx.Done():
		}
		stop()
	}
}

// close cancels every attempt still running, waits for their goroutines
// and lets late readiness callbacks return.
func (b *batch) close() {
	for a := range b.active {
		a.cancel(context.Cause(b.ctx))
	}
	waited := make(chan struct{})
	go func() { b.wg.Wait(); close(waited) }()
	for {
		select {
		case <-b.events: // an attempt reporting as it winds down
		case <-waited:
			close(b.done)
			return
		}
	}
}

// complete returns the results once every task has one.
func (b *batch) complete() ([]Result, bool) {
	out := make([]Result, len(b.results))
	for i, r := range b.results {
		if r == nil {
			return nil, false
		}
		out[i] = *r
	}
	return out, true
}

// cancelled ends a batch whose ctx is done (spec 05 §5.7): a user
// cancellation keeps what finished and marks the rest aborted; any other
// cause fails the batch.
func (b *batch) cancelled() ([]Result, error) {
	cause := context.Cause(b.ctx)
	if !errors.Is(cause, loop.ErrUserCancelled) {
		return nil, fmt.Errorf("subagent batch: %w", cause)
	}
	out := make([]Result, len(b.states))
	for i, s := range b.states {
		switch {
		case b.results[i] != nil:
			out[i] = *b.results[i]
		case s.started || s.agentID != "":
			out[i] = Result{Task: s.task, AgentID: s.agentID, Status: StatusAborted, State: StateStarted, Error: msgAbortedStarted}
		default:
			out[i] = Result{Task: s.task, Status: StatusAborted, State: StateNotStarted, Error: msgAbortedUnstarted}
		}
	}
	return out, nil
}

// handle applies one event of an attempt.
func (b *batch) handle(ev any) {
	switch ev := ev.(type) {
	case launched:
		if _, ok := b.active[ev.a]; ok {
			ev.a.state.agentID = ev.agentID
		}
	case ready:
		b.markReady(ev.a)
	case outcome:
		b.finish(ev)
	}
}

// woke handles the wake-up timer.
func (b *batch) woke() {
	now := b.now()
	if b.rateLimited {
		b.rateLimitAt = never // schedule decides again
		return
	}
	if b.normalAt == never || now < b.normalAt {
		return
	}
	b.normalAt = never
	if len(b.pending) == 0 || b.atCap() {
		return
	}
	b.start(b.takePending(0))
	b.normalLaunches++
}

// schedule launches whatever may start now and sets the next wake-up.
func (b *batch) schedule(now time.Duration) {
	if b.rateLimited {
		b.scheduleRateLimited(now)
		return
	}
	for b.normalLaunches < initialLaunchLimit && len(b.pending) > 0 && !b.atCap() {
		b.start(b.takePending(0))
		b.normalLaunches++
	}
	if len(b.pending) == 0 || b.normalAt != never || b.atCap() {
		return
	}
	b.normalAt = now + b.o.Timing.Ramp
}

// atCap reports the normal phase's cap reached.
func (b *batch) atCap() bool {
	return b.o.MaxConcurrency > 0 && len(b.active) >= b.o.MaxConcurrency
}

// scheduleRateLimited starts at most one task: only below capacity, after
// the global launch time and the task's own eligibility.
func (b *batch) scheduleRateLimited(now time.Duration) {
	b.rateLimitAt = never
	if len(b.pending) == 0 {
		return
	}
	b.recoverCapacity(now)
	if len(b.active) >= b.capacity {
		b.wakeAt(b.nextRecovery(), now)
		return
	}
	allowed := max(b.nextRateLimitLaunch, b.nextPendingReady())
	if next := min(allowed, b.nextRecovery()); next > now {
		b.wakeAt(next, now)
		return
	}
	i := slices.IndexFunc(b.pending, func(s *taskState) bool { return s.retryReadyAt <= now })
	if i < 0 {
		return
	}
	b.start(b.takePending(i))
	b.nextRateLimitLaunch = now + b.interval
	if len(b.pending) == 0 {
		return
	}
	if len(b.active) >= b.capacity {
		b.wakeAt(b.nextRecovery(), now)
		return
	}
	b.wakeAt(min(max(b.nextRateLimitLaunch, b.nextPendingReady()), b.nextRecovery()), now)
}

// wakeAt sets the rate-limit wake-up to at, when it is to come.
func (b *batch) wakeAt(at, now time.Duration) {
	if at != never && at > now {
		b.rateLimitAt = at
	}
}

func (b *batch) nextPendingReady() time.Duration {
	next := never
	for _, s := range b.pending {
		next = min(next, s.retryReadyAt)
	}
	return next
}

// nextRecovery is when capacity grows again: 3 minutes after the later of
// the last rate limit and the last recovery, while work is queued.
func (b *batch) nextRecovery() time.Duration {
	if len(b.pending) == 0 || b.lastRateLimitAt == never {
		return never
	}
	return max(b.lastRateLimitAt, b.lastRecoveryAt) + b.o.Timing.RecoverAfter
}

// recoverCapacity grows capacity by one after a quiet window, and lets one
// more task launch at once.
func (b *batch) recoverCapacity(now time.Duration) {
	if b.nextRecovery() > now {
		return
	}
	b.capacity++
	b.lastRecoveryAt = now
	b.nextRateLimitLaunch = min(b.nextRateLimitLaunch, now)
}

// takePending removes and returns the i-th queued task.
func (b *batch) takePending(i int) *taskState {
	s := b.pending[i]
	b.pending = slices.Delete(b.pending, i, i+1)
	return s
}

// markReady records an attempt's first model request.
func (b *batch) markReady(a *attempt) {
	if _, ok := b.active[a]; !ok || a.ready {
		return
	}
	a.ready = true
	a.state.started = true
	if !b.rateLimited {
		b.readyNormal++
		return
	}
	b.interval = b.o.Timing.RetryBase
	b.nextRateLimitLaunch = b.now() + b.interval
}

// finish takes an attempt's outcome.
func (b *batch) finish(o outcome) {
	if _, ok := b.active[o.a]; !ok {
		return
	}
	delete(b.active, o.a)
	s := o.a.state
	if o.result.AgentID != "" {
		s.agentID = o.result.AgentID
	}
	switch {
	case !o.rateLimited:
		r := o.result
		b.results[s.index] = &r
	case b.onlyUnfinished(s):
		r := o.result
		r.Status, r.State = StatusFailed, StateStarted
		b.results[s.index] = &r
	default:
		b.requeue(o.a, o.result.AgentID)
	}
}

// onlyUnfinished reports s as the one task without a result.
func (b *batch) onlyUnfinished(s *taskState) bool {
	for i, r := range b.results {
		if i != s.index && r == nil {
			return false
		}
	}
	return true
}

// requeue puts a rate-limited task back at the front, to retry the same
// child after its delay, and enters or tightens the rate-limit phase.
func (b *batch) requeue(a *attempt, agentID string) {
	s := a.state
	s.agentID, s.retryAgentID = agentID, agentID
	b.l.Suspended(s.task, agentID, SuspendedReason)
	now := b.now()
	b.lastRateLimitAt = now
	s.retryCount++
	delay := b.o.Timing.RetryBase << min(s.retryCount-1, 20) // 20 doublings: past any sensible wait, no overflow
	s.retryReadyAt = now + delay
	b.pending = slices.Insert(b.pending, 0, s)
	b.enterRateLimited(now)
	if !a.ready {
		b.interval = max(b.interval*2, delay)
		b.nextRateLimitLaunch = max(b.nextRateLimitLaunch, now+b.interval)
	} else {
		b.nextRateLimitLaunch = max(b.nextRateLimitLaunch, now+b.o.Timing.RetryBase)
	}
	b.logger.Warn("subagent rate limited", "agent_id", agentID, "retry_in_ms", delay.Milliseconds(), "capacity", b.capacity)
}

// enterRateLimited starts the rate-limit phase, or shrinks its capacity.
func (b *batch) enterRateLimited(now time.Duration) {
	if b.rateLimited {
		b.shrink(now, false)
		return
	}
	b.rateLimited = true
	b.normalAt = never
	b.capacity = max(1, b.readyNormal)
	b.nextRateLimitLaunch = max(b.nextRateLimitLaunch, now+b.o.Timing.RetryBase)
	b.shrink(now, true)
}

// shrink lowers capacity by one (to at least one), at most once per 2 s
// unless forced.
func (b *batch) shrink(now time.Duration, force bool) {
	if !force && b.lastShrinkAt != never && now-b.lastShrinkAt < b.o.Timing.ShrinkEvery {
		return
	}
	b.capacity = max(1, b.capacity-1)
	b.lastShrinkAt = now
}
