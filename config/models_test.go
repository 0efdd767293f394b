package config_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/llm"
)

// customEndpoints is spec 06 §3.7 verbatim (keys filled in).
const customEndpoints = `
[providers.deepseek]
type = "openai"
base_url = "https://api.deepseek.com/v1"
api_key = "sk-ds"

[models.deepseek-chat]
provider = "deepseek"
model = "deepseek-chat"
max_context_size = 128000
capabilities = ["tool_use"]

[providers.local]
type = "openai"
base_url = "http://127.0.0.1:11434/v1"

[models.qwen-local]
provider = "local"
model = "qwen2.5-coder:32b"
max_context_size = 32768
capabilities = ["tool_use"]

[providers.claude-proxy]
type = "anthropic"
base_url = "https://llm-gateway.example.com"
custom_headers = { "X-Team" = "infra" }
[providers.claude-proxy.env]
ANTHROPIC_API_KEY = "sk-ant-x"

[models.sonnet]
provider = "claude-proxy"
model = "claude-sonnet-4-5"
max_context_size = 200000
max_output_size = 32000

[providers.kimi]
type = "kimi"
api_key = "sk-kimi"

[models.k2-anthropic]
provider = "kimi"
model = "kimi-k2"
protocol = "anthropic"
base_url = "https://api.example-kimi-gateway.com/anthropic/v1"
max_context_size = 262144
`

func TestCustomEndpoints(t *testing.T) {
	dir, _ := home(t, customEndpoints)
	cfg, w := mustLoad(t, dir, nil)
	if len(w) != 0 {
		t.Fatalf("warnings: %q", messages(w))
	}
	type view struct {
		Transport       config.ProviderType
		BaseURL, APIKey string
		Capability      llm.Capability
		MaxOutput       int
		Efforts         []string
		Initial         string
	}
	for alias, want := range map[string]view{
		"deepseek-chat": {config.ProviderOpenAI, "https://api.deepseek.com/v1", "sk-ds",
			llm.Capability{ToolUse: true, MaxContextTokens: 128000}, 0, nil, ""},
		"qwen-local": {config.ProviderOpenAI, "http://127.0.0.1:11434/v1", "",
			llm.Capability{ToolUse: true, MaxContextTokens: 32768}, 0, nil, ""},
		"sonnet": {config.ProviderAnthropic, "https://llm-gateway.example.com", "sk-ant-x",
			llm.Capability{ImageIn: true, Thinking: true, ToolUse: true, MaxContextTokens: 200000}, 32000,
			[]string{"low", "medium", "high"}, "high"},
		"k2-anthropic": {config.ProviderAnthropic, "https://api.example-kimi-gateway.com/anthropic", "sk-kimi",
			llm.Capability{MaxContextTokens: 262144}, 0, nil, ""},
	} {
		m, err := cfg.Resolve(alias)
		if err != nil {
			t.Errorf("Resolve(%s): %v", alias, err)
			continue
		}
		got := view{m.Transport, m.BaseURL, m.APIKey, m.Capability, m.MaxOutputSize, m.SupportEfforts, m.InitialThinking()}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", alias, d)
		}
	}
	m, _ := cfg.Resolve("sonnet")
	if h := m.Headers("1"); h["X-Team"] != "infra" || h["User-Agent"] != "kimigo/1" {
		t.Errorf("sonnet headers = %v", h)
	}
}

func TestEffectiveModelOverrides(t *testing.T) {
	content := `
[providers.p]
type = "kimi"
api_key = "k"

[models.m]
provider = "p"
model = "kimi-k2"
max_context_size = 200000
max_input_size = 150000
capabilities = ["thinking", "IMAGE_IN"]
support_efforts = ["low", "high"]
default_effort = "high"
display_name = "K2"

[models.m.overrides]
max_context_size = 100000
support_efforts = ["low", "medium"]
display_name = "K2 small"
`
	dir, _ := home(t, content)
	cfg, _ := mustLoad(t, dir, nil)
	m, err := cfg.Resolve("m")
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Capability{ImageIn: true, Thinking: true, MaxContextTokens: 100000, MaxInputTokens: 100000}
	if d := cmp.Diff(want, m.Capability); d != "" {
		t.Errorf("capability (-want +got):\n%s", d)
	}
	if m.DefaultEffort != "" || !cmp.Equal(m.SupportEfforts, []string{"low", "medium"}) || m.DisplayName != "K2 small" {
		t.Errorf("effective: default %q efforts %v name %q", m.DefaultEffort, m.SupportEfforts, m.DisplayName)
	}
	if e := cfg.Models["m"]; e.MaxContextSize != 200000 || e.DefaultEffort != "high" {
		t.Error("resolution changed the stored entry")
	}
}

