package loop

import (
	"log/slog"
	"slices"
	"testing"
)

func TestSL20SchedulerOvertaking(t *testing.T) {
	s := newScheduler(slog.New(slog.DiscardHandler))
	started := make(chan int, 3)
	release1 := make(chan struct{})
	s.add(WriteFile("/a"), func() { started <- 1; <-release1 })
	s.add(WriteFile("/a"), func() { started <- 2 })
	s.add(ReadFile("/b"), func() { started <- 3 })

	first := []int{<-started, <-started}
	slices.Sort(first)
	if !slices.Equal(first, []int{1, 3}) {
		t.Fatalf("started first: %v, want tasks 1 and 3", first)
	}
	s.mu.Lock()
	queued := len(s.queued)
	s.mu.Unlock()
	if queued != 1 {
		t.Fatalf("%d queued tasks while task 1 runs, want task 2 queued", queued)
	}
	close(release1)
	if n := <-started; n != 2 {
		t.Errorf("started %d after task 1 finished, want 2", n)
	}
	s.close()
}

func TestSchedulerConflictingTasksKeepOrder(t *testing.T) {
	s := newScheduler(slog.New(slog.DiscardHandler))
	order := make(chan int, 4)
	gate := make(chan struct{})
	s.add(WriteFile("/a"), func() { <-gate; order <- 1 })
	s.add(ReadFile("/a"), func() { order <- 2 })         // waits for 1
	s.add(WriteFile("/a"), func() { order <- 3 })        // waits for 2 (queued ahead)
	s.add(ReadFile("/elsewhere"), func() { order <- 4 }) // overtakes
	if n := <-order; n != 4 {
		t.Fatalf("first to run = %d, want the independent task 4", n)
	}
	close(gate)
	got := []int{<-order, <-order, <-order}
	if !slices.Equal(got, []int{1, 2, 3}) {
		t.Errorf("conflicting tasks ran in order %v, want [1 2 3]", got)
	}
	s.close()
}
