package print

import (
	"context"
	"sync"

	"github.com/kimigo/kimigo/agent/turn"
	"github.com/kimigo/kimigo/llm"
)

// replayHost is a Host whose turn is a fixed list of events: Prompt
// publishes them all to the subscribers, in order, and the turn ends with
// the last one (a turn.ended).
type replayHost struct {
	events []turn.Event

	mu    sync.Mutex
	sinks []turn.EventSink
}

func (h *replayHost) Subscribe(s turn.EventSink) func() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.sinks = append(h.sinks, s)
	return func() {}
}

func (h *replayHost) Prompt(context.Context, []llm.ContentPart) (turn.Launch, error) {
	for _, ev := range h.events {
		for _, s := range h.sinks {
			s.Publish(ev)
		}
	}
	return turn.Launch{TurnID: 1, Launched: true}, nil
}

func (h *replayHost) WaitForCurrentTurn(context.Context) (turn.Result, error) {
	ended, _ := h.events[len(h.events)-1].(turn.TurnEndedEvent)
	return turn.Result{Event: ended}, nil
}
