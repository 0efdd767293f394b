package event_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/loop"
)

func delta(turn int, s string) event.Event {
	return event.AssistantDelta{Header: event.Header{AgentID: "main", TurnID: turn}, Delta: s}
}

func step(turn, n int) event.Event {
	return event.StepStarted{Header: event.Header{AgentID: "main", TurnID: turn}, Step: n}
}

// drain reads everything queued for s, without waiting.
func drain(t *testing.T, s *event.Subscription) []event.Event {
	t.Helper()
	var out []event.Event
	for {
		ctx, cancel := context.WithCancel(t.Context())
		cancel() // queued events come first; an empty queue returns at once
		ev, err := s.Next(ctx)
		if err != nil {
			return out
		}
		out = append(out, ev)
	}
}

// describe is a compact view of events for comparisons.
func describe(evs []event.Event) []string {
	var out []string
	for _, ev := range evs {
		h := ev.EventHeader()
		switch e := ev.(type) {
		case event.AssistantDelta:
			out = append(out, fmt.Sprintf("%s/%d delta %q", h.AgentID, h.TurnID, e.Delta))
		case event.ThinkingDelta:
			out = append(out, fmt.Sprintf("%s/%d think %q", h.AgentID, h.TurnID, e.Delta))
		case event.ToolCallDelta:
			out = append(out, fmt.Sprintf("%s/%d call %s %s %q", h.AgentID, h.TurnID, e.ToolCallID, e.Name, e.ArgumentsPart))
		case event.ToolProgress:
			out = append(out, fmt.Sprintf("%s/%d progress %s %s %q", h.AgentID, h.TurnID, e.ToolCallID, e.Update.Kind, e.Update.Text))
		case event.StepStarted:
			out = append(out, fmt.Sprintf("%s/%d step %d", h.AgentID, h.TurnID, e.Step))
		default:
			out = append(out, fmt.Sprintf("%s/%d %s", h.AgentID, h.TurnID, ev.EventType()))
		}
	}
	return out
}

func TestOrderAcrossSubscribers(t *testing.T) {
	bus := event.NewBus(event.BusOptions{})
	a, b := bus.Subscribe(), bus.Subscribe()
	var want []event.Event
	for i := range 50 {
		var ev event.Event = step(0, i)
		if i%7 == 0 {
			ev = event.Status{Header: event.Header{AgentID: "main", TurnID: event.NoTurn}, ContextTokens: i}
		}
		want = append(want, bus.Publish(ev))
	}
	for name, s := range map[string]*event.Subscription{"a": a, "b": b} {
		got := drain(t, s)
		if d := cmp.Diff(describe(want), describe(got)); d != "" {
			t.Errorf("subscriber %s (-want +got):\n%s", name, d)
		}
		for i := 1; i < len(got); i++ {
			if got[i].EventHeader().Seq <= got[i-1].EventHeader().Seq {
				t.Errorf("subscriber %s: seq %d after %d", name, got[i].EventHeader().Seq, got[i-1].EventHeader().Seq)
			}
		}
	}
}

// Each publishing goroutine's events arrive in its order, interleaved
// with the others' by Seq.
func TestConcurrentPublishersKeepTheirOrder(t *testing.T) {
	bus := event.NewBus(event.BusOptions{})
	s := bus.Subscribe()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				bus.Publish(event.StepStarted{Header: event.Header{AgentID: fmt.Sprint("agent-", g)}, Step: i})
			}
		}()
	}
	wg.Wait()
	next := map[string]int{}
	var last uint64
	for _, ev := range drain(t, s) {
		e := ev.(event.StepStarted)
		if e.Step != next[e.AgentID] {
			t.Fatalf("%s: step %d, want %d", e.AgentID, e.Step, next[e.AgentID])
		}
		if e.Seq <= last {
			t.Fatalf("seq %d after %d", e.Seq, last)
		}
		next[e.AgentID]++
		last = e.Seq
	}
	for g := range 4 {
		if n := next[fmt.Sprint("agent-", g)]; n != 200 {
			t.Errorf("agent-%d: %d events, want 200", g, n)
		}
	}
}

// A subscriber that never reads costs Publish nothing it waits for: a
// long turn's worth of events goes out while it sleeps, and a reading
// subscriber still gets every one.
func TestBlockedSubscriberNeverStallsPublish(t *testing.T) {
	bus := event.NewBus(event.BusOptions{})
	stuck := bus.Subscribe() // never read until the end
	reader := bus.Subscribe()
	got := make(chan []event.Event)
	go func() {
		var evs []event.Event
		for {
			ev, err := reader.Next(context.Background())
			if err != nil {
				got <- evs
				return
			}
			evs = append(evs, ev)
		}
	}()
	const n = 20_000
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range n {
			if i%2 == 0 {
				bus.Publish(step(0, i))
			} else {
				bus.Publish(delta(0, "x"))
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second): // a deadlock guard, not a measurement
		t.Fatal("Publish blocked on a subscriber that does not read")
	}
	bus.Close()
	evs := <-got
	steps := 0
	for _, ev := range evs {
		if _, ok := ev.(event.StepStarted); ok {
			steps++
		}
	}
	if steps != n/2 {
		t.Errorf("the reading subscriber got %d of %d state events", steps, n/2)
	}
	if queued := drain(t, stuck); len(queued) != n { // every state event and delta, none merged: they alternate
		t.Errorf("the stuck subscriber has %d queued events, want %d", len(queued), n)
	}
}

