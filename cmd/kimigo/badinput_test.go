package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/llm/llmtest"
)

// Bad configuration fails at startup in the format of spec 06 §1.8, exit
// 1, and leaves config.toml byte-identical and the sessions untouched.
func TestBadConfigFailsWithoutWriting(t *testing.T) {
	const provider = "[providers.p]\ntype = \"openai\"\napi_key = \"k\"\n"
	for _, tt := range []struct {
		name, config string
		args         []string
		title, want  string
	}{
		{"toml syntax", "[[[\n", nil, "Invalid configuration", "Invalid TOML in {config}"},
		{"syntax position", "a = 1\nb = = 2\n", nil, "Invalid configuration", "line 2"},
		{"unknown model alias", "", []string{"-m", "nope"}, "Invalid configuration",
			`Model "nope" is not configured in config.toml. Add a [models."nope"] entry with max_context_size.`},
		{"missing context size", provider + "[models.m]\nprovider = \"p\"\nmodel = \"x\"\n", []string{"-m", "m"},
			"Invalid configuration", `Model "m" is not configured in config.toml.`},
		{"provider missing", "[models.m]\nprovider = \"ghost\"\nmodel = \"x\"\nmax_context_size = 100\n", []string{"-m", "m"},
			"Invalid configuration", `Provider "ghost" for model "m" is not configured.`},
		{"no api key", "[providers.p]\ntype = \"openai\"\nbase_url = \"https://api.example.com/v1\"\n" +
			"[models.m]\nprovider = \"p\"\nmodel = \"x\"\nmax_context_size = 100\n", []string{"-m", "m"},
			"Invalid configuration", `Provider "p" has no API key`},
		{"key and oauth", "[providers.p]\ntype = \"kimi\"\napi_key = \"k\"\noauth = {storage = \"file\", key = \"o\"}\n" +
			"[models.m]\nprovider = \"p\"\nmodel = \"x\"\nmax_context_size = 100\n", []string{"-m", "m"},
			"Invalid configuration", `Provider "p" has both apiKey and oauth set in config.toml`},
		{"oauth without login", "[providers.p]\ntype = \"kimi\"\noauth = {storage = \"file\", key = \"o\"}\n" +
			"[models.m]\nprovider = \"p\"\nmodel = \"x\"\nmax_context_size = 100\n", []string{"-m", "m"},
			"Login required", `OAuth provider "p" requires login before it can be used.`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := newCLI(t)
			cfgPath := filepath.Join(c.home, "config.toml")
			os.MkdirAll(c.home, 0o700)
			if err := os.WriteFile(cfgPath, []byte(tt.config), 0o600); err != nil {
				t.Fatal(err)
			}
			r := c.run(append([]string{"-p", "hi"}, tt.args...)...)
			want := strings.ReplaceAll(tt.want, "{config}", cfgPath)
			if r.code != 1 || !strings.Contains(r.stderr, "error: "+tt.title+"\n\nmessage:\n") ||
				!strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "See log: ") {
				t.Errorf("got %v\nwant %q in the coded format", r, want)
			}
			after := tree(t, c.home)
			if after[cfgPath] != tt.config {
				t.Errorf("config.toml changed to %q", after[cfgPath])
			}
			for p := range after {
				if strings.Contains(p, string(filepath.Separator)+"sessions"+string(filepath.Separator)) {
					t.Errorf("a failed startup created %s", p)
				}
			}
		})
	}
}

func TestBadOfflineScriptNamesTheFile(t *testing.T) {
	c := newCLI(t)
	missing := filepath.Join(c.root, "missing.json")
	c.env["KIMIGO_SCRIPT"] = missing
	if r := c.run("-p", "hi"); r.code != 1 || !strings.Contains(r.stderr, missing) {
		t.Errorf("unreadable script: %v", r)
	}
	bad := filepath.Join(c.root, "bad.json")
	os.WriteFile(bad, []byte(`{"responses": [ {"text": 5} ]}`), 0o600)
	c.env["KIMIGO_SCRIPT"] = bad
	if r := c.run("-p", "hi"); r.code != 1 || !strings.Contains(r.stderr, bad) || !strings.Contains(r.stderr, "Invalid") {
		t.Errorf("invalid script: %v", r)
	}
	if _, err := os.Stat(filepath.Join(c.home, "sessions")); err == nil {
		t.Error("a bad script created a session")
	}
}

func TestScriptedOfflineRun(t *testing.T) {
	c := newCLI(t)
	script := filepath.Join(c.root, "script.json")
	os.WriteFile(script, []byte(`{"responses": [
		{"tool_calls": [{"name": "Bash", "arguments": {"command": "echo scripted > s.txt"}}]},
		{"thinking": "done thinking", "text": "Scripted answer."}
	]}`), 0o600)
	c.env["KIMIGO_SCRIPT"] = script
	r := c.mustRun("-p", "hi")
	if r.stdout != "Scripted answer.\n" {
		t.Errorf("stdout = %q", r.stdout)
	}
	if b, _ := os.ReadFile(filepath.Join(c.dir, "s.txt")); string(b) != "scripted\n" {
		t.Errorf("s.txt = %q; want the scripted Bash call's output", b)
	}
}

// A service that refuses the key or does not know the model fails the run
// with a message naming the provider and what to check.
func TestProviderRefusals(t *testing.T) {
	for _, tt := range []struct {
		name   string
		status int
		body   string
		check  []string
	}{
		{"401", 401, `{"error":{"message":"Invalid Authentication","type":"invalid_authentication_error"}}`,
			[]string{"provider.auth_error", "rejected the API key", "KIMI_MODEL_API_KEY"}},
		{"404", 404, `{"error":{"message":"The model fake-model does not exist","type":"invalid_request_error"}}`,
			[]string{"does not exist", `has no model "fake-model"`, "KIMI_MODEL_BASE_URL", "KIMI_MODEL_NAME"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := newCLI(t)
			reply := llmtest.Status(tt.status, tt.body)
			c.fake("openai", reply, reply, reply)
			r := c.run("-p", "hi")
			if r.code != 1 || strings.Contains(r.stderr, "kimigo version") {
				t.Errorf("got %v", r)
			}
			for _, want := range tt.check {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
				}
			}
		})
	}
}

func TestConfiguredProviderHint(t *testing.T) {
	c := newCLI(t)
	srv := llmtest.FakeChatCompletions(t, llmtest.Status(401, `{"error":{"message":"bad key","type":"x"}}`))
	os.MkdirAll(c.home, 0o700)
	cfg := "default_model = \"m\"\n[providers.acme]\ntype = \"openai\"\napi_key = \"k\"\nbase_url = \"" +
		llmtest.ChatBaseURL(srv) + "\"\n[models.m]\nprovider = \"acme\"\nmodel = \"x\"\nmax_context_size = 1000\n"
	os.WriteFile(filepath.Join(c.home, "config.toml"), []byte(cfg), 0o600)
	r := c.run("-p", "hi")
	if r.code != 1 || !strings.Contains(r.stderr, `provider "acme"`) ||
		!strings.Contains(r.stderr, "api_key of [providers.acme] in "+filepath.Join(c.home, "config.toml")) {
		t.Errorf("got %v", r)
	}
}
