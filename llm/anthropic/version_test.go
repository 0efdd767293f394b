package anthropic

import "testing"

func TestParseModelVersion(t *testing.T) {
	for _, tt := range []struct {
		model         string
		requireClaude bool
		want          modelVersion
		ok            bool
	}{
		{"claude-sonnet-4-5", true, modelVersion{familySonnet, 4, 5}, true},
		{"claude-sonnet-4-5-20250929", true, modelVersion{familySonnet, 4, 5}, true},
		{"claude-opus-4-20250514", true, modelVersion{familyOpus, 4, -1}, true},
		{"claude-opus-4-1-20250805", true, modelVersion{familyOpus, 4, 1}, true},
		{"claude-opus-4-8", true, modelVersion{familyOpus, 4, 8}, true},
		{"Claude-Opus-4.7", true, modelVersion{familyOpus, 4, 7}, true},
		{"claude_haiku_4_5", true, modelVersion{familyHaiku, 4, 5}, true},
		{"claude-fable-5", true, modelVersion{familyFable, 5, -1}, true},
		{"claude-mythos-5-1", true, modelVersion{familyMythos, 5, 1}, true},
		{"claude-3-5-sonnet-20241022", true, modelVersion{familySonnet, 3, 5}, true},
		{"claude-3-7-sonnet-latest", true, modelVersion{familySonnet, 3, 7}, true},
		{"claude-3-opus-20240229", true, modelVersion{familyOpus, 3, -1}, true},
		{"claude-3-haiku", true, modelVersion{familyHaiku, 3, -1}, true},
		// A date right after the family is not a version.
		{"claude-sonnet-20250101", true, modelVersion{}, false},
		// A three-digit major is not a version; the search moves on.
		{"opus-123-sonnet-4", false, modelVersion{familySonnet, 4, -1}, true},
		// A three-digit minor is dropped, the major stays.
		{"claude-sonnet-4-567", true, modelVersion{familySonnet, 4, -1}, true},
		// A two-digit minor counts.
		{"claude-opus-4-10", true, modelVersion{familyOpus, 4, 10}, true},
		{"us.anthropic.claude-sonnet-4-5-v1:0", true, modelVersion{familySonnet, 4, 5}, true},
		{"sonnet-4-5", true, modelVersion{}, false},
		{"sonnet-4-5", false, modelVersion{familySonnet, 4, 5}, true},
		{"k25", false, modelVersion{}, false},
		{"kimi-k2.5", false, modelVersion{}, false},
		{"my-model", true, modelVersion{}, false},
		{"claude-mythos-preview", false, modelVersion{}, false},
		{"opus-", false, modelVersion{}, false},
		{"", false, modelVersion{}, false},
	} {
		got, ok := parseModelVersion(tt.model, tt.requireClaude)
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseModelVersion(%q, %v) = %+v, %v; want %+v, %v", tt.model, tt.requireClaude, got, ok, tt.want, tt.ok)
		}
	}
}
