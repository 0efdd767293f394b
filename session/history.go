package session

import (
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
)

// HistoryMessage is one message of the main agent's conversation as a
// front end replays it (the ACP server's session/load, spec 06 §8.12).
type HistoryMessage struct {
	llm.Message
	// IsError marks a failed tool result.
	IsError bool
	// Displays are the input displays of an assistant message's calls, by
	// tool-call id.
	Displays map[string]loop.Display
}

// History is the main agent's conversation now, in order: what a resume
// restored plus what the turns since added (after a compaction, what it
// kept). The messages are copies the caller may keep.
func (s *Session) History() []HistoryMessage {
	h := s.agent.History()
	out := make([]HistoryMessage, 0, len(h))
	for _, m := range h {
		out = append(out, HistoryMessage{Message: m.Message, IsError: m.IsError, Displays: m.ToolCallDisplays})
	}
	return out
}
