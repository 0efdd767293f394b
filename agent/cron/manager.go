package cron

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/tools"
)

// Manager limits and defaults (spec 05 §7.4–7.6).
const (
	// DefaultInterval is how often the manager ticks.
	DefaultInterval = time.Second
	// StaleAge is the age at which a recurring job fires one last time.
	StaleAge = 7 * 24 * time.Hour
)

// Options configure a Manager. The zero value keeps jobs in memory and
// ticks every second on the wall clock, in local time, with jitter.
type Options struct {
	// Dir is the agent's home directory: jobs go to cron/<id>.json. ""
	// keeps them in memory.
	Dir string
	// FS holds Dir; nil means the local file system.
	FS osenv.FS
	// Now is the clock; nil means time.Now (KIMI_CRON_CLOCK is a Now).
	Now func() time.Time
	// Location is where schedules are read; nil means time.Local.
	Location *time.Location
	// Disabled: nothing fires and nothing can be scheduled
	// (KIMI_DISABLE_CRON=1).
	Disabled bool
	// ManualTick: no timer; the host calls Tick (KIMI_CRON_MANUAL_TICK=1).
	ManualTick bool
	// NoJitter and NoStale switch those rules off (KIMI_CRON_NO_JITTER,
	// KIMI_CRON_NO_STALE).
	NoJitter, NoStale bool
	// Interval is the tick period; 0 means DefaultInterval.
	Interval time.Duration
	// Events receives cron events besides the bound agent; nil is nobody
	// else.
	Events func(Event)
	// Logger receives lifecycle logs; nil discards.
	Logger *slog.Logger
}

// Host is the agent as the manager reaches it. Both methods are safe for
// concurrent use; the manager never holds its lock while calling them.
type Host interface {
	// Idle reports that no turn runs.
	Idle() bool
	// Steer delivers a fire; the agent being idle, it starts a turn.
	Steer(ctx context.Context, parts []llm.ContentPart, origin *history.Origin) error
	// Publish passes a cron event on to the agent's front ends.
	Publish(ev Event)
}

// Manager is a main agent's cron (spec 05 §7.5): the jobs, their files,
// and a ticker that, while the agent is idle, steers each due job's prompt
// into a new turn. Subagents have none. It implements
// tools.CronScheduler. Every method is safe for concurrent use.
type Manager struct {
	o     Options
	log   *slog.Logger
	store jobStore
	loc   *time.Location
	now   func() time.Time
	base  context.Context
	stop  context.CancelFunc

	tickMu  sync.Mutex // one tick at a time
	writeMu sync.Mutex // one job file write at a time

	mu      sync.Mutex
	host    Host           // guarded by mu
	jobs    map[string]Job // guarded by mu
	order   []string       // guarded by mu; ids in insertion order
	list    []Job          // guarded by mu; jobs in order, nil when stale
	sched   *Scheduler     // guarded by mu
	started bool           // guarded by mu
	closed  bool           // guarded by mu
	wg      sync.WaitGroup
}

var _ tools.CronScheduler = (*Manager)(nil)

// New returns a manager for o. It reads nothing until Load and ticks only
// after Start.
func New(o Options) *Manager {
	m := &Manager{o: o, log: o.Logger, loc: o.Location, now: o.Now, jobs: map[string]Job{}, sched: NewScheduler()}
	if m.log == nil {
		m.log = slog.New(slog.DiscardHandler)
	}
	if m.loc == nil {
		m.loc = time.Local
	}
	if m.now == nil {
		m.now = time.Now
	}
	if o.FS == nil {
		o.FS = osenv.NewLocal(osenv.LocalOptions{})
	}
	m.store = jobStore{fs: o.FS, dir: o.Dir}
	m.sched.NoJitter = o.NoJitter
	m.base, m.stop = context.WithCancel(context.Background())
	return m
}

// Bind connects the manager to its agent; the agent calls it once, when
// it is built.
func (m *Manager) Bind(h Host) {
	m.mu.Lock()
	m.host = h
	m.mu.Unlock()
}

// Start begins ticking (unless ticks are manual or cron is disabled); the
// agent calls it when it is ready: after New, or after Resume loaded the
// jobs. A second call does nothing.
func (m *Manager) Start() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.started || m.closed || m.o.ManualTick || m.o.Disabled {
		return
	}
	m.started = true
	interval := m.o.Interval
	if interval <= 0 {
		interval = DefaultInterval
	}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				m.Tick()
			case <-m.base.Done():
				return
			}
		}
	}()
}

