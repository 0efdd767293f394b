package scripted

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/kimigo/kimigo/llm"
)

// Text returns a response that streams s as text deltas and completes.
func Text(s string) Response {
	return Response{Parts: textDeltas(llm.PartText, s)}
}

// Think returns a response that streams thinking, then text.
func Think(thinking, text string) Response {
	return Response{Parts: append(textDeltas(llm.PartThink, thinking), textDeltas(llm.PartText, text)...)}
}

// Call is one tool call of a scripted response.
type Call struct {
	ID, Name, Arguments string
}

// ToolCalls returns a response that streams the calls, each as a header
// followed by argument deltas, with stream indexes 0, 1, …
func ToolCalls(calls ...Call) Response {
	var parts []llm.StreamPart
	for i, c := range calls {
		parts = append(parts, CallParts(i, c)...)
	}
	return Response{Parts: parts}
}

// CallParts streams one call with stream index i: a header without
// arguments, then the arguments in chunks.
func CallParts(i int, c Call) []llm.StreamPart {
	parts := []llm.StreamPart{{Kind: llm.KindToolCall, Index: i, Indexed: true,
		ToolCall: llm.ToolCall{ID: c.ID, Name: c.Name}}}
	for _, chunk := range chunks(c.Arguments, 16) {
		parts = append(parts, llm.StreamPart{Kind: llm.KindToolCallPart, Index: i, Indexed: true,
			ArgumentsPart: chunk})
	}
	return parts
}

func textDeltas(t llm.PartType, s string) []llm.StreamPart {
	var parts []llm.StreamPart
	for _, c := range chunks(s, 24) {
		p := llm.ContentPart{Type: t}
		if t == llm.PartThink {
			p.Think = c
		} else {
			p.Text = c
		}
		parts = append(parts, llm.ContentStreamPart(p))
	}
	return parts
}

// chunks splits s into pieces of about n bytes without cutting a UTF-8
// sequence. An empty s yields nothing.
func chunks(s string, n int) []string {
	var out []string
	for len(s) > n {
		cut := n
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		if cut == 0 {
			cut = n
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

// scriptFile is the JSON script format of KIMIGO_SCRIPT:
// {"responses":[{"thinking"?:…,"text"?:…,"tool_calls"?:[{"name":…,"arguments":{…}}]}]}.
type scriptFile struct {
	Responses []struct {
		Thinking  string `json:"thinking"`
		Text      string `json:"text"`
		ToolCalls []struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"tool_calls"`
	} `json:"responses"`
}

// ParseScript reads a script file's contents. Tool-call ids are
// offline_<n>, numbered across the whole script from 1. Errors name the
// response and field that is wrong.
func ParseScript(data []byte) ([]Response, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f scriptFile
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("parse script: %w", err)
	}
	if f.Responses == nil {
		return nil, fmt.Errorf(`parse script: missing "responses" array`)
	}
	var out []Response
	n := 0
	for i, r := range f.Responses {
		var parts []llm.StreamPart
		if r.Thinking != "" {
			parts = append(parts, llm.ContentStreamPart(llm.ThinkPart(r.Thinking, "")))
		}
		if r.Text != "" {
			parts = append(parts, llm.ContentStreamPart(llm.TextPart(r.Text)))
		}
		for j, c := range r.ToolCalls {
			if c.Name == "" {
				return nil, fmt.Errorf("parse script: responses[%d].tool_calls[%d].name is empty", i, j)
			}
			args := "{}"
			if len(c.Arguments) > 0 {
				var buf bytes.Buffer
				if err := json.Compact(&buf, c.Arguments); err != nil || buf.Bytes()[0] != '{' {
					return nil, fmt.Errorf("parse script: responses[%d].tool_calls[%d].arguments must be a JSON object", i, j)
				}
				args = buf.String()
			}
			n++
			parts = append(parts, llm.StreamPart{Kind: llm.KindToolCall, Index: j, Indexed: true,
				ToolCall: llm.ToolCall{ID: "offline_" + strconv.Itoa(n), Name: c.Name}},
				llm.StreamPart{Kind: llm.KindToolCallPart, Index: j, Indexed: true, ArgumentsPart: args})
		}
		if len(parts) == 0 {
			return nil, fmt.Errorf("parse script: responses[%d] has no thinking, text or tool_calls", i)
		}
		out = append(out, Response{Parts: parts, Split: scriptSplit})
	}
	return out, nil
}

// scriptSplit is the piece size a script's answers stream in: a script
// holds one part per text and call, and its answers stream in pieces.
const scriptSplit = 16

// Demo is the offline model's answer when no script is given: list the
// working directory with Glob, then explain what it is.
func Demo() []Response {
	return []Response{
		ToolCalls(Call{ID: "offline_1", Name: "Glob", Arguments: `{"pattern":"*"}`}),
		Text(demoText),
	}
}

const demoText = "I listed this directory with the Glob tool (in print mode, --verbose shows what it found). " +
	"I am kimigo's built-in offline model: " +
	"I follow a fixed script and do not read what you write. To work with a real model, " +
	"add a provider and set default_model in config.toml, or set KIMI_MODEL_NAME and the " +
	"other KIMI_MODEL_* variables for this run."
