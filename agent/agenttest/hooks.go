package agenttest

import (
	"context"
	"sync"

	"github.com/kimigo/kimigo/agent/turn"
)

// HookCall is one hook event the agent triggered.
type HookCall struct {
	Event   turn.HookEvent
	Matcher string
	Input   map[string]any
	// Awaited is set for Block, clear for Fire.
	Awaited bool
}

// Hooks is a scripted turn.HookRunner, standing in for the lifecycle hooks
// engine: OnBlock decides what awaited hooks return, and every trigger is
// recorded.
type Hooks struct {
	// OnBlock answers an awaited event; nil answers nothing (allow).
	OnBlock func(event turn.HookEvent, input map[string]any) []turn.HookResult

	mu    sync.Mutex
	calls []HookCall // guarded by mu
}

var _ turn.HookRunner = (*Hooks)(nil)

// Block implements turn.HookRunner.
func (h *Hooks) Block(_ context.Context, event turn.HookEvent, matcher string, input map[string]any) ([]turn.HookResult, error) {
	h.record(HookCall{Event: event, Matcher: matcher, Input: input, Awaited: true})
	if h.OnBlock == nil {
		return nil, nil
	}
	return h.OnBlock(event, input), nil
}

// Fire implements turn.HookRunner.
func (h *Hooks) Fire(event turn.HookEvent, matcher string, input map[string]any) {
	h.record(HookCall{Event: event, Matcher: matcher, Input: input})
}

func (h *Hooks) record(c HookCall) {
	h.mu.Lock()
	h.calls = append(h.calls, c)
	h.mu.Unlock()
}

// Calls returns the triggered events of the given kind, in order; with no
// kinds, all of them.
func (h *Hooks) Calls(events ...turn.HookEvent) []HookCall {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []HookCall
	for _, c := range h.calls {
		if len(events) == 0 || contains(events, c.Event) {
			out = append(out, c)
		}
	}
	return out
}

func contains[T comparable](s []T, v T) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