func TestLaggingSubscriberGetsCoalescedDeltas(t *testing.T) {
	bus := event.NewBus(event.BusOptions{})
	s := bus.Subscribe()
	sub := event.Header{AgentID: "agent-0", TurnID: 0}
	for _, ev := range []event.Event{
		step(0, 1),
		delta(0, "Hel"), delta(0, "lo"), delta(0, ", world"),
		event.ThinkingDelta{Header: event.Header{AgentID: "main"}, Delta: "hm"},
		event.ThinkingDelta{Header: event.Header{AgentID: "main"}, Delta: "m"},
		delta(0, "!"),
		event.AssistantDelta{Header: sub, Delta: "sub"}, // another agent's stream
		event.AssistantDelta{Header: sub, Delta: "agent"},
		delta(1, "next turn"),
		event.ToolCallDelta{Header: event.Header{AgentID: "main"}, ToolCallID: "c1", Name: "Read", ArgumentsPart: `{"pa`},
		event.ToolCallDelta{Header: event.Header{AgentID: "main"}, ToolCallID: "c1", ArgumentsPart: `th":1}`},
		event.ToolCallDelta{Header: event.Header{AgentID: "main"}, ToolCallID: "c2", Name: "Glob"},
		step(0, 2), // a state event: no delta merges across it
		delta(0, "a"), delta(0, "b"),
		event.ToolProgress{Header: event.Header{AgentID: "main"}, ToolCallID: "c1", Update: loop.ProgressUpdate{Kind: loop.ProgressStdout, Text: "1\n"}},
		event.ToolProgress{Header: event.Header{AgentID: "main"}, ToolCallID: "c1", Update: loop.ProgressUpdate{Kind: loop.ProgressStdout, Text: "2\n"}},
		event.ToolProgress{Header: event.Header{AgentID: "main"}, ToolCallID: "c1", Update: loop.ProgressUpdate{Kind: loop.ProgressStderr, Text: "e"}},
		event.ToolProgress{Header: event.Header{AgentID: "main"}, ToolCallID: "c1", Update: loop.ProgressUpdate{Kind: loop.ProgressStatus, Text: "s"}},
		event.ToolProgress{Header: event.Header{AgentID: "main"}, ToolCallID: "c1", Update: loop.ProgressUpdate{Kind: loop.ProgressStatus, Text: "t"}},
	} {
		bus.Publish(ev)
	}
	want := []string{
		"main/0 step 1",
		`main/0 delta "Hello, world"`,
		`main/0 think "hmm"`,
		`main/0 delta "!"`,
		`agent-0/0 delta "subagent"`,
		`main/1 delta "next turn"`,
		`main/0 call c1 Read "{\"path\":1}"`,
		`main/0 call c2 Glob ""`,
		"main/0 step 2",
		`main/0 delta "ab"`,
		`main/0 progress c1 stdout "1\n2\n"`,
		`main/0 progress c1 stderr "e"`,
		`main/0 progress c1 status "s"`, // status updates are state: never merged
		`main/0 progress c1 status "t"`,
	}
	got := drain(t, s)
	if d := cmp.Diff(want, describe(got)); d != "" {
		t.Errorf("coalesced stream (-want +got):\n%s", d)
	}
	// A merged delta carries the Seq of the last delta it absorbed.
	if seq := got[1].EventHeader().Seq; seq != 4 {
		t.Errorf("merged delta seq = %d, want 4", seq)
	}
}

// A subscriber that keeps up gets every delta as it was published.
func TestReadingSubscriberGetsEveryDelta(t *testing.T) {
	bus := event.NewBus(event.BusOptions{})
	s := bus.Subscribe()
	for _, part := range []string{"a", "b", "c"} {
		bus.Publish(delta(0, part))
		ev, err := s.Next(t.Context())
		if err != nil || ev.(event.AssistantDelta).Delta != part {
			t.Fatalf("Next = %v, %v; want delta %q", ev, err, part)
		}
	}
}

