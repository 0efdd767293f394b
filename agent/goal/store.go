package goal

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/kimigo/kimigo/internal/runes"
	"github.com/kimigo/kimigo/tools"
)

// MaxTextRunes bounds an objective and a completion criterion, in
// Unicode code points (spec 04 §6.10).
const MaxTextRunes = 4000

// Reasons the runtime gives when it stops a goal.
const (
	ReasonBudget  = "A configured budget was reached"
	ReasonResumed = "Paused after agent resume"
)

// Error is a goal operation's refusal: Code is stable (goal.not_found, …)
// and Message says what was wrong. Errors with the same code match with
// errors.Is.
type Error struct {
	Code    string
	Message string
}

func (e *Error) Error() string { return e.Message }

// Is matches errors of the same code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// The refusals of goal operations.
var (
	ErrNotFound         = &Error{Code: "goal.not_found", Message: "No current goal"}
	ErrAlreadyExists    = &Error{Code: "goal.already_exists", Message: "A goal already exists; use replace to start a new one"}
	ErrObjectiveEmpty   = &Error{Code: "goal.objective_empty", Message: "Goal objective cannot be empty"}
	ErrObjectiveTooLong = &Error{Code: "goal.objective_too_long", Message: fmt.Sprintf("Goal objective is longer than "+
		"%d characters; put the long content in a file and refer to its path in the objective", MaxTextRunes)}
	ErrStatusInvalid = &Error{Code: "goal.status_invalid", Message: "The goal's status does not allow this"}
)

// Snapshot is a goal as it is at one instant.
type Snapshot = tools.GoalSnapshot

// Options configure a Store.
type Options struct {
	// Now is the clock of the wall-clock budget; nil means time.Now. The
	// agent passes the clock it stamps records with.
	Now func() time.Time
	// NewID names a new goal; nil means a random UUID.
	NewID func() string
	// Logger receives logs; nil discards.
	Logger *slog.Logger
}

// state is the goal as records built it.
type state struct {
	id, objective, criterion string
	status                   tools.GoalStatus
	turns, tokens            int
	wallMs                   int64     // active time of the closed intervals, up to resumedAt
	resumedAt                time.Time // start of the open active interval; zero when none
	limits                   tools.GoalBudgetLimits
	reason                   string
}

// Store is one main agent's goal (spec 04 §6): at most one, changed only
// through Apply of the records its operations commit, so a resume rebuilds
// it exactly. Paused and blocked goals stay on disk; a completed goal is
// announced and cleared at once. It is also the turn's goal driver view
// (driver.go), the goal tools' view (tools.go), the goal-start policy
// (policy.go) and the goal reminder (reminder.go). Every method is safe
// for concurrent use.
type Store struct {
	o      Options
	logger *slog.Logger

	// op serializes the operations: each reads the goal, commits records
	// and lets Apply change it. It is taken before the agent's state lock
	// (inside Commit), never after it.
	op sync.Mutex

	mu    sync.Mutex // guards the fields below; taken by Apply under the agent's lock
	host  Host
	g     *state
	queue []Upcoming // goals queued by /goal next, oldest first
	// next is set when the head of the queue is due to start once the
	// running turn ends: the goal completed, or a goal was queued with
	// none current. It is the runtime's intent, never restored: a resumed
	// session starts nothing by itself.
	next bool
}

// New returns an empty store for o.
func New(o Options) *Store {
	s := &Store{o: o, logger: o.Logger}
	if s.o.Now == nil {
		s.o.Now = time.Now
	}
	if s.o.NewID == nil {
		s.o.NewID = newUUID
	}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	return s
}

// Bind connects the store to its agent; the agent calls it once, when it
// is built. Unbound, records are applied without being kept and events go
// nowhere.
func (s *Store) Bind(h Host) {
	s.mu.Lock()
	s.host = h
	s.mu.Unlock()
}

func (s *Store) bound() Host {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.host
}

// Get returns the goal now, or nil when there is none.
func (s *Store) Get() *Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.snapshotLocked(s.o.Now())
}

// SnapshotAt returns the goal as it was at t, for the replay stream; nil
// when there is none.
func (s *Store) SnapshotAt(t time.Time) *Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.snapshotLocked(t)
}

// snapshotLocked is the goal at now; the caller holds mu.
func (s *Store) snapshotLocked(now time.Time) *Snapshot {
	g := s.g
	if g == nil {
		return nil
	}
	wall := g.liveWall(now)
	return &Snapshot{GoalID: g.id, Objective: g.objective, CompletionCriterion: g.criterion, Status: g.status,
		TurnsUsed: g.turns, TokensUsed: g.tokens, WallClockMs: wall, BudgetLimits: g.limits, TerminalReason: g.reason,
		Budget: tools.ComputeGoalBudget(g.turns, g.tokens, wall, g.limits)}
}

