package print

import (
	"context"

	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
)

// replayHost is a Host whose turn is a fixed list of events: Prompt
// publishes them all on its bus as the main agent's, in order, and the
// turn ends with the last one (a turn.ended).
type replayHost struct {
	events []event.Event
	bus    *event.Bus
}

func (h *replayHost) Subscribe() *event.Subscription {
	if h.bus == nil {
		h.bus = event.NewBus(event.BusOptions{})
	}
	return h.bus.Subscribe()
}

func (h *replayHost) Prompt(context.Context, []llm.ContentPart) error {
	for _, ev := range h.events {
		h.bus.Publish(event.WithAgent(ev, "main"))
	}
	return nil
}

func (h *replayHost) Cancel(context.Context, error) error { return nil }
