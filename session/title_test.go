package session_test

import (
	"strings"
	"testing"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/session"
)

func TestSanitizePrompt(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"S34 key=value secret", "deploy with api_key=sk-abcdefghijklmnop please", "deploy with api_key=[redacted] please"},
		{"colon and quotes", `set password: "hunter 2" now`, "set password=[redacted] now"},
		{"each secret word", "TOKEN=abc Secret='x y' pwd:1 passwd=2 api-key=3 apikey=4",
			"TOKEN=[redacted] Secret=[redacted] pwd=[redacted] passwd=[redacted] api-key=[redacted] apikey=[redacted]"},
		{"bearer keeps the word as typed", "curl -H 'AUTHORIZATION: bearer abc.def' x", "curl -H 'AUTHORIZATION: Bearer [redacted]' x"},
		{"sk- key alone", "use sk-ABCDEFGHIJKL_-9 here", "use [redacted] here"},
		{"short sk- kept", "sk-short", "sk-short"},
		{"long word", "hash " + strings.Repeat("a1", 20) + " end", "hash [redacted] end"},
		{"39 characters kept", strings.Repeat("b", 39), strings.Repeat("b", 39)},
		{"private key block", "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIE\nabc\n-----END RSA PRIVATE KEY-----\ndone",
			"key: [redacted] done"},
		{"control characters and spaces", "a\tb\x00c\r\n\n  d  ", "a b c d"},
		{"blank", " \n\t", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := session.SanitizePrompt(tt.in); got != tt.want {
				t.Errorf("SanitizePrompt(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestPromptText(t *testing.T) {
	parts := []llm.ContentPart{
		llm.TextPart("look at this"),
		llm.ThinkPart("hidden", ""),
		llm.TextPart("   "),
		llm.ImagePart("data:image/png;base64,AAAA"),
		llm.AudioPart("https://x/a.mp3"),
		llm.VideoPart("https://x/v.mp4", ""),
		llm.TextPart("and this"),
	}
	want := "look at this\n[image]\n[audio]\n[video]\nand this"
	if got := session.PromptText(parts); got != want {
		t.Errorf("PromptText = %q, want %q", got, want)
	}
}
