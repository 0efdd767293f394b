package looptest

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
)

// Recorder is an in-memory transcript plus a collecting live sink.
type Recorder struct {
	// FailRecord, when set, is asked before each append; its error fails
	// the append (the event is then neither recorded nor published).
	FailRecord func(ev loop.RecordedEvent) error

	mu       sync.Mutex
	recorded []loop.RecordedEvent // guarded by mu
	live     []loop.Event         // guarded by mu
}

// Dispatcher returns a dispatcher that appends to r and publishes to r.
func (r *Recorder) Dispatcher() *loop.FuncDispatcher {
	return loop.NewDispatcher(r.Append, r.Emit)
}

// Append records ev unless FailRecord refuses it.
func (r *Recorder) Append(_ context.Context, ev loop.RecordedEvent) error {
	if r.FailRecord != nil {
		if err := r.FailRecord(ev); err != nil {
			return err
		}
	}
	r.mu.Lock()
	r.recorded = append(r.recorded, ev)
	r.mu.Unlock()
	return nil
}

// Emit collects a published event. It is safe for concurrent use.
func (r *Recorder) Emit(ev loop.Event) error {
	r.mu.Lock()
	r.live = append(r.live, ev)
	r.mu.Unlock()
	return nil
}

// Transcript returns the recorded events in order.
func (r *Recorder) Transcript() []loop.RecordedEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]loop.RecordedEvent(nil), r.recorded...)
}

// Live returns every published event in order, recorded ones included.
func (r *Recorder) Live() []loop.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]loop.Event(nil), r.live...)
}

// Types returns the types of the recorded events in order.
func (r *Recorder) Types() []loop.EventType {
	var out []loop.EventType
	for _, ev := range r.Transcript() {
		out = append(out, ev.EventType())
	}
	return out
}

// LiveOfType returns the published events of type T in order.
func LiveOfType[T loop.Event](r *Recorder) []T {
	var out []T
	for _, ev := range r.Live() {
		if e, ok := ev.(T); ok {
			out = append(out, e)
		}
	}
	return out
}

// RecordedOfType returns the recorded events of type T in order.
func RecordedOfType[T loop.RecordedEvent](r *Recorder) []T {
	var out []T
	for _, ev := range r.Transcript() {
		if e, ok := ev.(T); ok {
			out = append(out, e)
		}
	}
	return out
}

// Sleeper is an instant loop.Options.Sleep that records the delays asked.
type Sleeper struct {
	mu     sync.Mutex
	delays []time.Duration // guarded by mu
}

// Sleep records d and returns at once, or an abort error if ctx is done.
func (s *Sleeper) Sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.delays = append(s.delays, d)
	s.mu.Unlock()
	if ctx.Err() != nil {
		return llm.Aborted(ctx)
	}
	return nil
}

// Delays returns the recorded delays in order.
func (s *Sleeper) Delays() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.delays...)
}

// SeqUUIDs returns an id source for loop.Options.NewUUID that yields
// "uuid-1", "uuid-2", …; safe for concurrent use.
func SeqUUIDs() func() string {
	var mu sync.Mutex
	n := 0
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		n++
		return fmt.Sprintf("uuid-%d", n)
	}
}
