package llm

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// mediaTokenEstimate is the flat estimate of one image, audio or video part;
// the payload itself is never counted.
const mediaTokenEstimate = 2000

// EstimateTokens is the cheap token heuristic of spec 03 §5.5: a quarter
// token per ASCII code point (rounded up over the whole string) plus one per
// other code point. A byte that is not valid UTF-8 counts as one non-ASCII
// code point.
func EstimateTokens(s string) int {
	ascii, other := 0, 0
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			ascii++
			i++
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		other++
		i += size
	}
	return (ascii+3)/4 + other
}

// EstimatePart estimates one content part: its text or reasoning, or a flat
// 2,000 for media.
func EstimatePart(p ContentPart) int {
	switch p.Type {
	case PartText:
		return EstimateTokens(p.Text)
	case PartThink:
		return EstimateTokens(p.Think)
	}
	if p.IsMedia() {
		return mediaTokenEstimate
	}
	return 0
}

// EstimateMessage estimates one message: its role, its parts, each tool
// call's name and JSON-quoted argument text (null when absent), and the
// tools it declares.
func EstimateMessage(m Message) int {
	n := EstimateTokens(string(m.Role))
	for _, p := range m.Content {
		n += EstimatePart(p)
	}
	for _, tc := range m.ToolCalls {
		n += EstimateTokens(tc.Name) + estimateQuoted(tc.Arguments)
	}
	return n + EstimateTools(m.Tools)
}

// EstimateMessages is the sum of EstimateMessage over msgs.
func EstimateMessages(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		n += EstimateMessage(m)
	}
	return n
}

// EstimateTools estimates tool definitions: name, description and the
// compact JSON of the parameters, each.
func EstimateTools(tools []Tool) int {
	n := 0
	for _, t := range tools {
		n += EstimateTokens(t.Name) + EstimateTokens(t.Description) + estimateJSON(t.Parameters)
	}
	return n
}

// estimateJSON estimates raw JSON in its compact form, keeping key order;
// text that is not JSON is counted as given.
func estimateJSON(raw json.RawMessage) int {
	if len(raw) == 0 {
		return 0
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return EstimateTokens(string(raw))
	}
	return EstimateTokens(b.String())
}

// estimateQuoted estimates s written as a JSON string literal the way
// JavaScript's JSON.stringify writes it (the upstream reference): quotes,
// two-character escapes for " \ \b \f \n \r \t, six-character escapes for
// other control characters, everything else as is. An empty s is an absent
// argument text and counts as null.
func estimateQuoted(s string) int {
	if s == "" {
		return EstimateTokens("null")
	}
	ascii, other := 2, 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			_, size := utf8.DecodeRuneInString(s[i:])
			other++
			i += size
			continue
		}
		switch {
		case c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t':
			ascii += 2
		case c < 0x20:
			ascii += 6
		default:
			ascii++
		}
		i++
	}
	return (ascii+3)/4 + other
}
