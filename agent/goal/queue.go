package goal

import (
	"context"
	"slices"
	"strings"
	"unicode/utf8"
)

// The queue of upcoming goals (/goal next, spec 06 §5.11): goals that
// start one after the other, each when the one before it completed. A
// goal that is paused, blocked or cancelled starts nothing; cancelling
// empties the queue. The queue is recorded (goal.queue) so a resume
// restores it, and a fork drops it with the goal.

// Upcoming returns the queued goals, oldest first.
func (s *Store) Upcoming() []Upcoming {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.queue)
}

// Enqueue queues a goal with objective after the current one and returns
// it. The objective is checked as Create checks it. With no current goal
// the queued goal is due at once: TakeNext starts it when the running turn
// ends, or the caller starts it when nothing runs.
func (s *Store) Enqueue(ctx context.Context, objective string) (Upcoming, error) {
	objective = strings.TrimSpace(objective)
	switch {
	case objective == "":
		return Upcoming{}, ErrObjectiveEmpty
	case utf8.RuneCountInString(objective) > MaxTextRunes:
		return Upcoming{}, ErrObjectiveTooLong
	}
	s.op.Lock()
	defer s.op.Unlock()
	u := Upcoming{ID: s.o.NewID(), Objective: objective}
	if err := s.commit(ctx, QueueRecord{Upcoming: append(s.Upcoming(), u)}); err != nil {
		return Upcoming{}, err
	}
	s.mu.Lock()
	if s.g == nil {
		s.next = true
	}
	s.mu.Unlock()
	return u, nil
}

// NextPending reports that the head of the queue is due: there is no
// goal, and the last one completed or a goal was queued since. The turn
// keeps its slot while one is pending, to start it (TakeNext).
func (s *Store) NextPending() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.next && s.g == nil && len(s.queue) > 0
}

// TakeNext starts the head of the queue when it is due (NextPending) as
// the user's goal, with one goal.create that also takes it off the queue,
// and returns its objective (turn.GoalQueue); ok is false when none is
// due.
func (s *Store) TakeNext(ctx context.Context) (objective string, ok bool, err error) {
	s.op.Lock()
	if !s.NextPending() {
		s.op.Unlock()
		return "", false, nil
	}
	head := s.Upcoming()[0]
	err = s.commit(ctx, CreateRecord{GoalID: head.ID, Objective: head.Objective})
	cur, _ := s.current()
	s.op.Unlock()
	if err != nil {
		return "", false, err
	}
	s.publish(Event{Snapshot: cur})
	return head.Objective, true, nil
}