// liveWall is the active time up to now.
func (g *state) liveWall(now time.Time) int64 {
	if g.status == tools.GoalActive && !g.resumedAt.IsZero() {
		return g.wallMs + max(0, now.Sub(g.resumedAt).Milliseconds())
	}
	return g.wallMs
}

// Status is the goal's status, "" when there is none.
func (s *Store) Status() tools.GoalStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.g == nil {
		return ""
	}
	return s.g.status
}

// Apply applies one of goal mode's records, live right after its commit
// and on resume; at is the record's time, which opens an active interval.
// It never writes, emits or reads a clock. An update or a clear without a
// goal changes nothing.
func (s *Store) Apply(p Payload, at time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch r := p.(type) {
	case CreateRecord:
		if strings.TrimSpace(r.Objective) == "" {
			return fmt.Errorf("apply %s: objective is empty", TypeCreate)
		}
		s.g = &state{id: r.GoalID, objective: r.Objective, criterion: r.CompletionCriterion,
			status: tools.GoalActive, resumedAt: at}
		s.queue = slices.DeleteFunc(s.queue, func(u Upcoming) bool { return u.ID == r.GoalID })
		s.next = false
	case UpdateRecord:
		if err := r.check(); err != nil {
			return fmt.Errorf("apply %s: %w", TypeUpdate, err)
		}
		if s.g != nil {
			s.g.update(r, at)
		}
	case ClearRecord:
		s.g = nil
	case QueueRecord:
		if err := r.check(); err != nil {
			return fmt.Errorf("apply %s: %w", TypeQueue, err)
		}
		s.queue = slices.Clone(r.Upcoming)
		if len(s.queue) == 0 {
			s.next = false
		}
	default:
		return fmt.Errorf("apply goal record: unsupported payload %T", p)
	}
	return nil
}

// update applies r at time at.
func (g *state) update(r UpdateRecord, at time.Time) {
	switch {
	case r.WallClockMs != nil:
		g.wallMs = *r.WallClockMs
		if !g.resumedAt.IsZero() {
			g.resumedAt = at // the record closed the interval up to its time
		}
	case r.Status != "" && !g.resumedAt.IsZero(): // an older record: close the interval at its time
		g.wallMs += max(0, at.Sub(g.resumedAt).Milliseconds())
		g.resumedAt = at
	}
	if r.Status != "" {
		g.status = r.Status
		if r.Status == tools.GoalActive {
			g.reason = ""
			if g.resumedAt.IsZero() {
				g.resumedAt = at
			}
		} else {
			g.reason = r.Reason
			g.resumedAt = time.Time{}
		}
	}
	if r.TurnsUsed != nil {
		g.turns = *r.TurnsUsed
	}
	if r.TokensUsed != nil {
		g.tokens = *r.TokensUsed
	}
	if r.BudgetLimits != nil {
		g.limits = *r.BudgetLimits
	}
}

// DropForFork clears a goal copied from the source of a fork (the forked
// record, spec 02 §6.3), and the queue after it, and reports whether there
// was a goal; the caller adds the fork reminder (ForkReminder). Like Apply
// it writes nothing.
func (s *Store) DropForFork() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	had := s.g != nil
	s.g, s.queue, s.next = nil, nil, false
	return had
}

// commit hands p to the host, or applies it when the store is unbound.
func (s *Store) commit(ctx context.Context, p Payload) error {
	h := s.bound()
	if h == nil {
		return s.Apply(p, s.o.Now())
	}
	if err := h.Commit(ctx, p); err != nil {
		return fmt.Errorf("commit %s: %w", p.RecordType(), err)
	}
	return nil
}

// publish sends ev when the store is bound; the caller holds no lock.
func (s *Store) publish(ev Event) {
	if h := s.bound(); h != nil {
		h.Publish(ev)
	}
}

// current returns the goal now, under mu.
func (s *Store) current() (*Snapshot, int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.o.Now()
	snap := s.snapshotLocked(now)
	if snap == nil {
		return nil, 0
	}
	return snap, snap.WallClockMs
}