// Close stops the ticker and waits for it (or ctx).
func (m *Manager) Close(ctx context.Context) error {
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	m.stop()
	done := make(chan struct{})
	go func() { m.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("close cron: %w", ctx.Err())
	}
}

// Load replaces the jobs with those on disk (a resume, spec 02 §6.14 step
// 3.3), keeping their ids and creation times. Files that are not valid
// jobs are returned and skipped.
func (m *Manager) Load() []error {
	jobs, problems := m.store.load(m.loc)
	for _, p := range problems {
		m.log.Warn("skipped a cron job file", "error", p)
	}
	sort.SliceStable(jobs, func(i, j int) bool { return jobs[i].CreatedAt.Before(jobs[j].CreatedAt) })
	m.mu.Lock()
	defer m.mu.Unlock()
	m.jobs, m.order, m.list, m.sched = map[string]Job{}, nil, nil, NewScheduler()
	m.sched.NoJitter = m.o.NoJitter
	for _, j := range jobs {
		m.jobs[j.ID] = j
		m.order = append(m.order, j.ID)
	}
	return problems
}

// Tick fires the due jobs if the agent is idle (spec 05 §7.4). While a turn
// runs nothing changes: due jobs stay due and fire at the first idle tick,
// counting the fires they missed. A fire that cannot be delivered stays
// due for the next tick.
func (m *Manager) Tick() {
	m.tickMu.Lock()
	defer m.tickMu.Unlock()
	m.mu.Lock()
	host := m.host
	if m.o.Disabled || m.closed || host == nil {
		m.mu.Unlock()
		return
	}
	m.mu.Unlock()
	if !host.Idle() {
		return
	}
	now := m.now().In(m.loc)
	m.mu.Lock()
	fires := m.sched.Due(now, m.jobListLocked())
	m.mu.Unlock()
	for _, f := range fires {
		m.fire(host, f, now)
	}
}

// fire delivers one due job and records it.
func (m *Manager) fire(host Host, f Fire, now time.Time) {
	stale := f.Job.Recurring && !m.o.NoStale && now.Sub(f.Job.CreatedAt) >= StaleAge
	o := fireOrigin(f, stale)
	m.emit(Fired{Origin: *o, Prompt: f.Job.Prompt})
	if err := host.Steer(m.base, fireParts(o, f.Job.Prompt), o); err != nil {
		m.log.Warn("deliver cron job", "job_id", f.Job.ID, "error", err)
		return
	}
	m.log.Info("cron job fired", "job_id", f.Job.ID, "coalesced_count", f.CoalescedCount, "stale", stale)
	m.mu.Lock()
	j, ok := m.jobs[f.Job.ID]
	if !ok { // deleted meanwhile
		m.mu.Unlock()
		return
	}
	m.sched.Fired(f)
	remove := !j.Recurring || stale
	if remove {
		m.deleteLocked(j.ID)
	} else {
		j.LastFiredAt = f.LastDue
		m.jobs[j.ID] = j
		m.list = nil
	}
	m.mu.Unlock()
	if remove {
		m.removeFile(j.ID)
	} else {
		m.writeFile(j)
	}
}

// Disabled implements tools.CronScheduler.
func (m *Manager) Disabled() bool { return m.o.Disabled }

// Now implements tools.CronScheduler: the clock, in the schedules'
// location.
func (m *Manager) Now() time.Time { return m.now().In(m.loc) }

// Plan implements tools.CronScheduler.
func (m *Manager) Plan(expr string, _ bool) (tools.CronPlan, error) {
	e, err := Parse(expr)
	if err != nil {
		return tools.CronPlan{}, err
	}
	p := tools.CronPlan{Cron: e.String(), Human: Human(e.String())}
	if first, ok := e.Next(m.Now()); ok {
		p.FirstFire = first
	}
	return p, nil
}

// Count implements tools.CronScheduler.
func (m *Manager) Count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.jobs)
}

// Add implements tools.CronScheduler: the job is created now, with a new
// random id.
func (m *Manager) Add(_ context.Context, spec tools.CronJobSpec) (tools.CronJob, error) {
	if m.o.Disabled {
		return tools.CronJob{}, fmt.Errorf("cron scheduling is disabled")
	}
	e, err := Parse(spec.Cron)
	if err != nil {
		return tools.CronJob{}, err
	}
	now := m.Now()
	m.mu.Lock()
	if len(m.jobs) >= tools.CronMaxJobs {
		m.mu.Unlock()
		return tools.CronJob{}, tools.ErrCronCapReached
	}
	id, err := m.newIDLocked()
	if err != nil {
		m.mu.Unlock()
		return tools.CronJob{}, err
	}
	j := Job{ID: id, Cron: e.String(), Prompt: spec.Prompt, CreatedAt: now.Truncate(time.Millisecond), Recurring: spec.Recurring}
	m.jobs[id] = j
	m.order = append(m.order, id)
	m.list = nil
	out := m.viewLocked(j, now)
	m.mu.Unlock()
	m.writeFile(j)
	m.log.Info("cron job scheduled", "job_id", id, "recurring", j.Recurring)
	return out, nil
}

