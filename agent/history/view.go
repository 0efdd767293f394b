package history

import (
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
)

// Project runs the whole projection of spec 02 §3.1 on h, a snapshot from
// History: dynamic-tool shaping (the loaded tools for a model with
// progressive disclosure, otherwise the protocol stripped), micro
// compaction (disabled, the identity), the passes of the package-level
// Project, and the repair report of §3.10 (a warning per distinct set of
// repairs; opts.OnAnomaly still sees every anomaly). It may be called from
// any goroutine.
func (m *Memory) Project(h []Message, opts ProjectOptions) []llm.Message {
	if m.hooks.DynamicTools != nil && m.hooks.DynamicTools() && m.hooks.ShapeDynamicTools != nil {
		h = m.hooks.ShapeDynamicTools(h)
	} else {
		h = StripDynamicToolContext(h)
	}
	opts.rendered = m.renders.lookup
	var anoms []Anomaly
	outer := opts.OnAnomaly
	opts.OnAnomaly = func(a Anomaly) {
		anoms = append(anoms, a)
		if outer != nil {
			outer(a)
		}
	}
	out := Project(h, opts)
	m.repairs.report(anoms)
	return out
}

// View projects the snapshot h for the request view p: normal, strict,
// media-degraded (older media replaced, RecentMediaKept kept) or
// media-stripped (every current media part replaced; a turn that resends
// more than once should capture a MediaSnapshot on its first stripped
// resend instead). It may be called from any goroutine.
func (m *Memory) View(h []Message, p loop.Projection) []llm.Message {
	switch p {
	case loop.ProjectionStrict:
		return m.Project(h, StrictOptions())
	case loop.ProjectionMediaDegraded:
		return DegradeOlderMedia(m.Project(h, NormalOptions()), RecentMediaKept)
	case loop.ProjectionMediaStripped:
		msgs := m.Project(h, NormalOptions())
		return NewMediaSnapshot(msgs).Strip(msgs)
	}
	return m.Project(h, NormalOptions())
}

// Messages is the normal view of the current history: every normal
// request, the compaction summariser input, subagent seeding.
func (m *Memory) Messages() []llm.Message { return m.View(m.History(), loop.ProjectionNormal) }

// StrictMessages is the strict view of the current history, for the one
// resend after a structural 400.
func (m *Memory) StrictMessages() []llm.Message { return m.View(m.History(), loop.ProjectionStrict) }

// MediaDegradedMessages is the normal view keeping only the newest media,
// for the resend after a 413.
func (m *Memory) MediaDegradedMessages() []llm.Message {
	return m.View(m.History(), loop.ProjectionMediaDegraded)
}

// MediaStrippedMessages is the normal view without any current media.
func (m *Memory) MediaStrippedMessages() []llm.Message {
	return m.View(m.History(), loop.ProjectionMediaStripped)
}

// TrimTrailingOpenToolExchange drops an unfinished exchange at the end of
// msgs (spec 02 §2.12): when the last non-tool message is an assistant
// with a call whose result is not among the tool messages after it, that
// assistant and its partial results go. Without any non-tool message the
// result is empty. msgs is not modified.
func TrimTrailingOpenToolExchange(msgs []llm.Message) []llm.Message {
	last := -1
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != llm.RoleTool {
			last = i
			break
		}
	}
	if last < 0 {
		return msgs[:0]
	}
	a := msgs[last]
	if a.Role != llm.RoleAssistant || len(a.ToolCalls) == 0 {
		return msgs
	}
	answered := make(map[string]bool, len(msgs)-last)
	for _, t := range msgs[last+1:] {
		answered[t.ToolCallID] = true
	}
	for _, tc := range a.ToolCalls {
		if !answered[tc.ID] {
			return msgs[:last]
		}
	}
	return msgs
}

// FromProjected wraps projected messages as history messages without
// origins, to seed a side-question child (UseProjectedHistoryFrom: the
// child commits each as context.append_message after a clear).
func FromProjected(msgs []llm.Message) []Message {
	out := make([]Message, len(msgs))
	for i, msg := range msgs {
		out[i] = Message{Message: msg}
	}
	return out
}
