package history

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
)

// Message is a stored history message (spec 02 §1.2): a provider message
// plus the host-only facts that projection renders or strips. Once a
// message is in history it is treated as an immutable value: nothing
// modifies its slices or map, so snapshots can be read without a lock.
type Message struct {
	llm.Message
	// Origin says where a user-role message came from; nil is absent.
	Origin *Origin
	// IsError marks a failed tool result; rendered at projection.
	IsError bool
	// Note is model-only text of a tool result; rendered at projection.
	Note string
	// ToolCallDisplays are the UI input displays of an assistant's calls,
	// by tool-call id. Never projected.
	ToolCallDisplays map[string]loop.Display
	// Seq is a process-local identity given when the message enters
	// history (0 before that). It is never persisted; a replaced message
	// gets a new one.
	Seq uint64
}

// MarshalJSON writes the persisted shape of spec 02 §1.2: role, name?,
// content, toolCalls, toolCallId?, partial?, tools?, origin?, isError?,
// note?, toolCallDisplays?. Content and toolCalls are always arrays.
func (m Message) MarshalJSON() ([]byte, error) {
	w := objectWriter{}
	w.str("role", string(m.Role), true)
	w.str("name", m.Name, false)
	content := m.Content
	if content == nil {
		content = []llm.ContentPart{}
	}
	w.val("content", content)
	calls := m.ToolCalls
	if calls == nil {
		calls = []llm.ToolCall{}
	}
	w.val("toolCalls", calls)
	w.str("toolCallId", m.ToolCallID, false)
	if m.Partial {
		w.val("partial", true)
	}
	if len(m.Tools) > 0 {
		w.val("tools", m.Tools)
	}
	if m.Origin != nil {
		w.val("origin", m.Origin)
	}
	if m.IsError {
		w.val("isError", true)
	}
	w.str("note", m.Note, false)
	if len(m.ToolCallDisplays) > 0 {
		ids := make([]string, 0, len(m.ToolCallDisplays))
		for id := range m.ToolCallDisplays {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		d := objectWriter{}
		for _, id := range ids {
			d.val(id, m.ToolCallDisplays[id])
		}
		raw, err := d.close()
		if err != nil {
			return nil, fmt.Errorf("marshal message displays: %w", err)
		}
		w.val("toolCallDisplays", json.RawMessage(raw))
	}
	return w.close()
}

// UnmarshalJSON reads the persisted shape. A display block of a kind the
// loop has no type for is kept as it was written (loop.RawDisplay); one
// that is not a display block is an error naming the call.
func (m *Message) UnmarshalJSON(data []byte) error {
	var aux struct {
		llm.Message
		Origin           *Origin                    `json:"origin"`
		IsError          bool                       `json:"isError"`
		Note             string                     `json:"note"`
		ToolCallDisplays map[string]json.RawMessage `json:"toolCallDisplays"`
	}
	if err := json.Unmarshal(data, &aux); err != nil {
		return fmt.Errorf("history message: %w", err)
	}
	*m = Message{Message: aux.Message, Origin: aux.Origin, IsError: aux.IsError, Note: aux.Note}
	m.normalize()
	for id, raw := range aux.ToolCallDisplays {
		if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
			continue
		}
		d, err := loop.DecodeDisplay(raw)
		if err != nil {
			return fmt.Errorf("history message: display of call %q: %w", id, err)
		}
		if m.ToolCallDisplays == nil {
			m.ToolCallDisplays = make(map[string]loop.Display, len(aux.ToolCallDisplays))
		}
		m.ToolCallDisplays[id] = d
	}
	return nil
}

// normalize makes empty lists nil, so that a message read back from a
// record equals the one that was applied live.
func (m *Message) normalize() {
	if len(m.Content) == 0 {
		m.Content = nil
	}
	if len(m.ToolCalls) == 0 {
		m.ToolCalls = nil
	}
	if len(m.Tools) == 0 {
		m.Tools = nil
	}
	if len(m.ToolCallDisplays) == 0 {
		m.ToolCallDisplays = nil
	}
}

// provider returns m's provider message: origin, isError, note and
// displays are gone. Slices are shared, not copied.
func (m *Message) provider() llm.Message { return m.Message }
