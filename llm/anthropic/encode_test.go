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
			&toolUseBlock{Type: blockToolUse, ID: "c3", Name: "n", Input: rawJSON(`{"s":` + string(plainjson.Quote(s)) + `}`)},
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

// TestSameMessageIsSameEncoding: two messages are the same to sameMessage
// exactly when they encode the same, across messages of every block kind
// that differ in a string, in content null or empty, or in one block's
// cache breakpoint.
func TestSameMessageIsSameEncoding(t *testing.T) {
	var all []wireMessage
	for _, s := range []string{"a", "b", ""} {
		all = append(all, wireMessagesWith(s)...)
		for i, m := range wireMessagesWith(s) {
			for k, b := range m.Content {
				if _, ok := b.(cacheable); !ok {
					continue
				}
				toggled := wireMessagesWith(s)[i] // fresh blocks: only block k differs from m
				c := toggled.Content[k].(cacheable)
				var before []byte
				before, _ = plainjson.Marshal(toggled.Content[k])
				c.setCacheControl(ephemeral)
				if after, _ := plainjson.Marshal(toggled.Content[k]); string(after) == string(before) {
					c.setCacheControl(nil)
				}
				all = append(all, toggled)
			}
		}
	}
	for _, s := range []string{"a", "b"} { // each block alone, so that one field tells them apart
		for _, m := range wireMessagesWith(s) {
			for _, b := range m.Content {
				all = append(all, wireMessage{Role: m.Role, Content: []contentBlock{b}})
			}
		}
	}
	all = append(all, wireMessage{Role: roleAssistant}, wireMessage{Role: roleAssistant, Content: []contentBlock{}})
	for i := range all {
		for j := range all {
			ei, _ := plainjson.Marshal(&all[i])
			ej, _ := plainjson.Marshal(&all[j])
			if got, want := sameMessage(&all[i], &all[j]), string(ei) == string(ej); got != want {
				t.Errorf("sameMessage = %v for\n%s\n%s", got, ei, ej)
			}
		}
	}
}
