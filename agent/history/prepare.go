package history

import (
	"strings"

	"github.com/kimigo/kimigo/internal/bug"
	"github.com/kimigo/kimigo/llm"
)

// MediaMissing is the URL a media part gets when its offloaded blob cannot
// be read back (spec 02 §6.6); projection sends it as a text part.
const MediaMissing = "[media missing]"

// prepare is P1 (spec 02 §3.2): drop partial messages, render tool results,
// turn missing media into text, drop blank text parts, drop empty and
// vacuous messages, merge adjacent user prompts, and strip host metadata.
// rendered, when not nil, supplies tool results rendered beforehand.
func prepare(h []Message, rendered func(*Message) ([]llm.ContentPart, bool), report func(Anomaly)) []llm.Message {
	out := make([]llm.Message, 0, len(h))
	var run promptRun
	// prevPrompt: the previous input message was kept and is a user
	// prompt, so this one may merge into it.
	prevPrompt := false
	for i := range h {
		m := &h[i]
		mergeable := prevPrompt
		prevPrompt = false
		if m.Partial {
			continue
		}
		content := m.Content
		if m.Role == llm.RoleTool {
			if r, ok := renderedOf(rendered, m); ok {
				content = r
			} else {
				content = RenderToolResult(content, m.Note, m.IsError)
			}
		}
		content = replaceMissingMedia(content)
		content = dropBlankText(content, m.Role, report)
		if m.Role == llm.RoleTool && len(content) == 0 {
			bug.Reportf("history: tool result %q is empty after rendering", m.ToolCallID)
			content = []llm.ContentPart{llm.TextPart(ToolEmptyStatus)}
		}
		if len(m.Tools) == 0 && len(m.ToolCalls) == 0 {
			if len(content) == 0 {
				continue
			}
			if allVacuous(content) {
				report(Anomaly{Kind: AnomalyVacuousMessageDropped, Role: m.Role})
				continue
			}
		}
		pm := m.provider()
		pm.Content = content
		prompt := isPrompt(m)
		if prompt && mergeable {
			run.add(pm.Content)
			prevPrompt = true
			continue
		}
		out = run.finish(out)
		out = append(out, pm)
		if prompt {
			run.start(len(out)-1, pm.Content)
		}
		prevPrompt = prompt
	}
	return run.finish(out)
}

func renderedOf(rendered func(*Message) ([]llm.ContentPart, bool), m *Message) ([]llm.ContentPart, bool) {
	if rendered == nil {
		return nil, false
	}
	return rendered(m)
}

// promptRun merges a run of adjacent user prompts in one go, as if each
// were merged into the one before (spec 02 §3.2 step 9): the texts joined
// by a blank line, then the other parts of each in order. The merged text
// is left out while it is blank (two media-only prompts, §3.13).
type promptRun struct {
	at      int // index in out of the run's first message
	members int
	first   []llm.ContentPart // the first message's parts, until a second joins
	text    strings.Builder
	other   []llm.ContentPart
}

func (r *promptRun) start(at int, content []llm.ContentPart) {
	r.at, r.members, r.first = at, 1, content
}

func (r *promptRun) add(content []llm.ContentPart) {
	if r.members == 1 {
		r.text.Reset()
		r.text.WriteString(textOf(r.first))
		r.other = appendNonText(r.other[:0:0], r.first)
	}
	r.members++
	next := textOf(content)
	if r.text.Len() > 0 || !IsBlank(next) {
		r.text.WriteString("\n\n")
		r.text.WriteString(next)
	}
	r.other = appendNonText(r.other, content)
}

// finish writes a run of two or more prompts over its first message.
func (r *promptRun) finish(out []llm.Message) []llm.Message {
	if r.members > 1 {
		parts := make([]llm.ContentPart, 0, len(r.other)+1)
		if r.text.Len() > 0 {
			parts = append(parts, llm.TextPart(r.text.String()))
		}
		out[r.at] = llm.Message{Role: llm.RoleUser, Content: append(parts, r.other...)}
	}
	r.members, r.first = 0, nil
	return out
}

// isPrompt reports whether m takes part in prompt merging: a plain user
// message with origin user.
func isPrompt(m *Message) bool {
	return m.Role == llm.RoleUser && m.Origin.Is(OriginUser) && len(m.ToolCalls) == 0 && len(m.Tools) == 0
}

func textOf(parts []llm.ContentPart) string {
	n, last := 0, ""
	for _, p := range parts {
		if p.Type == llm.PartText {
			n++
			last = p.Text
		}
	}
	if n <= 1 {
		return last
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == llm.PartText {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

func appendNonText(dst, parts []llm.ContentPart) []llm.ContentPart {
	for _, p := range parts {
		if p.Type != llm.PartText {
			dst = append(dst, p)
		}
	}
	return dst
}

// replaceMissingMedia turns each media part whose blob is missing into a
// text part saying so. It returns parts itself when there is none.
func replaceMissingMedia(parts []llm.ContentPart) []llm.ContentPart {
	first := -1
	for i := range parts {
		if isMissingMedia(&parts[i]) {
			first = i
			break
		}
	}
	if first < 0 {
		return parts
	}
	out := make([]llm.ContentPart, 0, len(parts))
	out = append(out, parts[:first]...)
	for i := first; i < len(parts); i++ {
		if isMissingMedia(&parts[i]) {
			out = append(out, llm.TextPart(MediaMissing))
		} else {
			out = append(out, parts[i])
		}
	}
	return out
}

func isMissingMedia(p *llm.ContentPart) bool {
	return p.Media != nil && p.Media.URL == MediaMissing && p.IsMedia()
}

// dropBlankText removes blank text parts, reporting each that was not
// exactly empty. It returns parts itself when there is none.
func dropBlankText(parts []llm.ContentPart, role llm.Role, report func(Anomaly)) []llm.ContentPart {
	first := -1
	for i := range parts {
		if p := &parts[i]; p.Type == llm.PartText && IsBlank(p.Text) {
			first = i
			break
		}
	}
	if first < 0 {
		return parts
	}
	out := make([]llm.ContentPart, 0, len(parts)-1)
	out = append(out, parts[:first]...)
	for i := first; i < len(parts); i++ {
		p := &parts[i]
		if p.Type != llm.PartText || !IsBlank(p.Text) {
			out = append(out, *p)
			continue
		}
		if p.Text != "" {
			report(Anomaly{Kind: AnomalyWhitespaceTextDropped, Role: role})
		}
	}
	return out
}

// isVacuous reports a part with nothing to send: blank text, or an
// unsigned think part with blank reasoning. Media is never vacuous.
func isVacuous(p *llm.ContentPart) bool {
	switch p.Type {
	case llm.PartText:
		return IsBlank(p.Text)
	case llm.PartThink:
		return p.Encrypted == "" && IsBlank(p.Think)
	}
	return false
}

func allVacuous(parts []llm.ContentPart) bool {
	for i := range parts {
		if !isVacuous(&parts[i]) {
			return false
		}
	}
	return true
}
