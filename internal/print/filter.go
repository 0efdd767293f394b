package print

import (
	"github.com/kimigo/kimigo/event"
)

// turnFilter keeps the events of the main agent's current turn (spec 06
// §1.6.1): the main agent's turn.started makes its turn current, and any
// other event of the main agent is kept only when it names that turn.
// Events of subagents, and events that name no turn (the agent's status),
// are dropped.
type turnFilter struct {
	current int
	started bool
}

func (f *turnFilter) admit(ev event.Event) bool {
	h := ev.EventHeader()
	if h.AgentID != mainAgent {
		return false
	}
	if s, ok := ev.(event.TurnStarted); ok {
		f.current, f.started = s.TurnID, true
		return true
	}
	return f.started && h.TurnID != event.NoTurn && h.TurnID == f.current
}

// mainAgent is the id of a session's main agent in event headers.
const mainAgent = "main"
