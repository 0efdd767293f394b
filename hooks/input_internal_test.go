package hooks

import (
	"strings"
	"testing"
	"unicode"
)

func TestSnakeCase(t *testing.T) {
	for in, want := range map[string]string{
		"toolInput":           "tool_input",
		"toolCallId":          "tool_call_id",
		"stopHookActive":      "stop_hook_active",
		"tool_input":          "tool_input",
		"source":              "source",
		"estimatedTokenCount": "estimated_token_count",
	} {
		if got := snakeCase(in); got != want {
			t.Errorf("snakeCase(%q) = %q; want %q", in, got, want)
		}
	}
}

func FuzzSnakeCase(f *testing.F) {
	for _, s := range []string{"toolInput", "a_b", "ÄbcDef", "XMLHttp", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := snakeCase(s)
		if strings.ContainsFunc(got, unicode.IsUpper) && !strings.ContainsFunc(got, func(r rune) bool {
			return unicode.IsUpper(r) && unicode.ToLower(r) == r // letters without a lower case stay
		}) {
			t.Errorf("snakeCase(%q) = %q keeps an upper-case letter", s, got)
		}
		if again := snakeCase(got); again != got {
			t.Errorf("snakeCase is not idempotent on %q: %q then %q", s, got, again)
		}
	})
}
