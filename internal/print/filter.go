package print

import "github.com/kimigo/kimigo/agent/turn"

// turnFilter keeps the events of the main agent's current turn (spec 06
// §1.6.1): turn.started makes its turn current, and any other event that
// names a turn is kept only when it names that one. Events that name no
// turn (the agent's status) are dropped.
type turnFilter struct {
	current int
	started bool
}

func (f *turnFilter) admit(ev turn.Event) bool {
	if s, ok := ev.(turn.TurnStartedEvent); ok {
		f.current, f.started = s.TurnID, true
		return true
	}
	id, ok := turnOf(ev)
	return ok && f.started && id == f.current
}

// turnOf is the turn an event belongs to.
func turnOf(ev turn.Event) (int, bool) {
	switch e := ev.(type) {
	case turn.StepStartedEvent:
		return e.TurnID, true
	case turn.AssistantDeltaEvent:
		return e.TurnID, true
	case turn.ThinkingDeltaEvent:
		return e.TurnID, true
	case turn.ToolCallDeltaEvent:
		return e.TurnID, true
	case turn.ToolCallStartedEvent:
		return e.TurnID, true
	case turn.ToolProgressEvent:
		return e.TurnID, true
	case turn.ToolResultEvent:
		return e.TurnID, true
	case turn.StepCompletedEvent:
		return e.TurnID, true
	case turn.StepRetryingEvent:
		return e.TurnID, true
	case turn.StepInterruptedEvent:
		return e.TurnID, true
	case turn.TurnEndedEvent:
		return e.TurnID, true
	case turn.HookResultEvent:
		return e.TurnID, true
	}
	return 0, false
}
