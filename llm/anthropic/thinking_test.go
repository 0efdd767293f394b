package anthropic

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/llm/plainjson"
)

func TestThinkingProfiles(t *testing.T) {
	for _, tt := range []struct {
		model string
		want  profile
		known bool
	}{
		{"claude-mythos-preview", adaptiveProfile, true},
		{"claude-mythos.preview-2", adaptiveProfile, true},
		{"claude-opus-4-8", adaptiveProfile, true},
		{"claude-opus-4-7", adaptiveProfile, true},
		{"claude-opus-4-6", adaptiveProfile, true},
		{"claude-sonnet-5", adaptiveProfile, true},
		{"claude-sonnet-4-6", adaptiveProfile, true},
		{"claude-opus-4-5", opus45Profile, true},
		{"claude-opus-4-1", budgetProfile, true},
		{"claude-opus-4-20250514", budgetProfile, true},
		{"claude-3-opus", budgetProfile, true},
		{"claude-sonnet-4-5", budgetProfile, true},
		{"claude-sonnet-4", budgetProfile, true},
		{"claude-3-7-sonnet", budgetProfile, true},
		{"claude-haiku-4-5", budgetProfile, true},
		{"claude-fable-5", adaptiveProfile, true},
		{"claude-mythos-5", adaptiveProfile, true},
		{"claude-opus-4-9", profile{}, false},
		{"claude-haiku-5", profile{}, false},
		{"k25", profile{}, false},
	} {
		got, known := knownProfile(tt.model)
		if got != tt.want || known != tt.known {
			t.Errorf("knownProfile(%q) = %+v, %v; want %+v, %v", tt.model, got, known, tt.want, tt.known)
		}
		if !known && inferProfile(tt.model) != adaptiveProfile {
			t.Errorf("inferProfile(%q) is not the latest-Opus profile", tt.model)
		}
	}
}

func TestResolveProfile(t *testing.T) {
	yes, no := true, false
	for _, tt := range []struct {
		name     string
		model    string
		efforts  []string
		adaptive *bool
		want     profile
	}{
		{"inferred", "claude-sonnet-4-5", nil, nil, budgetProfile},
		{"forced off", "claude-opus-4-7", nil, &no, profile{mode: modeBudget}},
		{"forced off drops the effort param", "claude-opus-4-5", nil, &no, profile{mode: modeBudget}},
		{"forced on", "claude-sonnet-4-5", nil, &yes, adaptiveProfile},
		{"declared xhigh needs adaptive", "claude-sonnet-4-5", []string{"low", "xhigh"}, nil, adaptiveProfile},
		{"declared budget efforts keep the mode", "claude-opus-4-5", []string{"low", "high"}, nil, opus45Profile},
		{"unknown model is adaptive", "glm-4.6", nil, nil, adaptiveProfile},
	} {
		if got := resolveProfile(tt.model, tt.efforts, tt.adaptive); got != tt.want {
			t.Errorf("%s: got %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestWithThinkingTable(t *testing.T) {
	type out struct {
		Thinking string
		Effort   string
		Betas    []string
		Reported string
	}
	no := false
	for _, tt := range []struct {
		name   string
		opts   Options
		effort string
		want   out
	}{
		{"budget low", Options{Model: "claude-sonnet-4-5"}, "low",
			out{`{"type":"enabled","budget_tokens":1024}`, "", []string{betaInterleavedThinking}, "low"}},
		{"budget medium", Options{Model: "claude-sonnet-4-5"}, "medium",
			out{`{"type":"enabled","budget_tokens":4096}`, "", []string{betaInterleavedThinking}, "medium"}},
		{"budget on", Options{Model: "claude-sonnet-4-5"}, "on",
			out{`{"type":"enabled","budget_tokens":32000}`, "", []string{betaInterleavedThinking}, "high"}},
		{"budget with unknown effort", Options{Model: "claude-sonnet-4-5"}, "max",
			out{`{"type":"enabled"}`, "max", []string{betaInterleavedThinking}, "max"}},
		{"opus 4.5 sends the effort too", Options{Model: "claude-opus-4-5"}, "medium",
			out{`{"type":"enabled","budget_tokens":4096}`, "medium", []string{betaInterleavedThinking}, "medium"}},
		{"opus 4.5 on has no effort", Options{Model: "claude-opus-4-5"}, "on",
			out{`{"type":"enabled","budget_tokens":32000}`, "", []string{betaInterleavedThinking}, "high"}},
		{"adaptive on", Options{Model: "claude-opus-4-6"}, "on",
			out{`{"type":"adaptive","display":"summarized"}`, "", []string{}, "on"}},
		{"adaptive max", Options{Model: "claude-opus-4-6"}, "max",
			out{`{"type":"adaptive","display":"summarized"}`, "max", []string{}, "max"}},
		{"adaptive off still drops interleaved", Options{Model: "claude-opus-4-6"}, "off",
			out{`{"type":"disabled"}`, "", []string{}, "off"}},
		{"empty effort is on", Options{Model: "claude-opus-4-6"}, "",
			out{`{"type":"adaptive","display":"summarized"}`, "", []string{}, "on"}},
		{"kimi on", Options{Model: "k25", KimiThinking: true}, "on",
			out{`{"type":"enabled"}`, "", []string{}, "on"}},
		{"kimi ignores adaptive off", Options{Model: "k25", KimiThinking: true, Adaptive: &no}, "low",
			out{`{"type":"enabled"}`, "low", []string{}, "low"}},
		{"configured betas kept in budget mode", Options{Model: "claude-sonnet-4-5", Betas: []string{"files-api-2025-04-14"}}, "high",
			out{`{"type":"enabled","budget_tokens":32000}`, "", []string{"files-api-2025-04-14"}, "high"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := New(tt.opts).WithThinking(tt.effort).(*Provider)
			th, err := plainjson.Marshal(p.thinking)
			if err != nil {
				t.Fatal(err)
			}
			got := out{string(th), p.effort, p.betas, p.ThinkingEffort()}
			if got.Betas == nil {
				got.Betas = []string{}
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestCanKeepUnsignedThinking(t *testing.T) {
	for model, want := range map[string]bool{
		"k25": true, "kimi-k2.5": true, "glm-4.6": true, "deepseek-chat": true,
		"claude-sonnet-4-5": false, "claude-3-5-sonnet": false, "claude-mythos-preview": false, "claude-opus-9": false,
	} {
		if got := canKeepUnsignedThinking(model); got != want {
			t.Errorf("canKeepUnsignedThinking(%q) = %v, want %v", model, got, want)
		}
	}
}
