package loop

import "github.com/kimigo/kimigo/llm"

// Fixed wordings of normalised outputs (spec 01 §4.10.8).
const (
	emptyOutputText = "Tool output is empty."
	nonTextNotice   = "Tool returned non-text content."
)

// normalizeResult shapes a result for the transcript: an empty output gets
// a placeholder, a text-only part list becomes one string, a media list
// without text gets a leading notice. StopTurn is dropped; Message and Brief
// stay for live sinks, and ToolResult's JSON leaves them out.
func normalizeResult(r ToolResult) ToolResult {
	return ToolResult{
		Output:    normalizeOutput(r.Output),
		IsError:   r.IsError,
		Note:      r.Note,
		Truncated: r.Truncated,
		Message:   r.Message,
		Brief:     r.Brief,
	}
}

func normalizeOutput(o Output) Output {
	if !o.IsParts() {
		if o.text == "" {
			return TextOutput(emptyOutputText)
		}
		return o
	}
	parts := o.parts
	if len(parts) == 0 {
		return TextOutput(emptyOutputText)
	}
	hasMedia, hasText := false, false
	for _, p := range parts {
		switch {
		case p.IsMedia():
			hasMedia = true
		case p.Type == llm.PartText && p.Text != "":
			hasText = true
		}
	}
	if hasMedia {
		if hasText {
			return o
		}
		withNotice := make([]llm.ContentPart, 0, len(parts)+1)
		withNotice = append(withNotice, llm.TextPart(nonTextNotice))
		return PartsOutput(append(withNotice, parts...)...)
	}
	if s := o.Text(); s != "" {
		return TextOutput(s)
	}
	return TextOutput(emptyOutputText)
}
