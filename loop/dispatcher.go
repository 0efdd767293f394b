package loop

import "context"

// Dispatcher delivers the loop's events. Record is called from the turn
// goroutine only, which fixes the transcript order; Emit may be called from
// tool goroutines too (tool.progress), so it must be safe for concurrent use.
type Dispatcher interface {
	// Record appends ev to the transcript and then publishes it live. An
	// error means the append failed; it fails the turn.
	Record(ctx context.Context, ev RecordedEvent) error
	// Emit publishes a live-only event. It never fails and never panics.
	Emit(ev LiveEvent)
}

// FuncDispatcher is the Dispatcher built from two functions by
// NewDispatcher.
type FuncDispatcher struct {
	appendRecord func(context.Context, RecordedEvent) error
	emitLive     func(Event) error
}

// NewDispatcher returns a dispatcher that appends recorded events with
// appendRecord and publishes every event with emitLive. Either may be nil.
// emitLive is best-effort: its errors and panics are swallowed, so a broken
// UI cannot change a turn. Fanning out to several sinks, each guarded, is the
// host's job.
func NewDispatcher(appendRecord func(context.Context, RecordedEvent) error, emitLive func(Event) error) *FuncDispatcher {
	return &FuncDispatcher{appendRecord: appendRecord, emitLive: emitLive}
}

// Record appends ev, then publishes it. When the append fails nothing is
// published.
func (d *FuncDispatcher) Record(ctx context.Context, ev RecordedEvent) error {
	if d.appendRecord != nil {
		if err := d.appendRecord(ctx, ev); err != nil {
			return err
		}
	}
	d.publish(ev)
	return nil
}

// Emit publishes ev. It is safe for concurrent use when emitLive is.
func (d *FuncDispatcher) Emit(ev LiveEvent) { d.publish(ev) }

func (d *FuncDispatcher) publish(ev Event) {
	if d.emitLive == nil {
		return
	}
	defer func() { _ = recover() }() // a live sink's panic must not reach the turn
	_ = d.emitLive(ev)               // best-effort by contract
}
