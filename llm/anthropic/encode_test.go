package anthropic

import (
	"testing"

	"github.com/kimigo/kimigo/llm/plainjson"
)

// wireMessagesWith are messages with every kind of block, in every form
// the provider builds (keys present and absent, cache breakpoints on each
// kind that takes one), whose strings are s.
func wireMessagesWith(s string) []wireMessage {
	sig := s + "sig"
	return []wireMessage{
		{Role: roleUser},
		{Role: roleUser, Content: []contentBlock{}},
		{Role: roleAssistant, Content: []contentBlock{
			&thinkingBlock{Type: blockThinking, Thinking: s},
			&thinkingBlock{Type: blockThinking, Thinking: s, Signature: sig},
			&textBlock{Type: blockText, Text: s},
			&toolUseBlock{Type: blockToolUse, ID: s + "id", Name: s, Input: `{"a":[1,"<&>"]}`},
			&toolUseBlock{Type: blockToolUse, ID: "c2", Name: "n", Input: "", CacheControl: ephemeral},
		}},
		{Role: roleUser, Content: []contentBlock{
			&toolResultBlock{Type: blockToolResult, ToolUseID: s, Content: []contentBlock{}},
			&toolResultBlock{Type: blockToolResult, ToolUseID: "c2", Content: []contentBlock{
				&textBlock{Type: blockText, Text: s, CacheControl: ephemeral},
				&mediaBlock{Type: blockImage, Source: mediaSource{Type: sourceBase64, MediaType: "image/png", Data: s}},
			}, CacheControl: ephemeral},
			&toolResultBlock{Type: blockToolResult, ToolUseID: "c3"},
			&mediaBlock{Type: blockImage, Source: mediaSource{Type: sourceURL, URL: s}, CacheControl: ephemeral},
			&mediaBlock{Type: blockVideo, Source: mediaSource{Type: sourceBase64, MediaType: s, Data: s, URL: s}},
			&mediaBlock{Type: blockVideo, Source: mediaSource{Type: sourceURL}},
			&textBlock{Type: blockText, Text: s, CacheControl: ephemeral},
		}},
	}
}

// checkAppendMessage fails unless appendMessage writes what encoding/json
// writes for m, appended to what dst held.
func checkAppendMessage(t *testing.T, m *wireMessage) {
	t.Helper()
	want, err := plainjson.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	got := appendMessage([]byte("prefix,"), m)
	if string(got) != "prefix,"+string(want) {
		t.Errorf("appendMessage:\n%s\nencoding/json:\nprefix,%s", got, want)
	}
}

// TestAppendMessageMatchesEncodingJSON: the hand-written message encoding
// is byte for byte encoding/json's (without HTML escaping) for every block
// kind and form, and for text that needs escaping.
func TestAppendMessageMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", "<system>a && b</system>", "quote \" backslash \\ tab \t nl \n cr \r",
		"\x00\x01\x1f\x7f", "\xff invalid", "sep\u2028\u2029", "é 😀 ünïcödé"} {
		for _, m := range wireMessagesWith(s) {
			checkAppendMessage(t, &m)
		}
	}
}

func FuzzAppendMessage(f *testing.F) {
	for _, s := range []string{"", "<a href=\"x\">&</a>", "\xed\xa0\x80", "line\u2028", "\x00\t\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, m := range wireMessagesWith(s) {
			checkAppendMessage(t, &m)
		}
	})
}
