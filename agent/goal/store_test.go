package goal_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent/goal"
	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/tools"
)

// host is the commit path of a Store under test: records are kept as the
// agent writes them and what decodes back is applied at the clock's time;
// events and messages are kept.
type host struct {
	mu     sync.Mutex
	s      *goal.Store
	clock  *clock
	mode   string
	recs   []string
	times  []time.Time
	events []goal.Event
	mem    *history.Memory
}

type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func newStore(t *testing.T) (*goal.Store, *host) {
	t.Helper()
	c := &clock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	n := 0
	s := goal.New(goal.Options{Now: c.Now, NewID: func() string { n++; return "g" + string(rune('0'+n)) }})
	h := &host{s: s, clock: c, mode: "manual", mem: history.New(history.Options{})}
	s.Bind(h)
	return s, h
}

func (h *host) Commit(_ context.Context, p goal.Payload) error {
	b, err := json.Marshal(p)
	if err != nil {
		return err
	}
	back, err := goal.DecodeRecord(p.RecordType(), b)
	if err != nil {
		return err
	}
	h.mu.Lock()
	h.recs = append(h.recs, string(p.RecordType())+" "+string(b))
	h.times = append(h.times, h.clock.Now())
	h.mu.Unlock()
	return h.s.Apply(back, h.clock.Now())
}

func (h *host) Publish(ev goal.Event) { h.mu.Lock(); h.events = append(h.events, ev); h.mu.Unlock() }

func (h *host) AppendMessage(_ context.Context, m history.Message) error {
	_, err := h.mem.Apply(history.AppendMessageRecord{Message: m})
	return err
}

func (h *host) PermissionMode() string { return h.mode }

func (h *host) SetPermissionMode(_ context.Context, mode string) error { h.mode = mode; return nil }

func (h *host) records() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.recs...)
}

// replay applies h's records, each at its own time, to a fresh store, as
// a resume does.
func (h *host) replay(t *testing.T) *goal.Store {
	t.Helper()
	fresh := goal.New(goal.Options{Now: h.clock.Now})
	for i, r := range h.records() {
		typ, data, _ := strings.Cut(r, " ")
		p, err := goal.DecodeRecord(goal.RecordType(typ), []byte(data))
		if err != nil {
			t.Fatal(err)
		}
		if err := fresh.Apply(p, h.times[i]); err != nil {
			t.Fatal(err)
		}
	}
	return fresh
}

func TestS65CreateValidation(t *testing.T) {
	s, _ := newStore(t)
	ctx := t.Context()
	if _, err := s.Create(ctx, tools.GoalInput{Objective: "   "}, goal.ActorUser); !errors.Is(err, goal.ErrObjectiveEmpty) {
		t.Errorf("blank objective: %v", err)
	}
	long := strings.Repeat("é", goal.MaxTextRunes+1)
	if _, err := s.Create(ctx, tools.GoalInput{Objective: long}, goal.ActorUser); !errors.Is(err, goal.ErrObjectiveTooLong) ||
		err.(*goal.Error).Code != "goal.objective_too_long" {
		t.Errorf("4,001 characters: %v", err)
	}
	snap, err := s.Create(ctx, tools.GoalInput{Objective: " work ", CompletionCriterion: long}, goal.ActorUser)
	if err != nil || snap.Objective != "work" || len([]rune(snap.CompletionCriterion)) != goal.MaxTextRunes {
		t.Errorf("create: %+v, %v", snap, err)
	}
	for _, status := range []string{"active", "paused", "blocked"} {
		switch status {
		case "paused":
			if err := s.Pause(ctx, ""); err != nil {
				t.Fatal(err)
			}
		case "blocked":
			if _, err := s.Block(ctx, "", goal.ActorModel); err != nil {
				t.Fatal(err)
			}
		}
		if status == "blocked" {
			if err := s.Resume(ctx, goal.ActorUser); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Block(ctx, "", goal.ActorModel); err != nil {
				t.Fatal(err)
			}
		}
		if got := s.Get(); got == nil || string(got.Status) != status {
			t.Fatalf("status %v; want %s", got, status)
		}
		_, err := s.Create(ctx, tools.GoalInput{Objective: "other"}, goal.ActorUser)
		if !errors.Is(err, goal.ErrAlreadyExists) || err.(*goal.Error).Code != "goal.already_exists" {
			t.Errorf("second create while %s: %v", status, err)
		}
	}
	_, h := newStore(t)
	if _, err := h.s.Create(ctx, tools.GoalInput{Objective: "a"}, goal.ActorUser); err != nil {
		t.Fatal(err)
	}
	if _, err := h.s.Create(ctx, tools.GoalInput{Objective: "b", Replace: true}, goal.ActorUser); err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, r := range h.records() {
		typ, _, _ := strings.Cut(r, " ")
		types = append(types, typ)
	}
	if d := cmp.Diff([]string{"goal.create", "goal.clear", "goal.create"}, types); d != "" {
		t.Errorf("records with replace (-want +got):\n%s", d)
	}
	if g := h.s.Get(); g == nil || g.Objective != "b" || g.GoalID != "g2" {
		t.Errorf("goal after replace %+v", g)
	}
}

