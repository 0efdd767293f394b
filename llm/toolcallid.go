package llm

import (
	"strconv"
	"strings"
)

// maxToolCallID is the longest tool-call id any wire accepts.
const maxToolCallID = 64

// NormalizeToolCallIDs rewrites tool-call ids so that every id is made of
// [A-Za-z0-9_-], at most 64 characters, and unique, while calls and results
// stay paired (spec 01 §3.1.1). Ids that are already legal keep themselves;
// others take their cleaned form, with _2, _3, … on a clash. Messages without
// a changed id are returned as they are; msgs is never modified.
func NormalizeToolCallIDs(msgs []Message) []Message {
	var order []string
	seen := map[string]bool{}
	note := func(id string) {
		if !seen[id] {
			seen[id] = true
			order = append(order, id)
		}
	}
	for _, m := range msgs {
		for _, tc := range m.ToolCalls {
			note(tc.ID)
		}
		if m.ToolCallID != "" {
			note(m.ToolCallID)
		}
	}
	mapping := make(map[string]string, len(order))
	taken := make(map[string]bool, len(order))
	changed := false
	for _, id := range order {
		if id != "" && cleanToolCallID(id) == id {
			mapping[id] = id
			taken[id] = true
		}
	}
	for _, id := range order {
		if _, ok := mapping[id]; ok {
			continue
		}
		base := cleanToolCallID(id)
		if base == "" {
			base = "tool_call"
		}
		cand := base
		for n := 2; taken[cand]; n++ {
			suffix := "_" + strconv.Itoa(n)
			b := base
			if len(b)+len(suffix) > maxToolCallID {
				b = b[:maxToolCallID-len(suffix)]
			}
			cand = b + suffix
		}
		mapping[id] = cand
		taken[cand] = true
		changed = true
	}
	if !changed {
		return msgs
	}
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		out[i] = m
		touched := m.ToolCallID != "" && mapping[m.ToolCallID] != m.ToolCallID
		for _, tc := range m.ToolCalls {
			if mapping[tc.ID] != tc.ID {
				touched = true
			}
		}
		if !touched {
			continue
		}
		if m.ToolCallID != "" {
			out[i].ToolCallID = mapping[m.ToolCallID]
		}
		if len(m.ToolCalls) > 0 {
			calls := make([]ToolCall, len(m.ToolCalls))
			for j, tc := range m.ToolCalls {
				tc.ID = mapping[tc.ID]
				calls[j] = tc
			}
			out[i].ToolCalls = calls
		}
	}
	return out
}

// cleanToolCallID replaces characters outside [A-Za-z0-9_-] with _ and cuts
// the result to 64 characters.
func cleanToolCallID(id string) string {
	var b strings.Builder
	for _, r := range id {
		if b.Len() >= maxToolCallID {
			break
		}
		if r == '_' || r == '-' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}
