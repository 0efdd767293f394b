package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/llm/llmtest"
)

// modelsServer is a loopback Kimi Platform: /v1/models accepts one key,
// and every other request goes to the fake model service chat (the Kimi
// flavour of llmtest), when given.
func modelsServer(t *testing.T, key, body string, chat *llmtest.Server) *httptest.Server {
	t.Helper()
	var proxy http.Handler = http.NotFoundHandler()
	if chat != nil {
		u, err := url.Parse(chat.URL)
		if err != nil {
			t.Fatal(err)
		}
		proxy = httputil.NewSingleHostReverseProxy(u)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" {
			proxy.ServeHTTP(w, r)
			return
		}
		if r.Header.Get("Authorization") != "Bearer "+key {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"error":{"message":"Invalid Authentication"}}`)
			return
		}
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

const platformModels = `{"data":[
 {"id":"kimi-k2-turbo","context_length":262144,"display_name":"Kimi K2 Turbo","supports_thinking_type":"no","supports_image_in":true},
 {"id":"kimi-k3","context_length":1048576,"supports_thinking_type":"only","think_efforts":{"support":true,"valid_efforts":["low","high"],"default_effort":"high"}},
 {"id":"moonshot-v1-8k","context_length":8192},
 {"id":"","context_length":5}]}`

// Spec 06 §3.5 through the binary: login lists the platform's models with
// the key, writes the provider, every kimi-k model and default_model into
// config.toml, and the next print run uses that model; logout removes
// them. A rejected key fails with the spec's wording and writes nothing.
func TestLoginAndLogout(t *testing.T) {
	c := newCLI(t)
	chat := llmtest.FakeChatCompletionsWith(t, llmtest.ChatOptions{Flavour: llmtest.ChatKimi}, llmtest.Text("Logged in."))
	models := modelsServer(t, "sk-good", platformModels, chat)
	cfgPath := filepath.Join(c.home, "config.toml")

	r := c.runIn(c.dir, "sk-bad\n", "login", "--platform", "moonshot-ai", "--base-url", models.URL+"/v1")
	if r.code != 1 || !strings.Contains(r.stderr, "Failed to verify API key: HTTP 401") ||
		!strings.Contains(r.stderr, `Hint: If your API key was obtained from Kimi Code, please select "Kimi Code" instead.`) {
		t.Errorf("a rejected key: %v", r)
	}
	if b, _ := os.ReadFile(cfgPath); strings.Contains(string(b), "sk-bad") {
		t.Fatalf("a rejected key was written:\n%s", b)
	}

	r = c.runIn(c.dir, "2\nsk-good\n2\n", "login", "--base-url", models.URL+"/v1")
	if r.code != 0 || r.stdout != "Setup complete: Kimi Platform (international) · kimi-k3\n" {
		t.Fatalf("login: %v", r)
	}
	for _, want := range []string{"1) kimi-k2-turbo (262144 tokens)", "2) kimi-k3 (1048576 tokens)", "saved to " + cfgPath} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("login prompts lack %q:\n%s", want, r.stderr)
		}
	}
	b, _ := os.ReadFile(cfgPath)
	written := string(b)
	for _, want := range []string{`default_model = "moonshot-ai/kimi-k3"`, `[providers.moonshot-ai]`, `api_key = "sk-good"`,
		`[models."moonshot-ai/kimi-k2-turbo"]`, `capabilities = ["image_in", "tool_use"]`,
		`capabilities = ["thinking", "always_thinking", "tool_use"]`, `support_efforts = ["low", "high"]`, "enabled = true"} {
		if !strings.Contains(written, want) {
			t.Errorf("config.toml lacks %s:\n%s", want, written)
		}
	}
	if strings.Contains(written, "moonshot-v1-8k") {
		t.Errorf("a model that is not kimi-k was written:\n%s", written)
	}

	// The model login chose answers a print run, with the key.
	r = c.mustRun("-p", "hi")
	if r.stdout != "Logged in.\n" {
		t.Errorf("print run after login: %v", r)
	}
	if req := chat.Request(0); req.Header.Get("Authorization") != "Bearer sk-good" ||
		!strings.Contains(string(body(t, req)["model"]), "kimi-k3") {
		t.Errorf("the print run's request: %s %s", req.Header.Get("Authorization"), body(t, req)["model"])
	}

	r = c.mustRun("logout")
	if !strings.Contains(r.stdout, "Logged out of moonshot-ai: removed the provider and 2 models") {
		t.Errorf("logout: %v", r)
	}
	b, _ = os.ReadFile(cfgPath)
	if strings.Contains(string(b), "moonshot") || strings.Contains(string(b), "sk-good") {
		t.Errorf("config.toml after logout:\n%s", b)
	}
	r = c.run("logout")
	if r.code != 1 || !strings.Contains(r.stderr, "no provider configured in "+cfgPath) {
		t.Errorf("logout with nothing to remove: %v", r)
	}
}

// /logout in the interface removes the provider named, or the only one;
// with several and none named it lists them and changes nothing.
func TestLogoutIn(t *testing.T) {
	home := t.TempDir()
	cfgPath := filepath.Join(home, "config.toml")
	cfg := `default_model = "a/m1"

[providers.a]
type = "openai"
base_url = "http://127.0.0.1:1/v1"
api_key = "sk-a"

[providers.b]
type = "openai"
base_url = "http://127.0.0.1:1/v1"
api_key = "sk-b"

[models."a/m1"]
provider = "a"
model = "m1"
max_context_size = 1000

[models."b/m2"]
provider = "b"
model = "m2"
max_context_size = 1000
`
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := logoutIn(home, ""); err == nil || !strings.Contains(err.Error(), "several providers are configured (a, b)") {
		t.Errorf("logout without a name among two: %v", err)
	}
	if _, err := logoutIn(home, "c"); err == nil || !strings.Contains(err.Error(), `no provider "c"`) {
		t.Errorf("logout c: %v", err)
	}
	msg, err := logoutIn(home, "a")
	if err != nil || !strings.Contains(msg, "Logged out of a: removed the provider and 1 models") {
		t.Fatalf("logout a = %q, %v", msg, err)
	}
	b, _ := os.ReadFile(cfgPath)
	if strings.Contains(string(b), "sk-a") || strings.Contains(string(b), "default_model") || !strings.Contains(string(b), "sk-b") {
		t.Errorf("config.toml after logout a:\n%s", b)
	}
	if msg, err := logoutIn(home, ""); err != nil || !strings.Contains(msg, "Logged out of b") {
		t.Errorf("logout of the only one = %q, %v", msg, err)
	}
}