func TestS74CompleteClearsState(t *testing.T) {
	s, h := newStore(t)
	ctx := t.Context()
	if _, err := s.Create(ctx, tools.GoalInput{Objective: "work"}, goal.ActorUser); err != nil {
		t.Fatal(err)
	}
	if err := s.IncrementTurn(ctx); err != nil {
		t.Fatal(err)
	}
	h.clock.Advance(2 * time.Second)
	final, err := s.Complete(ctx, "", goal.ActorModel)
	if err != nil || final == nil || final.Status != tools.GoalComplete || final.TurnsUsed != 1 || final.WallClockMs != 2000 {
		t.Fatalf("Complete = %+v, %v", final, err)
	}
	if s.Get() != nil {
		t.Errorf("goal after completion: %+v", s.Get())
	}
	n := len(h.events)
	completion, cleared := h.events[n-2], h.events[n-1]
	if completion.Change == nil || completion.Change.Kind != goal.ChangeCompletion || completion.Change.Stats == nil ||
		completion.Change.Stats.TurnsUsed != 1 || cleared.Snapshot != nil || cleared.Change != nil {
		t.Errorf("last events %+v, %+v", completion, cleared)
	}
	recs := h.records()
	if !strings.Contains(recs[len(recs)-2], `"status":"complete"`) || recs[len(recs)-1] != "goal.clear {}" {
		t.Errorf("records %v", recs)
	}
	if h.replay(t).Get() != nil {
		t.Error("a replay of the records keeps a goal")
	}
	if again, err := s.Complete(ctx, "", goal.ActorModel); again != nil || err != nil {
		t.Errorf("second Complete = %+v, %v", again, err)
	}
}

func TestS75S76NormalizeAfterReplay(t *testing.T) {
	ctx := t.Context()
	for _, tt := range []struct {
		name       string
		setup      func(s *goal.Store)
		wantStatus tools.GoalStatus
		wantReason string
		wrote      bool
		wall       int64 // active up to the last record of the log (a second after the goal's own)
	}{
		{"active becomes paused", func(*goal.Store) {}, tools.GoalPaused, goal.ReasonResumed, true, 1000},
		{"blocked stays blocked", func(s *goal.Store) { _, _ = s.Block(ctx, "needs credentials", goal.ActorModel) },
			tools.GoalBlocked, "needs credentials", false, 3000},
		{"paused stays paused", func(s *goal.Store) { _ = s.Pause(ctx, "lunch") }, tools.GoalPaused, "lunch", false, 3000},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, h := newStore(t)
			if _, err := s.Create(ctx, tools.GoalInput{Objective: "work"}, goal.ActorUser); err != nil {
				t.Fatal(err)
			}
			if err := s.IncrementTurn(ctx); err != nil {
				t.Fatal(err)
			}
			h.clock.Advance(3 * time.Second)
			tt.setup(s)
			fresh := h.replay(t)
			h2 := &host{s: fresh, clock: h.clock, mem: h.mem}
			fresh.Bind(h2)
			last := h.times[len(h.times)-1]
			h.clock.Advance(time.Hour) // the time the process was down is never charged
			wrote, err := fresh.NormalizeAfterReplay(ctx, last.Add(time.Second))
			if err != nil || wrote != tt.wrote {
				t.Fatalf("NormalizeAfterReplay = %v, %v", wrote, err)
			}
			g := fresh.Get()
			if g == nil || g.Status != tt.wantStatus || g.TerminalReason != tt.wantReason || g.TurnsUsed != 1 || g.WallClockMs != tt.wall {
				t.Errorf("goal after resume %+v", g)
			}
			if tt.wrote && (len(h2.recs) != 1 || !strings.Contains(h2.recs[0], `"status":"paused"`) ||
				!strings.Contains(h2.recs[0], `"actor":"runtime"`)) {
				t.Errorf("records of the resume %v", h2.recs)
			}
			if len(h2.events) != 0 {
				t.Errorf("the resume published %v", h2.events)
			}
		})
	}
}

func TestS77Cancel(t *testing.T) {
	s, h := newStore(t)
	ctx := t.Context()
	if _, err := s.Create(ctx, tools.GoalInput{Objective: "work"}, goal.ActorUser); err != nil {
		t.Fatal(err)
	}
	removed, err := s.Cancel(ctx, goal.ActorUser)
	if err != nil || removed.Status != tools.GoalActive || removed.Objective != "work" || s.Get() != nil {
		t.Fatalf("Cancel = %+v, %v; goal now %v", removed, err, s.Get())
	}
	msgs := h.mem.History()
	if last := msgs[len(msgs)-1]; !last.Origin.Is(history.OriginSystemTrigger) || last.Origin.Name != goal.TriggerGoalCancelled ||
		!strings.HasPrefix(llm.ExtractText(last.Message, ""), "<system-reminder>") {
		t.Errorf("last message %+v", last)
	}
	if _, err := s.Cancel(ctx, goal.ActorUser); !errors.Is(err, goal.ErrNotFound) || err.(*goal.Error).Code != "goal.not_found" {
		t.Errorf("second Cancel: %v", err)
	}
}

