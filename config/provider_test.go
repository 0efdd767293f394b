package config_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/llmtest"
)

// envModel loads an empty config with the given KIMI_MODEL_* variables and
// returns the selected model.
func envModel(t *testing.T, env config.Env) config.Model {
	t.Helper()
	dir, _ := home(t, "")
	cfg, _ := mustLoad(t, dir, env)
	m, implicit, err := cfg.SelectModel("")
	if err != nil || implicit {
		t.Fatalf("SelectModel = %v (implicit %v); want the synthetic model", err, implicit)
	}
	return m
}

func TestEnvModelDrivesKimi(t *testing.T) {
	srv := llmtest.FakeChatCompletionsWith(t, llmtest.ChatOptions{Flavour: llmtest.ChatKimi}, llmtest.Think("hmm", "hello"))
	m := envModel(t, config.Env{"KIMI_MODEL_NAME": "kimi-k2", "KIMI_MODEL_API_KEY": "sk-env",
		"KIMI_MODEL_BASE_URL": llmtest.ChatBaseURL(srv), "KIMI_MODEL_TEMPERATURE": "0.5"})
	res := ask(t, m, config.ProviderOptions{Version: "0.1.0", SessionID: "session_1"})
	if got := llm.ExtractText(res.Message, ""); got != "hello" {
		t.Errorf("answer = %q; want hello", got)
	}
	r := srv.Request(0)
	body := r.JSON(t)
	got := map[string]any{"model": body["model"], "thinking": body["thinking"], "temperature": body["temperature"],
		"prompt_cache_key": body["prompt_cache_key"], "auth": r.Header.Get("Authorization"), "ua": r.Header.Get("User-Agent")}
	want := map[string]any{"model": "kimi-k2", "thinking": map[string]any{"type": "enabled", "keep": "all"},
		"temperature": 0.5, "prompt_cache_key": "session_1", "auth": "Bearer sk-env", "ua": "kimigo/0.1.0"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("kimi request (-want +got):\n%s", d)
	}
}

func TestEnvModelDrivesOpenAI(t *testing.T) {
	srv := llmtest.FakeChatCompletions(t, llmtest.Text("hi there"))
	m := envModel(t, config.Env{"KIMI_MODEL_NAME": "gpt-4o", "KIMI_MODEL_API_KEY": "sk-oa",
		"KIMI_MODEL_PROVIDER_TYPE": "openai", "KIMI_MODEL_BASE_URL": llmtest.ChatBaseURL(srv),
		"KIMI_MODEL_TEMPERATURE": "0.5"})
	if got := llm.ExtractText(ask(t, m, config.ProviderOptions{}).Message, ""); got != "hi there" {
		t.Errorf("answer = %q", got)
	}
	body := srv.Request(0).JSON(t)
	if body["model"] != "gpt-4o" || body["temperature"] != nil || srv.Request(0).Header.Get("Authorization") != "Bearer sk-oa" {
		t.Errorf("openai request: model %v temperature %v (kimi-only) auth %q", body["model"], body["temperature"],
			srv.Request(0).Header.Get("Authorization"))
	}
}

func TestEnvModelDrivesAnthropic(t *testing.T) {
	srv := llmtest.FakeAnthropic(t, llmtest.Text("bonjour"))
	m := envModel(t, config.Env{"KIMI_MODEL_NAME": "claude-sonnet-4-5", "KIMI_MODEL_API_KEY": "sk-ant",
		"KIMI_MODEL_PROVIDER_TYPE": "anthropic", "KIMI_MODEL_BASE_URL": srv.URL})
	if m.InitialThinking() != "high" {
		t.Errorf("InitialThinking = %q; want high (Claude profile default)", m.InitialThinking())
	}
	if got := llm.ExtractText(ask(t, m, config.ProviderOptions{SessionID: "s1"}).Message, ""); got != "bonjour" {
		t.Errorf("answer = %q", got)
	}
	r := srv.Request(0)
	body := r.JSON(t)
	if r.Header.Get("X-Api-Key") != "sk-ant" || body["model"] != "claude-sonnet-4-5" ||
		!cmp.Equal(body["metadata"], map[string]any{"user_id": "s1"}) {
		t.Errorf("anthropic request: key %q model %v metadata %v", r.Header.Get("X-Api-Key"), body["model"], body["metadata"])
	}
	if th, _ := body["thinking"].(map[string]any); th["type"] != "enabled" || th["budget_tokens"] != float64(32000) {
		t.Errorf("thinking = %v; want enabled with the high budget", body["thinking"])
	}
}

