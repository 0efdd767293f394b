package config_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/llm"
)

func TestEnvModelErrors(t *testing.T) {
	base := func(kv ...string) config.Env {
		e := config.Env{"KIMI_MODEL_NAME": "m", "KIMI_MODEL_API_KEY": "k"}
		for i := 0; i+1 < len(kv); i += 2 {
			e[kv[i]] = kv[i+1]
		}
		return e
	}
	for _, tt := range []struct {
		env  config.Env
		want string
	}{
		{base("KIMI_MODEL_API_KEY", " "), "KIMI_MODEL_NAME is set but KIMI_MODEL_API_KEY is missing."},
		{base("KIMI_MODEL_PROVIDER_TYPE", "gemini"), `KIMI_MODEL_PROVIDER_TYPE must be one of kimi, anthropic, openai, got "gemini".`},
		{base("KIMI_MODEL_MAX_CONTEXT_SIZE", "0"), `KIMI_MODEL_MAX_CONTEXT_SIZE must be a positive integer, got "0".`},
		{base("KIMI_MODEL_MAX_CONTEXT_SIZE", "-5"), `KIMI_MODEL_MAX_CONTEXT_SIZE must be a positive integer, got "-5".`},
		{base("KIMI_MODEL_MAX_OUTPUT_SIZE", "1e3"), `KIMI_MODEL_MAX_OUTPUT_SIZE must be a positive integer, got "1e3".`},
		{base("KIMI_MODEL_ADAPTIVE_THINKING", "flase"),
			`KIMI_MODEL_ADAPTIVE_THINKING must be a boolean (true/false/1/0/yes/no/on/off), got "flase".`},
	} {
		dir, _ := home(t, "")
		_, _, err := load(t, dir, tt.env)
		if err == nil || err.Error() != tt.want {
			t.Errorf("Load(%v) = %v; want %q", tt.env, err, tt.want)
		}
	}
}

func TestEnvModelBlankNameIsInactive(t *testing.T) {
	dir, _ := home(t, "")
	cfg, _ := mustLoad(t, dir, config.Env{"KIMI_MODEL_NAME": "  ", "KIMI_MODEL_PROVIDER_TYPE": "bogus"})
	if cfg.EnvModel || len(cfg.Models) != 0 {
		t.Error("a blank KIMI_MODEL_NAME activated the synthetic model")
	}
}

func TestEnvModelDefaults(t *testing.T) {
	for _, tt := range []struct {
		typ, base string
	}{
		{"", "https://api.moonshot.ai/v1"},
		{"OpenAI", "https://api.openai.com/v1"},
		{"anthropic", "https://api.anthropic.com"},
	} {
		dir, _ := home(t, "[thinking]\neffort = \"low\"\n")
		cfg, _ := mustLoad(t, dir, config.Env{"KIMI_MODEL_NAME": "some-model", "KIMI_MODEL_API_KEY": "k",
			"KIMI_MODEL_PROVIDER_TYPE": tt.typ, "KIMI_MODEL_THINKING_EFFORT": "max"})
		m, _, err := cfg.SelectModel("")
		if err != nil {
			t.Fatal(err)
		}
		want := llm.Capability{ImageIn: true, Thinking: true, MaxContextTokens: 262144}
		if d := cmp.Diff(want, m.Capability); d != "" || m.BaseURL != tt.base || m.Thinking.Effort != "max" ||
			m.Alias != config.EnvModelAlias || cfg.Thinking.Effort != "max" {
			t.Errorf("type %q: base %q effort %q alias %q, capability (-want +got):\n%s",
				tt.typ, m.BaseURL, m.Thinking.Effort, m.Alias, d)
		}
	}
	dir, _ := home(t, "")
	cfg, _ := mustLoad(t, dir, config.Env{"KIMI_MODEL_NAME": "x", "KIMI_MODEL_API_KEY": "k",
		"KIMI_MODEL_CAPABILITIES": " Tool_Use, ,video_in ", "KIMI_MODEL_MAX_CONTEXT_SIZE": "1000",
		"KIMI_MODEL_MAX_OUTPUT_SIZE": "500", "KIMI_MODEL_DISPLAY_NAME": "X", "KIMI_MODEL_BASE_URL": "https://gw/v1",
		"KIMI_MODEL_ADAPTIVE_THINKING": "on"})
	m, _, _ := cfg.SelectModel("")
	want := llm.Capability{VideoIn: true, ToolUse: true, MaxContextTokens: 1000}
	if d := cmp.Diff(want, m.Capability); d != "" || m.MaxOutputSize != 500 || m.DisplayName != "X" ||
		m.BaseURL != "https://gw/v1" || m.AdaptiveThinking == nil || !*m.AdaptiveThinking {
		t.Errorf("explicit settings: %+v\ncapability (-want +got):\n%s", m, d)
	}
}