// The state machine's refusals and no-ops (spec 04 §6.2).
func TestStateMachine(t *testing.T) {
	s, _ := newStore(t)
	ctx := t.Context()
	for _, op := range []func() error{
		func() error { return s.Pause(ctx, "") },
		func() error { return s.Resume(ctx, goal.ActorUser) },
		func() error { _, err := s.SetBudget(ctx, tools.GoalBudgetLimits{}, goal.ActorUser); return err },
		func() error { _, err := s.Cancel(ctx, goal.ActorUser); return err },
	} {
		if err := op(); !errors.Is(err, goal.ErrNotFound) {
			t.Errorf("without a goal: %v; want goal.not_found", err)
		}
	}
	for _, op := range []func() error{
		func() error { return s.MarkBlocked(ctx, "x") },
		func() error { return s.PauseActive(ctx, "x") },
		func() error { return s.PauseOnInterrupt(ctx, "x") },
		func() error { return s.IncrementTurn(ctx) },
		func() error { _, err := s.RecordTokenUsage(ctx, 5); return err },
	} {
		if err := op(); err != nil || s.Get() != nil {
			t.Errorf("runtime operation without a goal: %v", err)
		}
	}
	if _, err := s.Create(ctx, tools.GoalInput{Objective: "work"}, goal.ActorUser); err != nil {
		t.Fatal(err)
	}
	if err := s.Pause(ctx, "user"); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkBlocked(ctx, "budget"); err != nil || s.Get().Status != tools.GoalPaused || s.Get().TerminalReason != "user" {
		t.Errorf("MarkBlocked overwrote a user pause: %+v", s.Get())
	}
	if err := s.Pause(ctx, "again"); err != nil || s.Get().TerminalReason != "user" {
		t.Errorf("pausing a paused goal changed it: %+v, %v", s.Get(), err)
	}
	if err := s.Resume(ctx, goal.ActorUser); err != nil || s.Get().Status != tools.GoalActive || s.Get().TerminalReason != "" {
		t.Errorf("resume: %+v, %v", s.Get(), err)
	}
	if err := s.MarkBlocked(ctx, goal.ReasonBudget); err != nil {
		t.Fatal(err)
	}
	if err := s.Pause(ctx, ""); err == nil || err.Error() != `Cannot pause a goal in status "blocked"` ||
		!errors.Is(err, goal.ErrStatusInvalid) {
		t.Errorf("pausing a blocked goal: %v", err)
	}
}

func TestS69OutputTokensOnly(t *testing.T) {
	s, h := newStore(t)
	ctx := t.Context()
	if _, err := s.Create(ctx, tools.GoalInput{Objective: "work"}, goal.ActorUser); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := s.RecordTokenUsage(ctx, 1); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.RecordTokenUsage(ctx, 0); err != nil {
		t.Fatal(err)
	}
	var tokens []string
	for _, r := range h.records() {
		if strings.HasPrefix(r, "goal.update") && strings.Contains(r, "tokensUsed") {
			var u goal.UpdateRecord
			_, data, _ := strings.Cut(r, " ")
			if err := json.Unmarshal([]byte(data), &u); err != nil {
				t.Fatal(err)
			}
			tokens = append(tokens, string(rune('0'+*u.TokensUsed)))
		}
	}
	if d := cmp.Diff([]string{"1", "2"}, tokens); d != "" {
		t.Errorf("tokensUsed records (-want +got):\n%s", d)
	}
	final, err := s.Complete(ctx, "", goal.ActorModel)
	if err != nil || final.TokensUsed != 2 {
		t.Errorf("completion stats %+v, %v", final, err)
	}
}

// Active time counts only while active; each resume opens a new interval.
func TestWallClock(t *testing.T) {
	s, h := newStore(t)
	ctx := t.Context()
	if _, err := s.Create(ctx, tools.GoalInput{Objective: "work"}, goal.ActorUser); err != nil {
		t.Fatal(err)
	}
	h.clock.Advance(5 * time.Second)
	if err := s.Pause(ctx, ""); err != nil {
		t.Fatal(err)
	}
	h.clock.Advance(time.Hour)
	if err := s.Resume(ctx, goal.ActorUser); err != nil {
		t.Fatal(err)
	}
	h.clock.Advance(2 * time.Second)
	if got := s.Get().WallClockMs; got != 7000 {
		t.Errorf("wall clock %d; want 7000", got)
	}
	if got := h.replay(t).Get().WallClockMs; got != 7000 {
		t.Errorf("replayed wall clock %d; want 7000 (the open interval runs from the last record)", got)
	}
	ms := int64(7000)
	if _, err := s.SetBudget(ctx, tools.GoalBudgetLimits{WallClockBudgetMs: &ms}, goal.ActorUser); err != nil {
		t.Fatal(err)
	}
	if !s.OverBudget() {
		t.Error("a goal at its wall-clock budget is not over budget")
	}
}
