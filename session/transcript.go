package session

import (
	"context"
	"encoding/json"
	"html"
	"strings"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/replay"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
)

// TranscriptKind is the kind of a TranscriptEntry.
type TranscriptKind string

// Transcript entry kinds.
const (
	TranscriptUser       TranscriptKind = "user"
	TranscriptAssistant  TranscriptKind = "assistant"
	TranscriptThinking   TranscriptKind = "thinking"
	TranscriptTool       TranscriptKind = "tool"
	TranscriptShell      TranscriptKind = "shell"
	TranscriptCompaction TranscriptKind = "compaction"
)

// TranscriptEntry is one entry of a resumed conversation as a front end
// shows it: what the user typed, the assistant's text and thinking, a
// tool call with its result, a compaction. Messages the user never saw
// (reminders, hook results, compaction summaries) are not entries.
type TranscriptEntry struct {
	Kind TranscriptKind
	// Text is the message's text (a user prompt, an answer, thinking), or
	// a compaction's summary.
	Text string
	// A tool call: its id, name and arguments, the display it was shown
	// with, and its result (Done once it has one).
	ToolCallID string
	ToolName   string
	ToolArgs   json.RawMessage
	Display    loop.Display
	Output     string
	IsError    bool
	Done       bool
	// A compaction's token counts.
	TokensBefore, TokensAfter int
}

// TakeTranscript is the resume's replay stream (Options.Cards) as
// transcript entries, handed over once like TakeReplayCards.
func (s *Session) TakeTranscript() []TranscriptEntry {
	return transcript(s.TakeReplayCards())
}

// transcript turns replay cards into entries.
func transcript(cards []replay.Card) []TranscriptEntry {
	var out []TranscriptEntry
	calls := map[string]int{} // tool call id → index in out
	for _, c := range cards {
		switch c.Type {
		case replay.CardMessage:
			if c.Message != nil {
				out = appendMessage(out, calls, c.Message)
			}
		case replay.CardCompaction:
			if c.Result != nil {
				e := TranscriptEntry{Kind: TranscriptCompaction, Text: c.Result.Summary, TokensBefore: c.Result.TokensBefore}
				if c.Result.TokensAfter != nil {
					e.TokensAfter = *c.Result.TokensAfter
				}
				out = append(out, e)
			}
		}
	}
	return out
}

func appendMessage(out []TranscriptEntry, calls map[string]int, m *history.Message) []TranscriptEntry {
	switch m.Role {
	case llm.RoleUser:
		if m.Origin != nil && m.Origin.Kind == history.OriginShellCommand {
			if m.Origin.Phase == history.ShellInput {
				return append(out, TranscriptEntry{Kind: TranscriptShell, Text: shellText(m)})
			}
			return out
		}
		if !history.StartsUserTurn(m.Origin) || m.Origin != nil && m.Origin.Kind == history.OriginSystemTrigger {
			return out
		}
		if t := partsText(m.Content, llm.PartText); strings.TrimSpace(t) != "" {
			out = append(out, TranscriptEntry{Kind: TranscriptUser, Text: t})
		}
	case llm.RoleAssistant:
		if t := partsText(m.Content, llm.PartThink); strings.TrimSpace(t) != "" {
			out = append(out, TranscriptEntry{Kind: TranscriptThinking, Text: t})
		}
		if t := partsText(m.Content, llm.PartText); strings.TrimSpace(t) != "" {
			out = append(out, TranscriptEntry{Kind: TranscriptAssistant, Text: t})
		}
		for _, tc := range m.ToolCalls {
			calls[tc.ID] = len(out)
			out = append(out, TranscriptEntry{Kind: TranscriptTool, ToolCallID: tc.ID, ToolName: tc.Name,
				ToolArgs: json.RawMessage(tc.Arguments), Display: m.ToolCallDisplays[tc.ID]})
		}
	case llm.RoleTool:
		if i, ok := calls[m.ToolCallID]; ok {
			out[i].Output, out[i].IsError, out[i].Done = partsText(m.Content, llm.PartText), m.IsError, true
		}
	}
	return out
}

func partsText(parts []llm.ContentPart, typ llm.PartType) string {
	var b strings.Builder
	for _, p := range parts {
		if p.Type != typ {
			continue
		}
		if typ == llm.PartThink {
			b.WriteString(p.Think)
		} else {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// shellText is the command of a shell-input message, out of its tags.
func shellText(m *history.Message) string {
	t := partsText(m.Content, llm.PartText)
	t = strings.TrimPrefix(strings.TrimSpace(t), "<bash-input>")
	t = strings.TrimSuffix(t, "</bash-input>")
	return html.UnescapeString(strings.TrimSpace(t))
}

// Undo withdraws the last count user prompts and what followed them
// (/undo; spec 02 §2.9); files the turns changed stay as they are. It
// is refused while a turn runs.
func (s *Session) Undo(ctx context.Context, count int) error { return s.agent.Undo(ctx, count) }