// Whatever a subscriber reads when, it gets every state event in order
// and all the delta text, each delta of a stream merged with the ones
// queued right behind it.
func FuzzCoalescingKeepsText(f *testing.F) {
	f.Add([]byte{0, 1, 1, 2, 0, 3, 1, 5, 6, 3, 3, 1})
	f.Fuzz(func(t *testing.T, ops []byte) {
		bus := event.NewBus(event.BusOptions{})
		s := bus.Subscribe()
		var wantText, gotText strings.Builder
		var wantSteps, gotSteps []int
		var got []event.Event
		read := func(ev event.Event) {
			got = append(got, ev)
			switch e := ev.(type) {
			case event.AssistantDelta:
				gotText.WriteString(e.Delta)
			case event.StepStarted:
				gotSteps = append(gotSteps, e.Step)
			}
		}
		for i, op := range ops {
			switch op % 4 {
			case 0:
				bus.Publish(step(0, i))
				wantSteps = append(wantSteps, i)
			case 1, 2:
				part := fmt.Sprint(i, ",")
				wantText.WriteString(part)
				bus.Publish(delta(0, part))
			case 3:
				ctx, cancel := context.WithCancel(t.Context())
				cancel()
				if ev, err := s.Next(ctx); err == nil {
					read(ev)
				}
			}
		}
		queued := drain(t, s)
		for i := 1; i < len(queued); i++ {
			_, a := queued[i-1].(event.AssistantDelta)
			_, b := queued[i].(event.AssistantDelta)
			if a && b {
				t.Fatalf("two queued deltas of one stream were not merged: %v", describe(queued))
			}
		}
		for _, ev := range queued {
			read(ev)
		}
		if gotText.String() != wantText.String() {
			t.Fatalf("delta text %q, want %q", gotText.String(), wantText.String())
		}
		if !cmp.Equal(gotSteps, wantSteps) {
			t.Fatalf("steps %v, want %v", gotSteps, wantSteps)
		}
	})
}

func TestOverflowCutsOffOnlyTheLaggard(t *testing.T) {
	bus := event.NewBus(event.BusOptions{MaxQueue: 3})
	lag, reader := bus.Subscribe(), bus.Subscribe()
	for i := range 5 {
		bus.Publish(step(0, i))
		if _, err := reader.Next(t.Context()); err != nil {
			t.Fatalf("reader: %v", err)
		}
	}
	got := drain(t, lag)
	if len(got) != 3 {
		t.Errorf("the laggard got %d events before it was cut off, want 3", len(got))
	}
	if _, err := lag.Next(t.Context()); !errors.Is(err, event.ErrOverflow) {
		t.Errorf("laggard Next after its queue = %v, want ErrOverflow", err)
	}
	bus.Publish(step(0, 9))
	if ev, err := reader.Next(t.Context()); err != nil || ev.(event.StepStarted).Step != 9 {
		t.Errorf("reader after the cut = %v, %v", ev, err)
	}
}

func TestClose(t *testing.T) {
	bus := event.NewBus(event.BusOptions{})
	s, gone := bus.Subscribe(), bus.Subscribe()
	bus.Publish(step(0, 1))
	gone.Close()
	if _, err := gone.Next(t.Context()); !errors.Is(err, event.ErrClosed) {
		t.Errorf("closed subscription: %v, want ErrClosed", err)
	}
	bus.Publish(step(0, 2))
	bus.Close()
	bus.Publish(step(0, 3)) // after Close: stamped, not delivered
	if got := describe(drain(t, s)); !cmp.Equal(got, []string{"main/0 step 1", "main/0 step 2"}) {
		t.Errorf("after Close the queue holds %v", got)
	}
	if _, err := s.Next(t.Context()); !errors.Is(err, event.ErrClosed) {
		t.Errorf("Next after the drain = %v, want ErrClosed", err)
	}
	if _, err := bus.Subscribe().Next(t.Context()); !errors.Is(err, event.ErrClosed) {
		t.Errorf("a subscription after Close: %v, want ErrClosed", err)
	}
}

// Next waits for an event, and gives up when its context ends.
func TestNextWaits(t *testing.T) {
	bus := event.NewBus(event.BusOptions{})
	s := bus.Subscribe()
	go bus.Publish(step(0, 1))
	if ev, err := s.Next(t.Context()); err != nil || ev.(event.StepStarted).Step != 1 {
		t.Fatalf("Next = %v, %v", ev, err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := s.Next(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Next on a done context = %v", err)
	}
}

// BenchmarkDeltasThroughOneSubscriber publishes 10,000 assistant deltas
// while one subscriber reads them on its own goroutine, until the last
// one's text arrived; the budget is 10 ms per round.
func BenchmarkDeltasThroughOneSubscriber(b *testing.B) {
	const n = 10_000
	for b.Loop() {
		bus := event.NewBus(event.BusOptions{})
		s := bus.Subscribe()
		done := make(chan int)
		go func() {
			got := 0
			for got < n {
				ev, err := s.Next(context.Background())
				if err != nil {
					break
				}
				got += len(ev.(event.AssistantDelta).Delta)
			}
			done <- got
		}()
		for range n {
			bus.Publish(event.AssistantDelta{Header: event.Header{AgentID: "main"}, Delta: "x"})
		}
		if got := <-done; got != n {
			b.Fatalf("the subscriber got %d of %d characters", got, n)
		}
	}
}
