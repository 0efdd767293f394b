package compaction

import (
	_ "embed"
	"strings"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/llm"
)

// The summary prompt and prefix (spec 03 §6.13) live in text/*.md
// (STYLE §10); a file's trailing newline is not part of its text.
var (
	//go:embed text/instruction.md
	instructionMD string
	//go:embed text/custom_instruction.md
	customInstructionMD string
	//go:embed text/summary_prefix.md
	summaryPrefixMD string
	//go:embed text/omitted.md
	omittedMD string
)

var summaryPrefix = strings.TrimRight(summaryPrefixMD, "\n")

// omittedNote is the user message that stands where a summary request
// leaves out older messages (ERRATA 28): it leads the request when no
// task prompt does, so the request never starts with an assistant or a
// tool message.
func omittedNote() llm.Message { return llm.UserMessage(trimRight(omittedMD)) }

// noSummary stands in for a summary that post-processing left blank.
const noSummary = "(no summary available)"

// SummaryPrefix is the paragraph placed before every summary in the
// model's context: it says the conversation was compacted, that the
// summary is the model's own notes to continue from, that its claims need
// checking, and how kept and omitted user messages relate to it. UIs show
// the summary without it.
func SummaryPrefix() string { return summaryPrefix }

// Instruction renders the summary request's last user message: the
// instruction, followed by the user's own instruction when one is given.
// Trailing whitespace is removed.
func Instruction(custom string) string {
	text := trimRight(instructionMD)
	if c := strings.TrimSpace(custom); c != "" {
		text += "\n\n" + strings.ReplaceAll(trimRight(customInstructionMD), "{instruction}", c)
	}
	return trimRight(text)
}

// ContextSummary is the text of the summary message the model reads: the
// prefix, a newline, and the trimmed summary (or a placeholder when it is
// blank).
func ContextSummary(summary string) string {
	body := strings.TrimSpace(summary)
	if history.IsBlank(body) {
		body = noSummary
	}
	return summaryPrefix + "\n" + body
}

// withTodos appends the todo list to a summary (spec 03 §6.9 step 10): the
// list lives outside history, so the note never has to carry it. Without
// items the summary is returned unchanged.
func withTodos(summary string, todos []Todo) string {
	if len(todos) == 0 {
		return summary
	}
	var b strings.Builder
	b.WriteString(strings.TrimSpace(summary))
	b.WriteString("\n\n## TODO List")
	for _, t := range todos {
		b.WriteString("\n  [" + t.Status + "] " + t.Title)
	}
	return b.String()
}

// summaryText is the concatenation of a response's text parts.
func summaryText(m llm.Message) string {
	var b strings.Builder
	for _, p := range m.Content {
		if p.Type == llm.PartText {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

func trimRight(s string) string { return strings.TrimRight(s, " \t\r\n") }
