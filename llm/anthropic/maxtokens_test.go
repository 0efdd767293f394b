package anthropic

import (
	"testing"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/llmtest"
)

func TestSA6MaxTokens(t *testing.T) {
	for _, tt := range []struct {
		model    string
		override int
		want     int
	}{
		{"claude-opus-4-8", 0, 128000},
		{"claude-opus-4-9", 0, 128000}, // falls back to 4-8
		{"claude-opus-4-5-20251101", 0, 64000},
		{"claude-opus-4-1", 0, 32000},
		{"claude-opus-4-20250514", 0, 32000},
		{"claude-opus-4-4", 0, 32000}, // walks down to 4-1
		{"claude-sonnet-4-6", 0, 128000},
		{"claude-sonnet-5", 0, 128000},
		{"claude-haiku-4-5", 0, 64000},
		{"claude-3-5-sonnet-20241022", 0, 8192},
		{"claude-3-7-sonnet-20250219", 0, 8192},
		{"claude-3-opus", 0, 4096},
		{"claude-fable-5", 0, 128000},
		{"claude-sonnet-4-5", 1000, 1000},
		{"claude-sonnet-4-5", 999999, 64000},
		{"claude-opus-9", 0, 128000}, // parsed but uncatalogued
		{"my-model", 0, 128000},
		{"my-model", 5000, 5000},
		{"sonnet-4-5", 0, 128000}, // no "claude": no ceiling
	} {
		if got := resolveMaxTokens(tt.model, tt.override); got != tt.want {
			t.Errorf("resolveMaxTokens(%q, %d) = %d, want %d", tt.model, tt.override, got, tt.want)
		}
	}
}

func TestMaxTokensOnTheWire(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts Options
		cap  int
		want int
	}{
		{"default is the ceiling", Options{Model: "claude-sonnet-4-5"}, 0, 64000},
		{"a cap lowers it", Options{Model: "claude-sonnet-4-5"}, 1000, 1000},
		{"a cap above the ceiling is clamped", Options{Model: "claude-sonnet-4-5"}, 999999, 64000},
		{"explicit default is kept", Options{Model: "claude-sonnet-4-5", DefaultMaxTokens: 5000}, 1000, 5000},
		{"unknown model", Options{Model: "k25"}, 0, 128000},
		{"unknown model with a cap", Options{Model: "k25"}, 32000, 32000},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.FakeAnthropic(t, llmtest.Text("ok"))
			var p llm.Provider = newTestProvider(srv, tt.opts)
			if tt.cap > 0 {
				// The used-context budget does not matter to Anthropic.
				p = p.WithMaxCompletionTokens(tt.cap, llm.ContextBudget{UsedContextTokens: 190000, MaxContextTokens: 200000})
			}
			mustRun(t, p, llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}})
			if got := int(wireBody(t, srv, 0)["max_tokens"].(float64)); got != tt.want || p.MaxCompletionTokens() != tt.want {
				t.Errorf("max_tokens = %d (reported %d), want %d", got, p.MaxCompletionTokens(), tt.want)
			}
		})
	}
	// A second, larger cap never raises the value again.
	p := New(Options{Model: "claude-sonnet-4-5"}).WithMaxCompletionTokens(1000, llm.ContextBudget{}).WithMaxCompletionTokens(50000, llm.ContextBudget{})
	if got := p.MaxCompletionTokens(); got != 1000 {
		t.Errorf("after two caps: %d, want 1000", got)
	}
	if got := New(Options{Model: "claude-sonnet-4-5"}).WithMaxCompletionTokens(0, llm.ContextBudget{}).MaxCompletionTokens(); got != 64000 {
		t.Errorf("a zero cap changed max_tokens to %d", got)
	}
}