func TestThinkingResolution(t *testing.T) {
	for _, tt := range []struct {
		name, thinking, caps string
		env                  config.Env
		want                 string
		keep                 string
	}{
		{"not a thinking model", "", `["tool_use"]`, nil, "", "all"},
		{"on by default", "", `["thinking"]`, nil, "on", "all"},
		{"disabled", "enabled = false", `["thinking"]`, nil, "off", "all"},
		{"always thinking ignores disabled", "enabled = false", `["always_thinking"]`, nil, "on", "all"},
		{"global effort offered", `effort = "low"`, `["thinking"]`, nil, "low", "all"},
		{"global effort not offered", `effort = "max"`, `["thinking"]`, nil, "high", "all"},
		{"kimi env effort wins", `effort = "low"`, `["thinking"]`, config.Env{"KIMI_MODEL_THINKING_EFFORT": "max"}, "max", "all"},
		{"keep off", `keep = "none"`, `["thinking"]`, nil, "on", ""},
		{"keep env wins", `keep = "none"`, `["thinking"]`, config.Env{"KIMI_MODEL_THINKING_KEEP": "recent"}, "on", "recent"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			content := "[thinking]\n" + tt.thinking + "\n[providers.p]\ntype = \"kimi\"\napi_key = \"k\"\n" +
				"[models.m]\nprovider = \"p\"\nmodel = \"kimi-k2\"\nmax_context_size = 1000\ncapabilities = " + tt.caps + "\n"
			if tt.want == "high" {
				content += "support_efforts = [\"low\", \"high\"]\ndefault_effort = \"high\"\n"
			}
			dir, _ := home(t, content)
			cfg, _ := mustLoad(t, dir, tt.env)
			m, err := cfg.Resolve("m")
			if err != nil {
				t.Fatal(err)
			}
			if m.InitialThinking() != tt.want || m.Thinking.Keep != tt.keep {
				t.Errorf("InitialThinking = %q keep %q; want %q keep %q", m.InitialThinking(), m.Thinking.Keep, tt.want, tt.keep)
			}
		})
	}
}

func TestResolutionErrors(t *testing.T) {
	content := `
[providers.r]
type = "vertexai"
api_key = "k"

[providers.o]
type = "kimi"
oauth = { storage = "file", key = "tok" }

[providers.both]
type = "kimi"
api_key = "k"
oauth = { storage = "file", key = "tok" }

[models.vertex]
provider = "r"
model = "gemini-2.5-pro"
max_context_size = 1

[models.managed]
provider = "o"
model = "k3"
max_context_size = 1

[models.mixed]
provider = "both"
model = "k3"
max_context_size = 1

[models.orphan]
provider = "missing"
model = "x"
max_context_size = 1
`
	dir, path := home(t, content)
	cfg, _ := mustLoad(t, dir, nil)
	for alias, want := range map[string]struct {
		code config.Code
		msg  string
	}{
		"vertex":  {config.CodeInvalid, `Provider type "vertexai" is not supported yet.`},
		"managed": {config.CodeLoginRequired, `OAuth provider "o" requires login before it can be used.`},
		"mixed": {config.CodeInvalid, `Provider "both" has both apiKey and oauth set in config.toml — ` +
			`they are mutually exclusive. Remove one.`},
		"orphan": {config.CodeInvalid, `Provider "missing" for model "orphan" is not configured.`},
	} {
		_, err := cfg.Resolve(alias)
		var ce *config.Error
		if !errors.As(err, &ce) || ce.Code != want.code || ce.Message != want.msg || ce.File != path {
			t.Errorf("Resolve(%s) = %v; want %s %q naming %s", alias, err, want.code, want.msg, path)
		}
	}
}

