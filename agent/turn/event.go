package turn

import "github.com/kimigo/kimigo/event"

// EventSink receives the events of a turn (the vocabulary of package
// event), each with its turn id in the header; the agent stamps its own id
// and queues them on its bus. Publish is called synchronously on the
// goroutine that produced the event (the turn worker, a tool goroutine
// for progress, the caller of Prompt for a busy error), with no lock
// held; it must be safe for concurrent use and must not block.
type EventSink interface {
	Publish(ev event.Event)
}
