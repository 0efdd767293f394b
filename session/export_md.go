package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/osenv"
)

// ErrNothingToExport is the error of a Markdown export of an empty
// conversation ("No messages to export." to the user).
var ErrNothingToExport = errors.New("no messages to export")

// DefaultMarkdownExportName is a Markdown export's file name in the work
// dir: kimigo-export-<8 characters of the id after "session_">-<UTC time>.md.
func DefaultMarkdownExportName(id string, now time.Time) string {
	short := strings.TrimPrefix(id, IDPrefix)
	short = short[:min(8, len(short))]
	return fmt.Sprintf("kimigo-export-%s-%s.md", short, now.UTC().Format("20060102-150405"))
}

// ExportMarkdown writes the conversation as Markdown (/export-md, spec 06
// §4.4) to path (resolved against the work dir; "" means
// DefaultMarkdownExportName there) and returns the file written and how
// many messages it holds. Messages the user never saw (reminders,
// compaction summaries, hook results, cron prompts) are left out. An
// empty conversation is ErrNothingToExport.
func (s *Session) ExportMarkdown(path string, now time.Time) (string, int, error) {
	msgs := exportable(s.agent.History())
	if len(msgs) == 0 {
		return "", 0, ErrNothingToExport
	}
	if path == "" {
		path = DefaultMarkdownExportName(s.id, now)
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(s.workDir, path)
	}
	doc := markdownExport(msgs, s.id, s.workDir, s.agent.TokenCount(), now)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", 0, fmt.Errorf("export %s: %w", path, err)
	}
	if err := osenv.WriteFileAtomic(s.store.fs, path, doc, 0o644); err != nil {
		return "", 0, fmt.Errorf("export %s: %w", path, err)
	}
	return path, len(msgs), nil
}

// exportable drops the messages of internal origins.
func exportable(all []history.Message) []history.Message {
	var out []history.Message
	for _, m := range all {
		if m.Role == llm.RoleSystem {
			continue
		}
		if m.Origin != nil {
			switch m.Origin.Kind {
			case history.OriginInjection, history.OriginSystemTrigger, history.OriginCompactionSummary,
				history.OriginHookResult, history.OriginCronJob, history.OriginCronMissed:
				continue
			}
		}
		out = append(out, m)
	}
	return out
}

// markdownExport lays the messages out (spec 06 §4.4): front matter, an
// overview, then one "## Turn <n>" per user message.
func markdownExport(msgs []history.Message, id, workDir string, tokens int, now time.Time) []byte {
	turns, calls := 0, 0
	topic := "(empty)"
	names := map[string]string{} // call id → tool name
	hints := map[string]string{}
	for _, m := range msgs {
		switch m.Role {
		case llm.RoleUser:
			if t := strings.TrimSpace(textOf(m.Content, llm.PartText)); t != "" && topic == "(empty)" {
				topic = cutExport(t, 80)
			}
			turns++
		case llm.RoleAssistant:
			for _, tc := range m.ToolCalls {
				calls++
				names[tc.ID], hints[tc.ID] = tc.Name, argHint([]byte(tc.Arguments))
			}
		}
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "---\nsession_id: %s\nexported_at: %s\nwork_dir: %s\nmessage_count: %d\ntoken_count: %d\n---\n\n",
		id, now.UTC().Format(time.RFC3339), workDir, len(msgs), tokens)
	fmt.Fprintf(&b, "# kimigo Session Export\n\n## Overview\n\n- **Topic**: %s\n- **Conversation**: %d turns | %d tool calls\n\n---\n",
		topic, turns, calls)
	turn, assistant := 0, false
	for _, m := range msgs {
		switch m.Role {
		case llm.RoleUser:
			turn++
			assistant = false
			fmt.Fprintf(&b, "\n## Turn %d\n\n### User\n\n%s\n", turn, partsMarkdown(m.Content))
		case llm.RoleAssistant:
			if !assistant {
				b.WriteString("\n### Assistant\n")
				assistant = true
			}
			if t := strings.TrimSpace(textOf(m.Content, llm.PartThink)); t != "" {
				fmt.Fprintf(&b, "\n<details><summary>Thinking</summary>\n\n%s\n\n</details>\n", t)
			}
			if t := strings.TrimSpace(textOf(m.Content, llm.PartText)); t != "" {
				fmt.Fprintf(&b, "\n%s\n", t)
			}
			for _, tc := range m.ToolCalls {
				fmt.Fprintf(&b, "\n#### Tool Call: %s%s\n<!-- call_id: %s -->\n```json\n%s\n```\n",
					tc.Name, hintSuffix(hints[tc.ID]), tc.ID, prettyArgs(tc.Arguments))
			}
		case llm.RoleTool:
			name := names[m.ToolCallID]
			fmt.Fprintf(&b, "\n<details><summary>Tool Result: %s%s</summary>\n<!-- call_id: %s -->\n\n%s\n\n</details>\n",
				name, hintSuffix(hints[m.ToolCallID]), m.ToolCallID, partsMarkdown(m.Content))
		}
	}
	return b.Bytes()
}

func textOf(parts []llm.ContentPart, typ llm.PartType) string {
	var b strings.Builder
	for _, p := range parts {
		switch {
		case p.Type != typ:
		case typ == llm.PartThink:
			b.WriteString(p.Think)
		default:
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// partsMarkdown is a message's text, its media as placeholders.
func partsMarkdown(parts []llm.ContentPart) string {
	var out []string
	for _, p := range parts {
		switch p.Type {
		case llm.PartText:
			if strings.TrimSpace(p.Text) != "" {
				out = append(out, strings.TrimSpace(p.Text))
			}
		case llm.PartImageURL:
			out = append(out, "[image]")
		case llm.PartAudioURL:
			out = append(out, "[audio]")
		case llm.PartVideoURL:
			out = append(out, "[video]")
		}
	}
	return strings.Join(out, "\n\n")
}

// argHint is what a tool call is about: the first of its path, file_path,
// command, query, url, name, pattern arguments that is not blank, else its
// first string argument of at most 80 characters; cut to 60 characters.
func argHint(raw []byte) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	str := func(v json.RawMessage) string {
		var s string
		if json.Unmarshal(v, &s) != nil {
			return ""
		}
		return strings.TrimSpace(s)
	}
	for _, k := range []string{"path", "file_path", "command", "query", "url", "name", "pattern"} {
		if s := str(m[k]); s != "" {
			return cutExport(s, 60)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err == nil {
		for dec.More() {
			if _, err := dec.Token(); err != nil {
				break
			}
			var v json.RawMessage
			if dec.Decode(&v) != nil {
				break
			}
			if s := str(v); s != "" && utf8.RuneCountInString(s) <= 80 {
				return cutExport(s, 60)
			}
		}
	}
	return ""
}

func hintSuffix(h string) string {
	if h == "" {
		return ""
	}
	return " (`" + h + "`)"
}

func cutExport(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// prettyArgs indents a call's arguments; arguments that are not JSON are
// kept as they are.
func prettyArgs(args string) string {
	var buf bytes.Buffer
	if json.Indent(&buf, []byte(args), "", "  ") != nil {
		return args
	}
	return buf.String()
}