func TestProviderHonoursProxyEnv(t *testing.T) {
	// The fake plays the proxy: a request for http://llm.invalid reaches it
	// only through HTTP_PROXY.
	srv := llmtest.FakeChatCompletions(t, llmtest.Text("via proxy"))
	m := envModel(t, config.Env{"KIMI_MODEL_NAME": "gpt-4o", "KIMI_MODEL_API_KEY": "k",
		"KIMI_MODEL_PROVIDER_TYPE": "openai", "KIMI_MODEL_BASE_URL": "http://llm.invalid/v1", "HTTP_PROXY": srv.URL})
	if got := llm.ExtractText(ask(t, m, config.ProviderOptions{}).Message, ""); got != "via proxy" {
		t.Errorf("answer = %q", got)
	}

	c := config.NewHTTPClient(config.ProxySettings{HTTPProxy: "http://proxy:1", HTTPSProxy: "http://sproxy:2", NoProxy: "skip.example"})
	proxy := c.Transport.(*http.Transport).Proxy
	for target, want := range map[string]string{
		"http://api.example/v1":    "http://proxy:1",
		"https://api.example/v1":   "http://sproxy:2",
		"https://skip.example/v1":  "",
		"http://127.0.0.1:8080/v1": "",
		"http://localhost:11434":   "",
	} {
		req, _ := http.NewRequest(http.MethodPost, target, nil)
		u, err := proxy(req)
		got := ""
		if u != nil {
			got = u.String()
		}
		if err != nil || got != want {
			t.Errorf("proxy for %s = %q, %v; want %q", target, got, err, want)
		}
	}
}

func TestNewProviderThinkingOverride(t *testing.T) {
	srv := llmtest.FakeChatCompletionsWith(t, llmtest.ChatOptions{Flavour: llmtest.ChatKimi}, llmtest.Text("ok"))
	m := envModel(t, config.Env{"KIMI_MODEL_NAME": "kimi-k2", "KIMI_MODEL_API_KEY": "k",
		"KIMI_MODEL_BASE_URL": llmtest.ChatBaseURL(srv)})
	ask(t, m, config.ProviderOptions{ThinkingEffort: "off"})
	if th := srv.Request(0).JSON(t)["thinking"]; !cmp.Equal(th, map[string]any{"type": "disabled"}) {
		t.Errorf("thinking = %v; want disabled without keep", th)
	}
}

func TestNewProviderUnsupportedTransport(t *testing.T) {
	_, err := config.NewProvider(config.Model{Transport: config.ProviderVertexAI}, config.ProviderOptions{})
	if err == nil || !strings.Contains(err.Error(), "not supported yet") {
		t.Errorf("NewProvider(vertexai) = %v", err)
	}
}

func TestLoopbackKeepsCustomAuthorization(t *testing.T) {
	srv := llmtest.FakeChatCompletions(t, llmtest.Text("ok"))
	extra := "custom_headers = { Authorization = \"Bearer gateway-token\" }\n"
	dir, _ := home(t, providerConfig("openai", llmtest.ChatBaseURL(srv), extra))
	cfg, _ := mustLoad(t, dir, nil)
	m, _, err := cfg.SelectModel("")
	if err != nil {
		t.Fatal(err)
	}
	ask(t, m, config.ProviderOptions{})
	if got := srv.Request(0).Header.Get("Authorization"); got != "Bearer gateway-token" {
		t.Errorf("Authorization = %q; want the custom header kept", got)
	}
}