// Create starts a goal (spec 04 §6.3 CreateGoal). The objective is
// trimmed and must hold 1 to 4,000 characters; the criterion is trimmed
// and cut to 4,000. An existing goal is an error unless in.Replace, which
// clears it first.
func (s *Store) Create(ctx context.Context, in tools.GoalInput, actor Actor) (Snapshot, error) {
	objective := strings.TrimSpace(in.Objective)
	switch {
	case objective == "":
		return Snapshot{}, ErrObjectiveEmpty
	case utf8.RuneCountInString(objective) > MaxTextRunes:
		return Snapshot{}, ErrObjectiveTooLong
	}
	criterion := runes.Prefix(strings.TrimSpace(in.CompletionCriterion), MaxTextRunes)
	s.op.Lock()
	var events []Event
	snap, err := func() (Snapshot, error) {
		if cur, _ := s.current(); cur != nil {
			if !in.Replace {
				return Snapshot{}, ErrAlreadyExists
			}
			if err := s.commit(ctx, ClearRecord{}); err != nil {
				return Snapshot{}, err
			}
			events = append(events, Event{})
		}
		_ = actor // the actor is for telemetry, which goal records do not carry on create
		if err := s.commit(ctx, CreateRecord{GoalID: s.o.NewID(), Objective: objective, CompletionCriterion: criterion}); err != nil {
			return Snapshot{}, err
		}
		cur, _ := s.current()
		events = append(events, Event{Snapshot: cur})
		return *cur, nil
	}()
	s.op.Unlock()
	for _, ev := range events {
		s.publish(ev)
	}
	return snap, err
}

// setStatus moves an existing goal to status with reason, when allowed
// by from (the statuses it may leave); it reports the snapshot after, or
// nil when nothing changed. The caller holds op.
func (s *Store) setStatus(ctx context.Context, status tools.GoalStatus, reason string, actor Actor,
	from ...tools.GoalStatus) (*Snapshot, error) {
	cur, wall := s.current()
	if cur == nil || !containsStatus(from, cur.Status) {
		return nil, nil
	}
	if err := s.commit(ctx, UpdateRecord{Status: status, Reason: reason, WallClockMs: &wall, Actor: actor}); err != nil {
		return nil, err
	}
	after, _ := s.current()
	return after, nil
}

func containsStatus(list []tools.GoalStatus, st tools.GoalStatus) bool {
	for _, s := range list {
		if s == st {
			return true
		}
	}
	return false
}

// lifecycle runs a status change and publishes its event.
func (s *Store) lifecycle(ctx context.Context, status tools.GoalStatus, reason string, actor Actor,
	from ...tools.GoalStatus) (*Snapshot, error) {
	s.op.Lock()
	after, err := s.setStatus(ctx, status, reason, actor, from...)
	s.op.Unlock()
	if after != nil {
		s.publish(Event{Snapshot: after, Change: &Change{Kind: ChangeLifecycle, Status: status, Reason: reason, Actor: actor}})
	}
	return after, err
}

// Pause pauses the active goal at the user's request (pauseGoal): a
// paused goal stays paused, a blocked one cannot be paused, and without a
// goal it fails with ErrNotFound.
func (s *Store) Pause(ctx context.Context, reason string) error {
	switch s.Status() {
	case "":
		return ErrNotFound
	case tools.GoalPaused:
		return nil
	case tools.GoalBlocked:
		return &Error{Code: ErrStatusInvalid.Code, Message: `Cannot pause a goal in status "blocked"`}
	}
	_, err := s.lifecycle(ctx, tools.GoalPaused, reason, ActorUser, tools.GoalActive)
	return err
}

// PauseActive pauses an active goal after a failed turn (actor runtime);
// without an active goal it does nothing.
func (s *Store) PauseActive(ctx context.Context, reason string) error {
	_, err := s.lifecycle(ctx, tools.GoalPaused, reason, ActorRuntime, tools.GoalActive)
	return err
}

// PauseOnInterrupt pauses an active goal whose turn the user cancelled
// (actor user); without an active goal it does nothing.
func (s *Store) PauseOnInterrupt(ctx context.Context, reason string) error {
	_, err := s.lifecycle(ctx, tools.GoalPaused, reason, ActorUser, tools.GoalActive)
	return err
}

// Resume makes a paused or blocked goal active again, clearing its
// reason; an active goal stays as it is, and without a goal it fails with
// ErrNotFound.
func (s *Store) Resume(ctx context.Context, actor Actor) error {
	if s.Status() == "" {
		return ErrNotFound
	}
	_, err := s.lifecycle(ctx, tools.GoalActive, "", actor, tools.GoalPaused, tools.GoalBlocked)
	return err
}

// MarkBlocked blocks an active goal with reason (actor runtime: a budget,
// a UserPromptSubmit hook); without an active goal it does nothing.
func (s *Store) MarkBlocked(ctx context.Context, reason string) error {
	_, err := s.lifecycle(ctx, tools.GoalBlocked, reason, ActorRuntime, tools.GoalActive)
	return err
}

