package event

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"

	"github.com/kimigo/kimigo/loop"
)

// DefaultMaxQueue is how many events may wait for one subscriber before
// it is cut off, unless BusOptions say otherwise. Deltas coalesce, so a
// subscriber reaches it only by reading nothing for a long time.
const DefaultMaxQueue = 1 << 16

// ErrClosed ends a subscription whose bus or itself was closed, once the
// events queued before the bus closed were read.
var ErrClosed = errors.New("event stream closed")

// ErrOverflow ends a subscription that fell more than its bus's MaxQueue
// events behind. The events queued before are still delivered; nothing
// after them is.
var ErrOverflow = errors.New("event subscriber fell too far behind and was cut off")

// BusOptions configure a Bus.
type BusOptions struct {
	// MaxQueue caps the events waiting for one subscriber; 0 means
	// DefaultMaxQueue.
	MaxQueue int
}

// Bus carries the events of a session's agents to its subscribers (spec
// 06 §9). Publish never waits for a subscriber: each subscriber has its
// own queue, drained by its own goroutine through Next. Every method is
// safe for concurrent use.
type Bus struct {
	maxQueue int

	mu     sync.Mutex
	seq    uint64          // guarded by mu: the last sequence number given
	subs   []*Subscription // guarded by mu
	closed bool            // guarded by mu
}

// NewBus returns a bus with no subscribers.
func NewBus(o BusOptions) *Bus {
	if o.MaxQueue <= 0 {
		o.MaxQueue = DefaultMaxQueue
	}
	return &Bus{maxQueue: o.MaxQueue}
}

// Publish gives ev the next sequence number, queues it for every
// subscriber and returns it as stamped. It takes two short locks and
// never blocks on a subscriber, however far behind: a state event is
// queued (a subscriber more than MaxQueue events behind is cut off), and
// a delta that finds the previous queued event to be a delta of the same
// stream is merged into it. Events one goroutine publishes keep their
// order. After Close, Publish stamps and returns ev and delivers nothing.
func (b *Bus) Publish(ev Event) Event {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.seq++
	h := ev.EventHeader()
	h.Seq = b.seq
	ev = ev.withHeader(h)
	if b.closed {
		return ev
	}
	cut := false
	for _, s := range b.subs {
		if !s.push(ev, b.maxQueue) {
			cut = true
		}
	}
	if cut {
		b.subs = slices.DeleteFunc(b.subs, func(s *Subscription) bool { return s.ended() })
	}
	return ev
}

// Subscribe returns a subscription to every event published from now on.
// After Close, the subscription ends at once with ErrClosed.
func (b *Bus) Subscribe() *Subscription {
	s := &Subscription{bus: b, wake: make(chan struct{}, 1)}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		s.err = ErrClosed
		return s
	}
	b.subs = append(b.subs, s)
	return s
}

// Close ends the stream: every subscription delivers what is queued and
// then ErrClosed. Later calls do nothing.
func (b *Bus) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	b.closed = true
	for _, s := range b.subs {
		s.end(ErrClosed, false)
	}
	b.subs = nil
}

// Subscription is one subscriber's queue. Its owner reads it with Next,
// from one goroutine at a time, and closes it when done.
type Subscription struct {
	bus  *Bus
	wake chan struct{} // a token when events arrived or the stream ended

	mu   sync.Mutex
	q    []entry // guarded by mu: q[head:] wait to be read
	head int     // guarded by mu
	err  error   // guarded by mu: why the stream ended, nil while it runs
}

// entry is one queued event. text holds the merged text of a delta that
// absorbed later ones, nil while it absorbed none.
type entry struct {
	ev   Event
	text *strings.Builder
}