// newIDLocked returns an unused id of 8 lowercase hex digits.
func (m *Manager) newIDLocked() (string, error) {
	for range 8 {
		var b [4]byte
		_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
		id := hex.EncodeToString(b[:])
		if _, taken := m.jobs[id]; !taken {
			return id, nil
		}
	}
	return "", fmt.Errorf("no free cron job id after 8 attempts")
}

// List implements tools.CronScheduler.
func (m *Manager) List() []tools.CronJob {
	now := m.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]tools.CronJob, 0, len(m.order))
	for _, j := range m.jobListLocked() {
		out = append(out, m.viewLocked(j, now))
	}
	return out
}

// Remove implements tools.CronScheduler.
func (m *Manager) Remove(_ context.Context, id string) (bool, error) {
	m.mu.Lock()
	_, ok := m.jobs[id]
	if ok {
		m.deleteLocked(id)
	}
	m.mu.Unlock()
	if !ok {
		return false, nil
	}
	m.removeFile(id)
	m.log.Info("cron job deleted", "job_id", id)
	return true, nil
}

// Snapshots lists the jobs with their next fires, for hosts deciding
// whether work remains (print mode).
func (m *Manager) Snapshots() []tools.CronJob { return m.List() }

func (m *Manager) viewLocked(j Job, now time.Time) tools.CronJob {
	v := tools.CronJob{ID: j.ID, Cron: j.Cron, Human: Human(j.Cron), Prompt: j.Prompt, Recurring: j.Recurring,
		CreatedAt: j.CreatedAt, Stale: j.Recurring && !m.o.NoStale && now.Sub(j.CreatedAt) >= StaleAge}
	if next, ok := m.sched.NextFire(j, now); ok {
		v.NextFire = next
	}
	return v
}

// jobListLocked is the jobs in order, rebuilt only after a change: a tick
// over many waiting jobs allocates nothing. Callers must not modify it.
func (m *Manager) jobListLocked() []Job {
	if m.list == nil {
		m.list = make([]Job, 0, len(m.order))
		for _, id := range m.order {
			m.list = append(m.list, m.jobs[id])
		}
	}
	return m.list
}

func (m *Manager) deleteLocked(id string) {
	delete(m.jobs, id)
	m.list = nil
	m.order = slices.DeleteFunc(m.order, func(s string) bool { return s == id })
	m.sched.Forget(id)
}

// writeFile and removeFile keep the job files in step; a failure is
// logged: the job lives on in memory, and a resume would not see it.
func (m *Manager) writeFile(j Job) {
	m.writeMu.Lock()
	defer m.writeMu.Unlock()
	m.mu.Lock()
	j, live := m.jobs[j.ID] // the latest state wins
	m.mu.Unlock()
	if !live { // deleted before its write came round
		return
	}
	if err := m.store.write(j); err != nil {
		m.log.Warn("cannot save cron job", "job_id", j.ID, "error", err)
	}
}

func (m *Manager) removeFile(id string) {
	m.writeMu.Lock()
	defer m.writeMu.Unlock()
	if err := m.store.remove(id); err != nil {
		m.log.Warn("cannot delete cron job file", "job_id", id, "error", err)
	}
}

func (m *Manager) emit(ev Event) {
	if m.o.Events != nil {
		m.o.Events(ev)
	}
	m.mu.Lock()
	h := m.host
	m.mu.Unlock()
	if h != nil {
		h.Publish(ev)
	}
}

// EventType names a cron event. It is written as the event's "type" key.
type EventType string

// EventFired is a cron job that fired.
const EventFired EventType = "cron.fired"

// Event is one of the *Event structs of this package.
type Event interface {
	EventType() EventType
}

// Fired reports a fire (spec 05 §7.5).
type Fired struct {
	Origin history.Origin `json:"origin"`
	Prompt string         `json:"prompt"`
}

// EventType implements Event.
func (Fired) EventType() EventType { return EventFired }