func TestResumeModel(t *testing.T) {
	dir, _ := home(t, "default_model = \"fake\"\n"+goodProvider)
	cfg, _ := mustLoad(t, dir, nil)
	for _, tt := range []struct{ flag, saved, want string }{
		{"", "fake", "fake"},
		{"", "gone", "fake"},
		{"", config.OfflineAlias, config.OfflineAlias},
		{"fake", config.OfflineAlias, "fake"},
	} {
		m, err := cfg.ResumeModel(tt.flag, tt.saved)
		if err != nil || m.Alias != tt.want {
			t.Errorf("ResumeModel(%q, %q) = %q, %v; want %q", tt.flag, tt.saved, m.Alias, err, tt.want)
		}
	}
	if _, err := cfg.ResumeModel("nope", "fake"); !errors.Is(err, config.ErrModelNotConfigured) {
		t.Errorf("ResumeModel with an unknown --model = %v", err)
	}
}

func TestBudgetInputs(t *testing.T) {
	dir, _ := home(t, goodProvider+"max_output_size = 4096\n[loop_control]\nreserved_context_size = 10000\n")
	cfg, _ := mustLoad(t, dir, config.Env{"KIMI_MODEL_MAX_COMPLETION_TOKENS": "0", "KIMI_MODEL_MAX_TOKENS": "8192"})
	m, _ := cfg.Resolve("fake")
	want := llm.BudgetInputs{MaxCompletionTokensOverride: "0", MaxTokensOverride: "8192", MaxOutputSize: 4096,
		ReservedContextSize: 10000}
	if d := cmp.Diff(want, m.Budget); d != "" {
		t.Errorf("budget (-want +got):\n%s", d)
	}
	if llm.ResolveCompletionBudget(m.Budget) != nil {
		t.Error("KIMI_MODEL_MAX_COMPLETION_TOKENS=0 must disable the cap")
	}
	if m.Loop.ReservedContextSize == nil || *m.Loop.ReservedContextSize != 10000 {
		t.Errorf("model loop control = %+v", m.Loop)
	}
}

func TestClaudeProfiles(t *testing.T) {
	for _, tt := range []struct {
		typ, model, adaptive string
		caps                 []string
		efforts              []string
	}{
		{"anthropic", "claude-opus-4-7", "", []string{"thinking"}, []string{"low", "medium", "high", "xhigh", "max"}},
		{"anthropic", "claude-sonnet-4-6", "", []string{"thinking"}, []string{"low", "medium", "high", "max"}},
		{"anthropic", "claude-3-5-sonnet-20241022", "", []string{"thinking"}, []string{"low", "medium", "high"}},
		{"anthropic", "claude-fable-5", "", []string{"always_thinking"}, []string{"low", "medium", "high", "xhigh", "max"}},
		{"anthropic", "claude-latest", "", []string{"thinking"}, []string{"low", "medium", "high", "xhigh", "max"}},
		{"anthropic", "claude-latest", "adaptive_thinking = false\n", []string{"thinking"}, []string{"low", "medium", "high"}},
		{"anthropic", "glm-4.6", "", nil, nil},
		{"openai", "claude-latest", "", nil, nil},
		{"openai", "claude-sonnet-4-20250514", "", []string{"thinking"}, []string{"low", "medium", "high"}},
	} {
		content := "[providers.p]\ntype = \"" + tt.typ + "\"\napi_key = \"k\"\n[models.m]\nprovider = \"p\"\nmodel = \"" +
			tt.model + "\"\nmax_context_size = 1000\n" + tt.adaptive
		dir, _ := home(t, content)
		cfg, _ := mustLoad(t, dir, nil)
		m, err := cfg.Resolve("m")
		if err != nil {
			t.Fatal(err)
		}
		if !cmp.Equal(tt.efforts, m.SupportEfforts) || (tt.caps != nil) != m.Capability.Thinking ||
			m.AlwaysThinking != (len(tt.caps) > 0 && tt.caps[0] == "always_thinking") {
			t.Errorf("%s/%s: efforts %v thinking %v always %v; want %v %v", tt.typ, tt.model, m.SupportEfforts,
				m.Capability.Thinking, m.AlwaysThinking, tt.efforts, tt.caps)
		}
	}
}
