package llm

import (
	"slices"
	"strconv"
	"strings"
)

// maxToolCallID is the longest tool-call id any wire accepts.
const maxToolCallID = 64

// UnnamedTool is the name a tool call without a name is sent under: every
// wire requires one. Such a call is a provider quirk that the loop
// answered with an error result (spec 01 §3.1.2, as amended).
const UnnamedTool = "unnamed_tool"

// NormalizeToolCalls rewrites the tool calls of a history so that every
// wire accepts them (spec 01 §3.1.1): each id is made of [A-Za-z0-9_-], at
// most 64 characters, and unique in the request, while calls and results
// stay paired, and a call without a name is sent as UnnamedTool.
//
// Ids that are already legal keep themselves; others take their cleaned
// form, with _2, _3, … on a clash. A call that repeats the id of an
// earlier call (two calls of one response, or of two responses, with one
// id) gets a fresh suffixed id, and the results that follow take the ids
// of their calls in order. Messages without a change are returned as they
// are; msgs is never modified.
func NormalizeToolCalls(msgs []Message) []Message {
	if alreadyNormal(msgs) {
		return msgs // the common history: one set of ids, not the four maps of a rewrite, per request
	}
	return normalizeToolCalls(msgs)
}

// normalizeToolCalls is NormalizeToolCalls without its shortcut.
func normalizeToolCalls(msgs []Message) []Message {
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
	for _, id := range order {
		if legalToolCallID(id) {
			mapping[id] = id
			taken[id] = true
		}
	}
	for _, id := range order {
		if _, ok := mapping[id]; !ok {
			mapping[id] = freshToolCallID(cleanToolCallID(id), taken)
		}
	}

	// Calls in order: a repeated id gets a fresh one. open holds the
	// latest assistant message's calls not yet answered, each id as sent
	// by the model with its new id, for the results that follow: a result
	// takes the first open call of its id.
	type openCall struct{ id, sent string }
	used := make(map[string]bool, len(order))
	var open []openCall
	var out []Message
	for i, m := range msgs {
		var calls []ToolCall
		if len(m.ToolCalls) > 0 {
			open = open[:0]
		}
		for j, tc := range m.ToolCalls {
			id := mapping[tc.ID]
			if used[tc.ID] {
				id = freshToolCallID(cleanToolCallID(tc.ID), taken)
			}
			used[tc.ID] = true
			open = append(open, openCall{id: tc.ID, sent: id})
			if id != tc.ID || tc.Name == "" {
				if calls == nil {
					calls = slices.Clone(m.ToolCalls)
				}
				calls[j].ID = id
				if tc.Name == "" {
					calls[j].Name = UnnamedTool
				}
			}
		}
		result := m.ToolCallID
		if result != "" {
			if j := slices.IndexFunc(open, func(c openCall) bool { return c.id == m.ToolCallID }); j >= 0 {
				result = open[j].sent
				open = slices.Delete(open, j, j+1)
			} else {
				result = mapping[result]
			}
		}
		if calls == nil && result == m.ToolCallID {
			if out != nil {
				out[i] = m
			}
			continue
		}
		if out == nil {
			out = make([]Message, len(msgs))
			copy(out, msgs[:i])
		}
		out[i] = m
		out[i].ToolCallID = result
		if calls != nil {
			out[i].ToolCalls = calls
		}
	}
	if out == nil {
		return msgs
	}
	return out
}

// alreadyNormal reports whether NormalizeToolCalls would return msgs as
// they are: every call named, every id legal, and no call id repeated (so
// each id maps to itself, and each result keeps the id of its call).
func alreadyNormal(msgs []Message) bool {
	calls := 0
	for _, m := range msgs {
		calls += len(m.ToolCalls)
	}
	ids := make(map[string]struct{}, calls)
	for _, m := range msgs {
		for _, tc := range m.ToolCalls {
			if _, repeated := ids[tc.ID]; repeated || tc.Name == "" || !legalToolCallID(tc.ID) {
				return false
			}
			ids[tc.ID] = struct{}{}
		}
		if m.ToolCallID != "" && !legalToolCallID(m.ToolCallID) {
			return false
		}
	}
	return true
}

// freshToolCallID returns base (tool_call when empty) or, when that is
// taken, base_2, base_3, … cut to 64 characters, and reserves it.
func freshToolCallID(base string, taken map[string]bool) string {
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
	taken[cand] = true
	return cand
}

// legalToolCallID reports whether id is not empty and cleanToolCallID
// keeps it as it is, without building the cleaned copy.
func legalToolCallID(id string) bool {
	if id == "" || len(id) > maxToolCallID {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if c != '_' && c != '-' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
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