// Next returns the next event, waiting for one until ctx is done. When
// the stream has ended and the queue is drained it returns ErrClosed
// (the bus or the subscription was closed) or ErrOverflow (the subscriber
// was cut off).
func (s *Subscription) Next(ctx context.Context) (Event, error) {
	for {
		s.mu.Lock()
		if s.head < len(s.q) {
			e := s.q[s.head]
			s.q[s.head] = entry{}
			s.head++
			if s.head == len(s.q) {
				s.q, s.head = s.q[:0], 0
			}
			s.mu.Unlock()
			return e.event(), nil
		}
		err := s.err
		s.mu.Unlock()
		if err != nil {
			return nil, err
		}
		select {
		case <-s.wake:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Close ends the subscription: queued events are dropped and Next
// returns ErrClosed. Later calls do nothing.
func (s *Subscription) Close() {
	b := s.bus
	b.mu.Lock()
	b.subs = slices.DeleteFunc(b.subs, func(x *Subscription) bool { return x == s })
	b.mu.Unlock()
	s.end(ErrClosed, true)
}

// end ends the stream with err unless it already ended; drop discards
// what is queued.
func (s *Subscription) end(err error, drop bool) {
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	if drop {
		clear(s.q)
		s.q, s.head = nil, 0
	}
	s.mu.Unlock()
	s.signal()
}

func (s *Subscription) ended() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err != nil
}

// push queues ev; the bus holds its lock. It reports false when the
// subscriber had to be cut off.
func (s *Subscription) push(ev Event, maxQueue int) bool {
	s.mu.Lock()
	if s.err != nil {
		s.mu.Unlock()
		return true
	}
	n := len(s.q) - s.head
	if n > 0 && s.q[len(s.q)-1].absorb(ev) {
		s.mu.Unlock()
		return true
	}
	if n >= maxQueue {
		s.err = ErrOverflow
		s.mu.Unlock()
		s.signal()
		return false
	}
	if s.head > 0 && len(s.q) == cap(s.q) { // reuse the read prefix before growing
		copy(s.q, s.q[s.head:])
		clear(s.q[n:])
		s.q, s.head = s.q[:n], 0
	}
	s.q = append(s.q, entry{ev: ev})
	s.mu.Unlock()
	s.signal()
	return true
}

func (s *Subscription) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// absorb merges the delta next into e when both are deltas of the same
// stream: text of one agent's turn, arguments of one tool call, text
// output of one tool call. The merged event keeps e's fields and takes
// next's header, so its Seq stays the latest.
func (e *entry) absorb(next Event) bool {
	cur, add, ok := deltaText(e.ev, next)
	if !ok {
		return false
	}
	if e.text == nil {
		e.text = &strings.Builder{}
		e.text.WriteString(cur)
	}
	e.text.WriteString(add)
	if d, isCall := e.ev.(ToolCallDelta); isCall && d.Name == "" {
		d.Name = next.(ToolCallDelta).Name
		e.ev = d
	}
	e.ev = e.ev.withHeader(next.EventHeader())
	return true
}

// deltaText reports whether next can merge into prev, with the text of
// each.
func deltaText(prev, next Event) (cur, add string, ok bool) {
	ph, nh := prev.EventHeader(), next.EventHeader()
	if ph.AgentID != nh.AgentID || ph.TurnID != nh.TurnID {
		return "", "", false
	}
	switch p := prev.(type) {
	case AssistantDelta:
		n, ok := next.(AssistantDelta)
		return p.Delta, n.Delta, ok
	case ThinkingDelta:
		n, ok := next.(ThinkingDelta)
		return p.Delta, n.Delta, ok
	case ToolCallDelta:
		n, ok := next.(ToolCallDelta)
		if !ok || n.ToolCallID != p.ToolCallID || (n.Name != "" && p.Name != "" && n.Name != p.Name) {
			return "", "", false
		}
		return p.ArgumentsPart, n.ArgumentsPart, true
	case ToolProgress:
		n, ok := next.(ToolProgress)
		if !ok || n.ToolCallID != p.ToolCallID || !textOnly(p.Update) || !textOnly(n.Update) ||
			n.Update.Kind != p.Update.Kind {
			return "", "", false
		}
		return p.Update.Text, n.Update.Text, true
	}
	return "", "", false
}

// textOnly reports a progress update that is only a piece of a stream's
// output.
func textOnly(u loop.ProgressUpdate) bool {
	return (u.Kind == loop.ProgressStdout || u.Kind == loop.ProgressStderr) && u.Percent == nil &&
		u.CustomKind == "" && u.CustomData == nil
}

// event is the queued event, with its merged text when it absorbed
// others.
func (e entry) event() Event {
	if e.text == nil {
		return e.ev
	}
	text := e.text.String()
	switch d := e.ev.(type) {
	case AssistantDelta:
		d.Delta = text
		return d
	case ThinkingDelta:
		d.Delta = text
		return d
	case ToolCallDelta:
		d.ArgumentsPart = text
		return d
	case ToolProgress:
		d.Update.Text = text
		return d
	}
	return e.ev
}
