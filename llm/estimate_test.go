package llm

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestEstimateTokens(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int
	}{
		{"", 0},
		{"hello world", 3}, // 11 ASCII code points → ceil(11/4)
		{"你好", 2},
		{"abc你", 2}, // ceil(3/4) + 1
		{"abcd", 1},
		{"abcde", 2},
		{"😀", 1},               // a surrogate pair upstream is one non-ASCII code point
		{"\xff\xfe", 2},        // invalid bytes count as one replacement character each
		{"\u00e9" + "aaaa", 2}, // é is not ASCII
	} {
		if got := EstimateTokens(tt.in); got != tt.want {
			t.Errorf("EstimateTokens(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestEstimatePart(t *testing.T) {
	for _, tt := range []struct {
		name string
		part ContentPart
		want int
	}{
		{"text", TextPart("hello world"), 3},
		{"think", ThinkPart("abcdefgh", "signature-is-not-counted"), 2},
		{"image is flat", ImagePart("data:image/png;base64," + strings.Repeat("A", 100000)), 2000},
		{"audio is flat", AudioPart("https://x/a.mp3"), 2000},
		{"video is flat", VideoPart("https://x/v.mp4", "id"), 2000},
	} {
		if got := EstimatePart(tt.part); got != tt.want {
			t.Errorf("%s: EstimatePart = %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestEstimateMessage(t *testing.T) {
	for _, tt := range []struct {
		name string
		msg  Message
		want int
	}{
		// "user" → 1, "hi" → 1.
		{"user text", UserMessage("hi"), 2},
		// "assistant" → 3; call: name "Read" → 1, args `{"a":1}` quoted as
		// `"{\"a\":1}"` (11 ASCII) → 3.
		{"assistant call", AssistantMessage("", ToolCall{ID: "c", Name: "Read", Arguments: `{"a":1}`}), 7},
		// Absent arguments count as `null` → 1.
		{"call without arguments", AssistantMessage("", ToolCall{ID: "c", Name: "Read"}), 5},
		// Control characters: \n is two characters, \u0001 six; quotes 2:
		// 2+6+2 = 10 → 3.
		{"escaped arguments", AssistantMessage("", ToolCall{ID: "c", Name: "Read", Arguments: "\n\x01"}), 7},
		// "system" → 2; tool: name 1 + description 1 + parameters
		// `{"type":"object"}` (17) → 5.
		{"tool declaration", Message{Role: RoleSystem, Tools: []Tool{{Name: "Grep", Description: "find",
			Parameters: json.RawMessage(`{ "type" : "object" }`)}}}, 9},
		{"tool result with media", ToolMessage("c", TextPart("ok"), ImagePart("x")), 1 + 1 + 2000},
	} {
		if got := EstimateMessage(tt.msg); got != tt.want {
			t.Errorf("%s: EstimateMessage = %d, want %d", tt.name, got, tt.want)
		}
	}
	msgs := []Message{UserMessage("hi"), UserMessage("hello world")}
	if got, want := EstimateMessages(msgs), 2+4; got != want {
		t.Errorf("EstimateMessages = %d, want %d", got, want)
	}
	if got := EstimateMessages(nil); got != 0 {
		t.Errorf("EstimateMessages(nil) = %d", got)
	}
}

func TestEstimateTools(t *testing.T) {
	tools := []Tool{
		{Name: "Read", Description: "read a file", Parameters: json.RawMessage(`{"type":"object"}`)},
		{Name: "x", Parameters: nil},
	}
	// Read: 1 + 3 + 5; x: 1 + 0 + 0.
	if got, want := EstimateTools(tools), 10; got != want {
		t.Errorf("EstimateTools = %d, want %d", got, want)
	}
}
