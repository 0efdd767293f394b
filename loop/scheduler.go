package loop

import (
	"log/slog"
	"slices"
	"sync"
)

// scheduler runs tool calls as their accesses allow (spec 01 §4.11): a task
// starts unless it conflicts with a running task or with any task queued
// before it, so conflicting calls keep provider order while independent
// later calls overtake. It owns one goroutine per started task and close
// waits for all of them.
type scheduler struct {
	log     *slog.Logger
	mu      sync.Mutex
	running []*schedTask // guarded by mu
	queued  []*schedTask // guarded by mu, in arrival order
	closed  bool         // guarded by mu
	wg      sync.WaitGroup
}

type schedTask struct {
	accesses []Access
	run      func() // must not panic; execute recovers tool panics
}

func newScheduler(log *slog.Logger) *scheduler { return &scheduler{log: log} }

// add starts run now, or queues it behind the tasks it conflicts with.
func (s *scheduler) add(accesses []Access, run func()) {
	t := &schedTask{accesses: accesses, run: run}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		s.log.Error("loop defect: tool scheduled after its batch ended; it does not run")
		return
	}
	if conflictsAny(t, s.running) || conflictsAny(t, s.queued) {
		s.queued = append(s.queued, t)
		return
	}
	s.startLocked(t)
}

func (s *scheduler) startLocked(t *schedTask) {
	s.running = append(s.running, t)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done() // after finish, so close cannot miss a task finish starts
		defer s.finish(t)
		t.run()
	}()
}

// finish releases t's accesses and starts every queued task that now
// conflicts neither with a running task nor with one still queued ahead.
func (s *scheduler) finish(t *schedTask) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i := slices.Index(s.running, t); i >= 0 {
		s.running = slices.Delete(s.running, i, i+1)
	}
	if s.closed || len(s.queued) == 0 {
		return
	}
	var still []*schedTask
	for _, q := range s.queued {
		if conflictsAny(q, s.running) || conflictsAny(q, still) {
			still = append(still, q)
			continue
		}
		s.startLocked(q)
	}
	s.queued = still
}

// close drops the tasks that never started and waits for the running ones.
func (s *scheduler) close() {
	s.mu.Lock()
	s.closed = true
	s.queued = nil
	s.mu.Unlock()
	s.wg.Wait()
}

func conflictsAny(t *schedTask, others []*schedTask) bool {
	for _, o := range others {
		if Conflict(t.accesses, o.accesses) {
			return true
		}
	}
	return false
}
