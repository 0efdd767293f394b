package history

import "github.com/kimigo/kimigo/llm"

// Status lines of rendered tool results (spec 02 §4.1). They are protocol
// markers the model learns to read, so their bytes never change.
const (
	ToolErrorStatus      = "<system>ERROR: Tool execution failed.</system>"
	ToolEmptyStatus      = "<system>Tool output is empty.</system>"
	ToolEmptyErrorStatus = "<system>ERROR: Tool execution failed. Tool output is empty.</system>"
	// ToolOutputEmptyText is the plain text the loop records for an empty
	// output; it renders as ToolEmptyStatus.
	ToolOutputEmptyText = "Tool output is empty."
)

// RenderToolResult turns a stored tool result into what the model sees
// (spec 02 §4.1): a status line for failures and empty outputs, then the
// note. output is the stored content: a string output is stored as one text
// part. It is the only place that happens; the stored message keeps the
// raw facts. The result shares output when nothing changes, and output is
// never modified.
func RenderToolResult(output []llm.ContentPart, note string, isError bool) []llm.ContentPart {
	parts := renderStatus(output, isError)
	if note == "" {
		return parts
	}
	if len(parts) == 1 && parts[0].Type == llm.PartText {
		// Single-part results stay plain-string tool content for strict
		// OpenAI-compatible backends.
		return []llm.ContentPart{llm.TextPart(parts[0].Text + "\n" + note)}
	}
	out := make([]llm.ContentPart, 0, len(parts)+1)
	return append(append(out, parts...), llm.TextPart(note))
}

func renderStatus(output []llm.ContentPart, isError bool) []llm.ContentPart {
	if len(output) == 1 && output[0].Type == llm.PartText {
		single := output[0].Text
		switch {
		case isError && single == "":
			return []llm.ContentPart{llm.TextPart(ToolEmptyErrorStatus)}
		case isError:
			return []llm.ContentPart{llm.TextPart(ToolErrorStatus + "\n" + single)}
		case IsBlank(single) || Trim(single) == ToolOutputEmptyText:
			return []llm.ContentPart{llm.TextPart(ToolEmptyStatus)}
		}
		return output
	}
	if allBlankText(output) {
		if isError {
			return []llm.ContentPart{llm.TextPart(ToolEmptyErrorStatus)}
		}
		return []llm.ContentPart{llm.TextPart(ToolEmptyStatus)}
	}
	if !isError {
		return output
	}
	out := make([]llm.ContentPart, 0, len(output)+1)
	return append(append(out, llm.TextPart(ToolErrorStatus)), output...)
}

// allBlankText reports whether every part is a blank text part; true for
// no parts.
func allBlankText(parts []llm.ContentPart) bool {
	for i := range parts {
		if p := &parts[i]; p.Type != llm.PartText || !IsBlank(p.Text) {
			return false
		}
	}
	return true
}