// Block blocks the active goal as actor and returns its snapshot, nil
// when no goal is active.
func (s *Store) Block(ctx context.Context, reason string, actor Actor) (*Snapshot, error) {
	return s.lifecycle(ctx, tools.GoalBlocked, reason, actor, tools.GoalActive)
}

// Complete marks the active goal complete and clears it (spec 04 §6.3
// MarkComplete): goal.update {complete}, the completion event with the
// totals, goal.clear and the event without a goal. It returns the final
// snapshot, nil when no goal is active.
func (s *Store) Complete(ctx context.Context, reason string, actor Actor) (*Snapshot, error) {
	s.op.Lock()
	final, err := s.setStatus(ctx, tools.GoalComplete, reason, actor, tools.GoalActive)
	cleared := false
	if err == nil && final != nil {
		err = s.commit(ctx, ClearRecord{})
		cleared = err == nil
	}
	if cleared {
		s.mu.Lock()
		s.next = len(s.queue) > 0 // the next goal starts once this turn ends
		s.mu.Unlock()
	}
	s.op.Unlock()
	if final != nil {
		s.publish(Event{Snapshot: final, Change: &Change{Kind: ChangeCompletion, Status: tools.GoalComplete,
			Reason: reason, Stats: statsOf(*final), Actor: actor}})
	}
	if cleared {
		s.publish(Event{})
	}
	return final, err
}

// SetBudget merges limits into the goal's budgets, in any status (a budget
// can be changed, not removed), and returns the snapshot after; without a
// goal it fails with ErrNotFound.
func (s *Store) SetBudget(ctx context.Context, limits tools.GoalBudgetLimits, actor Actor) (Snapshot, error) {
	s.op.Lock()
	cur, wall := s.current()
	if cur == nil {
		s.op.Unlock()
		return Snapshot{}, ErrNotFound
	}
	merged := cur.BudgetLimits.Merge(limits)
	err := s.commit(ctx, UpdateRecord{BudgetLimits: &merged, WallClockMs: &wall, Actor: actor})
	after, _ := s.current()
	s.op.Unlock()
	if err != nil {
		return Snapshot{}, err
	}
	s.publish(Event{Snapshot: after})
	return *after, nil
}

// Cancel removes the goal in any status, and the goals queued after it,
// and returns the goal as it was (spec 04 §6.3 CancelGoal, /goal cancel);
// with neither a goal nor a queue it fails with ErrNotFound. With only a
// queue it empties the queue and returns no goal. When the user cancels a
// goal, a reminder tells the model to disregard its earlier reminders.
func (s *Store) Cancel(ctx context.Context, actor Actor) (*Snapshot, error) {
	s.op.Lock()
	cur, _ := s.current()
	queued := len(s.Upcoming())
	if cur == nil && queued == 0 {
		s.op.Unlock()
		return nil, ErrNotFound
	}
	var err error
	if cur != nil {
		err = s.commit(ctx, ClearRecord{})
	}
	if err == nil && queued > 0 {
		err = s.commit(ctx, QueueRecord{Upcoming: []Upcoming{}})
	}
	s.op.Unlock()
	if err != nil {
		return nil, err
	}
	if cur == nil {
		return nil, nil
	}
	s.publish(Event{})
	if h := s.bound(); h != nil && actor == ActorUser {
		if err := h.AppendMessage(ctx, CancelReminder()); err != nil {
			return cur, fmt.Errorf("remind of the cancelled goal: %w", err)
		}
	}
	return cur, nil
}

// NormalizeAfterReplay settles a goal restored from records (spec 04
// §6.4), as an ordinary live operation after the replay, without events:
// an active goal is paused (a goal never continues by itself after a
// restart), a goal left complete by a crash is cleared, paused and
// blocked goals stay as they are. lastRecord is the time of the log's last
// record: an active goal is charged its active time up to then, the last
// moment the agent is known to have run; the time it was down is never
// charged. It reports whether it wrote a record.
func (s *Store) NormalizeAfterReplay(ctx context.Context, lastRecord time.Time) (wrote bool, err error) {
	s.op.Lock()
	defer s.op.Unlock()
	s.mu.Lock()
	var status tools.GoalStatus
	var wall int64
	if g := s.g; g != nil {
		status, wall = g.status, g.liveWall(lastRecord)
	}
	s.mu.Unlock()
	switch status {
	case tools.GoalComplete:
		return true, s.commit(ctx, ClearRecord{})
	case tools.GoalActive:
		return true, s.commit(ctx, UpdateRecord{Status: tools.GoalPaused, Reason: ReasonResumed, WallClockMs: &wall,
			Actor: ActorRuntime})
	}
	return false, nil
}

// newUUID returns a random version 4 UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
