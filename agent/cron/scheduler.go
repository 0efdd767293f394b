package cron

import "time"

// maxCoalesced caps how many missed fires one delivery counts.
const maxCoalesced = 10_000

// Job is one scheduled prompt (spec 05 §7.5).
type Job struct {
	// ID is 8 lowercase hex digits.
	ID     string
	Cron   string
	Prompt string
	// CreatedAt is when the job was added; LastFiredAt the ideal time of
	// its last delivered fire (zero: never), so a resume does not deliver
	// it again.
	CreatedAt   time.Time
	LastFiredAt time.Time
	Recurring   bool
}

// Fire is a job that is due.
type Fire struct {
	Job Job
	// Due is when it fired (the jittered time); LastDue the last ideal
	// fire it covers.
	Due, LastDue time.Time
	// CoalescedCount is how many ideal fires passed while none was
	// delivered (at least 1).
	CoalescedCount int
}

// Scheduler decides which jobs are due (spec 05 §7.4). It knows nothing
// about agents: the manager asks Due on each idle tick, delivers, and
// reports each delivered fire with Fired, so a fire that could not be
// delivered stays due. Computed due times are cached per job until its
// cursor moves, so a tick over many waiting jobs is a few comparisons
// each. A Scheduler is not safe for concurrent use.
type Scheduler struct {
	// NoJitter fires every job at its ideal time.
	NoJitter bool

	lastSeen map[string]time.Time
	seeded   map[string]bool
	exprs    map[string]*Expr
	due      map[string]dueCache
}

type dueCache struct {
	cron string
	base time.Time
	at   time.Time
	ok   bool
}

// NewScheduler returns an empty scheduler.
func NewScheduler() *Scheduler {
	return &Scheduler{lastSeen: map[string]time.Time{}, seeded: map[string]bool{},
		exprs: map[string]*Expr{}, due: map[string]dueCache{}}
}

// Due returns the jobs due at now, in the order given. A job whose
// expression does not parse is skipped.
func (s *Scheduler) Due(now time.Time, jobs []Job) []Fire {
	var out []Fire
	for _, j := range jobs {
		e, base := s.prepare(j, now)
		if e == nil {
			continue
		}
		at, ok := s.dueAt(j, e, base)
		if !ok || now.Before(at) {
			continue
		}
		f := Fire{Job: j, Due: at, CoalescedCount: 1}
		if !j.Recurring {
			f.LastDue, _ = e.Next(base)
			out = append(out, f)
			continue
		}
		f.CoalescedCount = 0
		ideal, ok := e.Next(base)
		for ok && !ideal.After(now) && f.CoalescedCount < maxCoalesced {
			if s.jittered(j, e, ideal).After(now) {
				break
			}
			f.CoalescedCount++
			f.LastDue = ideal
			ideal, ok = e.Next(ideal)
		}
		if f.CoalescedCount == 0 { // cannot happen: at ≤ now
			f.CoalescedCount, f.LastDue = 1, now
		}
		out = append(out, f)
	}
	return out
}

// Fired records a delivered fire: a recurring job's cursor moves to the
// last fire it covered; a one-shot job is forgotten.
func (s *Scheduler) Fired(f Fire) {
	if !f.Job.Recurring {
		s.Forget(f.Job.ID)
		return
	}
	s.lastSeen[f.Job.ID] = f.LastDue
	delete(s.due, f.Job.ID)
}

// Forget drops a job's state (it was removed).
func (s *Scheduler) Forget(id string) {
	delete(s.lastSeen, id)
	delete(s.seeded, id)
	delete(s.due, id)
}

// NextFire is the job's next jittered fire after its cursor, as Due would
// fire it; ok is false when it never fires again.
func (s *Scheduler) NextFire(j Job, now time.Time) (time.Time, bool) {
	e, base := s.prepare(j, now)
	if e == nil {
		return time.Time{}, false
	}
	return s.dueAt(j, e, base)
}

// prepare parses the job's expression (cached) and returns its cursor:
// the later of its creation and its last fire. The first sight of a job
// seeds the cursor from LastFiredAt unless that lies in the future (a
// corrupt value).
func (s *Scheduler) prepare(j Job, now time.Time) (*Expr, time.Time) {
	e, ok := s.exprs[j.Cron]
	if !ok {
		var err error
		if e, err = Parse(j.Cron); err != nil {
			return nil, time.Time{}
		}
		s.exprs[j.Cron] = e
	}
	if !s.seeded[j.ID] {
		s.seeded[j.ID] = true
		if !j.LastFiredAt.IsZero() && !j.LastFiredAt.After(now) {
			s.lastSeen[j.ID] = j.LastFiredAt
		}
	}
	base := j.CreatedAt
	if ls, ok := s.lastSeen[j.ID]; ok && ls.After(base) {
		base = ls
	}
	return e, base
}

// dueAt is the jittered first fire after base, cached.
func (s *Scheduler) dueAt(j Job, e *Expr, base time.Time) (time.Time, bool) {
	if c, ok := s.due[j.ID]; ok && c.cron == j.Cron && c.base.Equal(base) {
		return c.at, c.ok
	}
	at, ok := e.Next(base)
	if ok {
		at = s.jittered(j, e, at)
	}
	s.due[j.ID] = dueCache{cron: j.Cron, base: base, at: at, ok: ok}
	return at, ok
}

func (s *Scheduler) jittered(j Job, e *Expr, ideal time.Time) time.Time {
	switch {
	case s.NoJitter:
		return ideal
	case j.Recurring:
		return jitterRecurring(e, j.ID, ideal)
	}
	return jitterOneShot(j.ID, j.CreatedAt, ideal)
}
