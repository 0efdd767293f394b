package history

import "github.com/kimigo/kimigo/llm"

// mergeAssistants is P4 (spec 02 §3.5): an assistant message right after
// another is joined into it (content, then calls); a run is joined in one
// go. It returns in itself when there is nothing to merge.
func mergeAssistants(in []llm.Message, report func(Anomaly)) []llm.Message {
	var out []llm.Message
	for i := 0; i < len(in); {
		j := i + 1
		if in[i].Role == llm.RoleAssistant {
			for j < len(in) && in[j].Role == llm.RoleAssistant {
				j++
			}
		}
		if j == i+1 {
			if out != nil {
				out = append(out, in[i])
			}
			i = j
			continue
		}
		if out == nil {
			out = make([]llm.Message, i, len(in))
			copy(out, in[:i])
		}
		merged := in[i]
		var content []llm.ContentPart
		var calls []llm.ToolCall
		for _, m := range in[i:j] {
			content = append(content, m.Content...)
			calls = append(calls, m.ToolCalls...)
		}
		for range j - i - 1 {
			report(Anomaly{Kind: AnomalyConsecutiveAssistants})
		}
		merged.Content, merged.ToolCalls = content, calls
		out = append(out, merged)
		i = j
	}
	if out == nil {
		return in
	}
	return out
}

// dropLeadingNonUser is P6 (spec 02 §3.7): messages before the first user
// message are dropped; with no user message the result is empty.
func dropLeadingNonUser(in []llm.Message, report func(Anomaly)) []llm.Message {
	for i, m := range in {
		if m.Role == llm.RoleUser {
			return in[i:]
		}
		report(Anomaly{Kind: AnomalyLeadingNonUserDropped, Role: m.Role})
	}
	return in[:0]
}
