package config_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/osenv"
)

// home makes a data root holding config.toml with content ("" writes no
// file) and returns the root and the file's path.
func home(t *testing.T, content string) (string, string) {
	t.Helper()
	dir := t.TempDir()
	path := config.ConfigFile(dir)
	if content != "" {
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir, path
}

// load runs Load on the data root with env.
func load(t *testing.T, dir string, env config.Env) (*config.Config, []config.Warning, error) {
	t.Helper()
	return config.Load(config.LoadOptions{FS: osenv.LocalFS{}, Home: dir, Env: env})
}

// mustLoad loads and fails the test on an error.
func mustLoad(t *testing.T, dir string, env config.Env) (*config.Config, []config.Warning) {
	t.Helper()
	cfg, w, err := load(t, dir, env)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return cfg, w
}

func messages(ws []config.Warning) []string {
	var out []string
	for _, w := range ws {
		out = append(out, w.Message)
	}
	return out
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// ask sends one user message through the model's provider and returns the
// assembled answer.
func ask(t *testing.T, m config.Model, opts config.ProviderOptions) *llm.Result {
	t.Helper()
	p, err := config.NewProvider(m, opts)
	if err != nil {
		t.Fatalf("NewProvider: %v", err)
	}
	res, err := llm.Generate(context.Background(), p, llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}}, llm.Callbacks{})
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	return res
}

func TestS19OfflineModel(t *testing.T) {
	dir, _ := home(t, "")
	cfg, _ := mustLoad(t, dir, nil)
	m, implicit, err := cfg.SelectModel("")
	if err != nil || !implicit || m.Alias != config.OfflineAlias {
		t.Fatalf("SelectModel(\"\") = %q, implicit %v, %v; want the offline model, implicitly", m.Alias, implicit, err)
	}
	want := llm.Capability{ToolUse: true, MaxContextTokens: 262144}
	if d := cmp.Diff(want, m.Capability); d != "" || m.Transport != config.ProviderScripted || !m.RuntimeOnly {
		t.Errorf("offline model: transport %q runtime-only %v, capability (-want +got):\n%s", m.Transport, m.RuntimeOnly, d)
	}
	var calls []llm.ToolCall
	p, err := config.NewProvider(m, config.ProviderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := llm.Generate(t.Context(), p, llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}},
		llm.Callbacks{OnToolCall: func(c llm.ToolCall) { calls = append(calls, c) }}); err != nil {
		t.Fatal(err)
	}
	if len(calls) != 1 || calls[0].Name != "Glob" || calls[0].Arguments != `{"pattern":"*"}` {
		t.Errorf("demo's first answer: %+v; want one Glob {\"pattern\":\"*\"} call", calls)
	}

	_, _, err = cfg.SelectModel("nope")
	wantMsg := `Model "nope" is not configured in config.toml. Add a [models."nope"] entry with max_context_size.`
	if err == nil || err.Error() != wantMsg || !errors.Is(err, config.ErrModelNotConfigured) {
		t.Errorf("SelectModel(nope) = %v; want %q", err, wantMsg)
	}
}

func TestS19OfflineScript(t *testing.T) {
	dir, _ := home(t, "")
	script := filepath.Join(dir, "script.json")
	if err := os.WriteFile(script, []byte(`{"responses":[{"text":"scripted hello"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, _ := mustLoad(t, dir, config.Env{"KIMIGO_SCRIPT": script})
	m, _, _ := cfg.SelectModel("")
	if got := llm.ExtractText(ask(t, m, config.ProviderOptions{}).Message, ""); got != "scripted hello" {
		t.Errorf("scripted answer = %q; want %q", got, "scripted hello")
	}
	for name, content := range map[string]string{"invalid": `{"responses": 3}`, "missing": ""} {
		bad := filepath.Join(dir, name+".json")
		if content != "" {
			if err := os.WriteFile(bad, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		cfg, _ := mustLoad(t, dir, config.Env{"KIMIGO_SCRIPT": bad})
		m, _, _ := cfg.SelectModel("")
		_, err := config.NewProvider(m, config.ProviderOptions{})
		if err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("%s script: NewProvider error = %v; want one naming %s", name, err, bad)
		}
	}
}

func TestS20TOMLSyntaxError(t *testing.T) {
	dir, path := home(t, "[[[")
	_, _, err := load(t, dir, nil)
	var ce *config.Error
	if !errors.As(err, &ce) || ce.Code != config.CodeInvalid || ce.Code.Title() != "Invalid configuration" {
		t.Fatalf("Load = %v; want a config.invalid *Error", err)
	}
	if !strings.HasPrefix(err.Error(), "Invalid TOML in "+path+": ") || !strings.Contains(err.Error(), "(line 1, column ") {
		t.Errorf("error = %q; want Invalid TOML in %s with line and column", err, path)
	}
	if got := readFile(t, path); got != "[[[" {
		t.Errorf("file was changed to %q", got)
	}
}

const goodProvider = `
[providers.good]
type = "openai"
base_url = "https://api.example.com/v1"
api_key = "k"

[models.fake]
provider = "good"
model = "gpt-4o"
max_context_size = 128000
`

func TestS21SectionSalvage(t *testing.T) {
	content := goodProvider + `
[loop_control]
max_steps_per_turn = "nope"

[providers.bad]
type = "nope"
`
	dir, path := home(t, content)
	cfg, warnings := mustLoad(t, dir, nil)
	want := []string{"Ignored invalid config in " + path + ": loop_control, providers.bad. Run `kimigo doctor` for details."}
	if d := cmp.Diff(want, messages(warnings)); d != "" {
		t.Errorf("warnings (-want +got):\n%s", d)
	}
	if _, ok := cfg.Providers["bad"]; ok {
		t.Error("providers.bad survived salvage")
	}
	m, _, err := cfg.SelectModel("fake")
	if err != nil || m.ProviderName != "good" {
		t.Errorf("SelectModel(fake) = %+v, %v; want the good provider", m.ProviderName, err)
	}
	if got := readFile(t, path); got != content {
		t.Error("Load changed the file")
	}
}

func TestS22DoctorPointsAtFileAndKey(t *testing.T) {
	content := goodProvider + `
[loop_control]
max_steps_per_turn = "nope"

[providers.bad]
type = "nope"
`
	_, path := home(t, content)
	r := config.Check(osenv.LocalFS{}, path, true)
	if r.Status != config.CheckError {
		t.Fatalf("status = %s; want ERROR", r.Status)
	}
	want := []string{
		"Invalid configuration in " + path + ".",
		"Validation issues:",
		`  loop_control.max_steps_per_turn: expected an integer ≥ 0, got string "nope"`,
		`  providers.bad.type: expected one of "kimi", "openai", "anthropic", "openai_responses", "google-genai", "vertexai", got string "nope"`,
	}
	if d := cmp.Diff(want, r.Messages); d != "" {
		t.Errorf("messages (-want +got):\n%s", d)
	}
	missing := filepath.Join(t.TempDir(), "missing.toml")
	if r := config.Check(osenv.LocalFS{}, missing, true); r.Status != config.CheckError ||
		!cmp.Equal(r.Messages, []string{"File does not exist."}) {
		t.Errorf("explicit missing file: %+v; want ERROR File does not exist.", r)
	}
	if r := config.Check(osenv.LocalFS{}, missing, false); r.Status != config.CheckSkip {
		t.Errorf("default missing file: %s; want SKIP", r.Status)
	}
	if got := readFile(t, path); got != content {
		t.Error("Check changed the file")
	}
}

func TestS23MissingContextSize(t *testing.T) {
	content := `
[providers.p]
type = "openai"
api_key = "k"

[models.m]
provider = "p"
model = "x"
`
	dir, path := home(t, content)
	r := config.Check(osenv.LocalFS{}, path, true)
	wantIssue := `  models.m.max_context_size: Model "m" must define a positive max_context_size in config.toml.`
	if len(r.Messages) != 3 || r.Messages[2] != wantIssue {
		t.Errorf("doctor messages = %q; want the issue %q", r.Messages, wantIssue)
	}
	cfg, warnings := mustLoad(t, dir, nil)
	wantWarn := []string{"Ignored invalid config in " + path + ": models.m. Run `kimigo doctor` for details."}
	if d := cmp.Diff(wantWarn, messages(warnings)); d != "" {
		t.Errorf("warnings (-want +got):\n%s", d)
	}
	_, _, err := cfg.SelectModel("m")
	if err == nil || !strings.HasPrefix(err.Error(), `Model "m" is not configured`) {
		t.Errorf("SelectModel(m) = %v; want not configured", err)
	}
}

func TestS24InvalidHookDropsHooksOnly(t *testing.T) {
	for name, hook := range map[string]string{
		"unknown event": "[[hooks]]\nevent = \"NotAnEvent\"\ncommand = \"x\"\n",
		"extra key":     "[[hooks]]\nevent = \"Stop\"\ncommand = \"x\"\nfoo = 1\n",
	} {
		t.Run(name, func(t *testing.T) {
			dir, path := home(t, goodProvider+"\n"+hook)
			cfg, warnings := mustLoad(t, dir, nil)
			want := []string{"Ignored invalid config in " + path + ": hooks. Run `kimigo doctor` for details."}
			if d := cmp.Diff(want, messages(warnings)); d != "" {
				t.Errorf("warnings (-want +got):\n%s", d)
			}
			if len(cfg.Hooks) != 0 || len(cfg.Models) != 1 {
				t.Errorf("hooks %v, models %d; want no hooks and the model kept", cfg.Hooks, len(cfg.Models))
			}
		})
	}
	dir, _ := home(t, "[[hooks]]\nevent = \"PreToolUse\"\nmatcher = \"Bash\"\ncommand = \"check.sh\"\ntimeout = 5\n")
	cfg, _ := mustLoad(t, dir, nil)
	want := []config.Hook{{Event: "PreToolUse", Matcher: "Bash", Command: "check.sh", Timeout: 5}}
	if d := cmp.Diff(want, cfg.Hooks); d != "" {
		t.Errorf("valid hook (-want +got):\n%s", d)
	}
}

func TestS25WriteBackPreservesUnknownKeys(t *testing.T) {
	content := `
[future_section]
x = 1

[providers.p]
type = "kimi"
api_key = "k"
future_key = 2
`
	dir, path := home(t, content)
	env := config.Env{"KIMI_MODEL_NAME": "env-model", "KIMI_MODEL_API_KEY": "shell-key"}
	cfg, _ := mustLoad(t, dir, env)
	if !cfg.EnvModel {
		t.Fatal("KIMI_MODEL_NAME did not add the synthetic model")
	}
	patch := map[string]any{
		"providers": map[string]any{"moonshot-ai": map[string]any{
			"type": "kimi", "base_url": "https://api.moonshot.ai/v1", "api_key": "sk-new"}},
		"models": map[string]any{"moonshot-ai/kimi-k2": map[string]any{
			"provider": "moonshot-ai", "model": "kimi-k2", "max_context_size": 262144,
			"capabilities": []string{"thinking"}}},
		"default_model": "moonshot-ai/kimi-k2",
	}
	if err := config.Patch(osenv.LocalFS{}, path, patch); err != nil {
		t.Fatalf("Patch: %v", err)
	}
	after, _ := mustLoad(t, dir, nil)
	if after.DefaultModel != "moonshot-ai/kimi-k2" || after.Providers["moonshot-ai"].APIKey != "sk-new" {
		t.Errorf("after write: default %q, providers %v", after.DefaultModel, after.Providers)
	}
	text := readFile(t, path)
	for _, want := range []string{"[future_section]\nx = 1", "future_key = 2"} {
		if !strings.Contains(text, want) {
			t.Errorf("written file lacks %q:\n%s", want, text)
		}
	}
	for _, never := range []string{"__kimi_env", "offline", "shell-key", "env-model"} {
		if strings.Contains(text, never) {
			t.Errorf("written file contains runtime-only %q:\n%s", never, text)
		}
	}
	for _, bad := range []map[string]any{
		{"models": map[string]any{"offline": map[string]any{"provider": "p", "model": "m", "max_context_size": 1}}},
		{"providers": map[string]any{"__kimi_env__": map[string]any{"type": "kimi"}}},
		{"default_model": "__kimi_env_model__"},
	} {
		before := readFile(t, path)
		if err := config.Patch(osenv.LocalFS{}, path, bad); err == nil || readFile(t, path) != before {
			t.Errorf("Patch(%v) = %v; want a refusal and an unchanged file", bad, err)
		}
	}
}

func TestS26RefuseWritesToInvalidFile(t *testing.T) {
	for name, content := range map[string]string{
		"schema-invalid": goodProvider + "\n[loop_control]\nmax_steps_per_turn = \"nope\"\n",
		"syntax error":   "# my config\n[[[",
	} {
		t.Run(name, func(t *testing.T) {
			dir, path := home(t, content)
			want := "Cannot change settings while " + path + " is invalid — fix it first (run `kimigo doctor` for details)."
			err := config.Patch(osenv.LocalFS{}, path, map[string]any{"default_model": "fake"})
			if err == nil || err.Error() != want {
				t.Errorf("Patch = %v; want %q", err, want)
			}
			if err := config.AddUserAllowRule(dir, "Bash(ls*)"); err == nil || err.Error() != want {
				t.Errorf("AddUserAllowRule = %v; want %q", err, want)
			}
			if got := readFile(t, path); got != content {
				t.Errorf("file changed:\n%s", got)
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 1 {
				t.Errorf("data root holds %d entries; want only config.toml (no temp files)", len(entries))
			}
		})
	}
}

func TestS27PrecedenceOfStepCap(t *testing.T) {
	dir, _ := home(t, "[loop_control]\nmax_steps_per_turn = 5\n")
	cfg, _ := mustLoad(t, dir, config.Env{"KIMI_LOOP_MAX_STEPS_PER_TURN": "2"})
	if got := cfg.LoopControl.MaxStepsPerTurn; got == nil || *got != 2 {
		t.Errorf("with env: cap %v; want 2", got)
	}
	cfg, _ = mustLoad(t, dir, nil)
	if got := cfg.WithPrintDefaults().LoopControl.MaxStepsPerTurn; got == nil || *got != 5 {
		t.Errorf("print mode, config 5: cap %v; want 5", got)
	}
	for _, bad := range []string{"-1", "abc", "1.5", " "} {
		cfg, _ = mustLoad(t, dir, config.Env{"KIMI_LOOP_MAX_STEPS_PER_TURN": bad})
		if got := cfg.LoopControl.MaxStepsPerTurn; got == nil || *got != 5 {
			t.Errorf("env %q: cap %v; want the config's 5", bad, got)
		}
	}
	empty, _ := home(t, "")
	cfg, _ = mustLoad(t, empty, nil)
	if got := cfg.WithPrintDefaults().LoopControl.MaxStepsPerTurn; got == nil || *got != 0 {
		t.Errorf("print mode, nothing set: cap %v; want 0", got)
	}
	if cfg.LoopControl.MaxStepsPerTurn != nil {
		t.Error("WithPrintDefaults changed its receiver")
	}
}

func TestS28KimiModelErrors(t *testing.T) {
	dir, _ := home(t, goodProvider)
	for _, tt := range []struct {
		env  config.Env
		want string
	}{
		{config.Env{"KIMI_MODEL_NAME": "x"}, "KIMI_MODEL_NAME is set but KIMI_MODEL_API_KEY is missing."},
		{config.Env{"KIMI_MODEL_NAME": "x", "KIMI_MODEL_API_KEY": "k", "KIMI_MODEL_MAX_CONTEXT_SIZE": "12k"},
			`KIMI_MODEL_MAX_CONTEXT_SIZE must be a positive integer, got "12k".`},
	} {
		_, _, err := load(t, dir, tt.env)
		if err == nil || err.Error() != tt.want {
			t.Errorf("Load(%v) = %v; want %q", tt.env, err, tt.want)
		}
	}
	env := config.Env{"KIMI_MODEL_NAME": "kimi-k2", "KIMI_MODEL_API_KEY": "k"}
	cfg, _ := mustLoad(t, dir, env)
	m, implicit, err := cfg.SelectModel("")
	if err != nil || implicit || m.ModelID != "kimi-k2" || !m.RuntimeOnly {
		t.Errorf("default = %q (runtime-only %v), %v; want the synthetic kimi-k2", m.ModelID, m.RuntimeOnly, err)
	}
	if m, _, err := cfg.SelectModel("fake"); err != nil || m.ModelID != "gpt-4o" {
		t.Errorf("-m fake = %q, %v; want gpt-4o", m.ModelID, err)
	}
	// On reload the same error keeps the previous configuration.
	prev := cfg
	got, warnings := config.Reload(prev, config.LoadOptions{FS: osenv.LocalFS{}, Home: dir,
		Env: config.Env{"KIMI_MODEL_NAME": "x"}})
	if got != prev || len(warnings) != 2 {
		t.Errorf("Reload with a bad overlay: kept previous %v, warnings %q", got == prev, messages(warnings))
	}
}

func TestS29LocalToml(t *testing.T) {
	parent := t.TempDir()
	project := filepath.Join(parent, "project")
	for _, d := range []string{filepath.Join(project, ".git"), filepath.Join(project, "sub"),
		filepath.Join(project, ".kimi-code"), filepath.Join(parent, "shared")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	root := config.ProjectRoot(osenv.LocalFS{}, filepath.Join(project, "sub"))
	if root != project {
		t.Fatalf("ProjectRoot = %s; want %s", root, project)
	}
	local := filepath.Join(project, ".kimi-code", "local.toml")
	write := func(s string) {
		if err := os.WriteFile(local, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("[workspace]\nadditional_dir = [\"../shared\", \"../shared/\"]\n")
	l, _, err := config.LoadLocal(config.LocalOptions{ProjectRoot: root})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{filepath.Join(parent, "shared")}, l.AdditionalDirs); d != "" {
		t.Errorf("additional dirs (-want +got):\n%s", d)
	}
	write("[workspace]\nadditional_dir = [\"../nowhere\"]\n")
	_, _, err = config.LoadLocal(config.LocalOptions{ProjectRoot: root})
	if err == nil || !strings.Contains(err.Error(), "workspace.additional_dir must exist and be a directory") ||
		!strings.Contains(err.Error(), local) {
		t.Errorf("missing dir: %v; want the §2.9 message naming %s", err, local)
	}
}

// providerConfig is a one-model config pointing at base.
func providerConfig(typ, base, extra string) string {
	return "default_model = \"fake\"\n\n[providers.p]\ntype = \"" + typ + "\"\nbase_url = \"" + base + "\"\n" + extra +
		"\n[models.fake]\nprovider = \"p\"\nmodel = \"gpt-4o\"\nmax_context_size = 128000\n"
}

func TestS30CredentialResolution(t *testing.T) {
	for _, tt := range []struct{ name, extra, want string }{
		{"env table", "[providers.p.env]\nOPENAI_API_KEY = \"k1\"\n", "Bearer k1"},
		{"api_key wins", "api_key = \"k0\"\n[providers.p.env]\nOPENAI_API_KEY = \"k1\"\n", "Bearer k0"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.FakeChatCompletions(t, llmtest.Text("ok"))
			dir, _ := home(t, providerConfig("openai", llmtest.ChatBaseURL(srv), tt.extra))
			cfg, _ := mustLoad(t, dir, nil)
			m, _, err := cfg.SelectModel("")
			if err != nil {
				t.Fatal(err)
			}
			ask(t, m, config.ProviderOptions{})
			if got := srv.Request(0).Header.Get("Authorization"); got != tt.want {
				t.Errorf("Authorization = %q; want %q", got, tt.want)
			}
		})
	}
	t.Run("shell key is not read", func(t *testing.T) {
		dir, path := home(t, providerConfig("openai", "https://api.example.com/v1", ""))
		cfg, _ := mustLoad(t, dir, config.Env{"OPENAI_API_KEY": "k9"})
		_, _, err := cfg.SelectModel("")
		want := `Provider "p" has no API key: set api_key or [providers.p.env] OPENAI_API_KEY in ` + path + "."
		if err == nil || err.Error() != want {
			t.Errorf("SelectModel = %v; want %q", err, want)
		}
	})
	t.Run("loopback needs no key", func(t *testing.T) {
		srv := llmtest.FakeChatCompletions(t, llmtest.Text("ok"))
		dir, _ := home(t, providerConfig("openai", llmtest.ChatBaseURL(srv), ""))
		cfg, _ := mustLoad(t, dir, config.Env{"OPENAI_API_KEY": "k9"})
		m, _, err := cfg.SelectModel("")
		if err != nil {
			t.Fatal(err)
		}
		if got := llm.ExtractText(ask(t, m, config.ProviderOptions{}).Message, ""); got != "ok" {
			t.Errorf("answer = %q", got)
		}
		if h := srv.Request(0).Header; h.Get("Authorization") != "" || h.Get("X-Api-Key") != "" {
			t.Errorf("loopback request carried credentials: %v", h)
		}
	})
}

func TestS31Headers(t *testing.T) {
	srv := llmtest.FakeChatCompletions(t, llmtest.Text("ok"))
	extra := "api_key = \"k\"\ncustom_headers = { \"X-A\" = \"1\", \"User-Agent\" = \"mine\" }\n"
	dir, _ := home(t, providerConfig("openai", llmtest.ChatBaseURL(srv), extra))
	cfg, _ := mustLoad(t, dir, config.Env{"KIMI_CODE_CUSTOM_HEADERS": "X-A: 0\nX-B: 2"})
	m, _, err := cfg.SelectModel("")
	if err != nil {
		t.Fatal(err)
	}
	ask(t, m, config.ProviderOptions{Version: "1.2.3"})
	h := srv.Request(0).Header
	got := map[string]string{"X-A": h.Get("X-A"), "X-B": h.Get("X-B"), "User-Agent": h.Get("User-Agent")}
	if d := cmp.Diff(map[string]string{"X-A": "1", "X-B": "2", "User-Agent": "mine"}, got); d != "" {
		t.Errorf("headers (-want +got):\n%s", d)
	}

	srv2 := llmtest.FakeChatCompletions(t, llmtest.Text("ok"))
	dir2, _ := home(t, providerConfig("openai", llmtest.ChatBaseURL(srv2), "api_key = \"k\"\n"))
	cfg2, _ := mustLoad(t, dir2, nil)
	m2, _, _ := cfg2.SelectModel("")
	ask(t, m2, config.ProviderOptions{Version: "1.2.3"})
	if ua := srv2.Request(0).Header.Get("User-Agent"); ua != "kimigo/1.2.3" {
		t.Errorf("identity User-Agent = %q; want kimigo/1.2.3", ua)
	}
}

func TestS32AnthropicProtocolOverride(t *testing.T) {
	srv := llmtest.FakeAnthropic(t, llmtest.Text("ok"))
	content := `
[providers.kimi]
type = "kimi"
api_key = "sk-kimi"

[models.k2-anthropic]
provider = "kimi"
model = "kimi-k2"
protocol = "anthropic"
base_url = "` + srv.URL + `/v1"
max_context_size = 262144
`
	dir, _ := home(t, content)
	cfg, _ := mustLoad(t, dir, nil)
	m, _, err := cfg.SelectModel("k2-anthropic")
	if err != nil {
		t.Fatal(err)
	}
	if m.Transport != config.ProviderAnthropic || m.BaseURL != srv.URL {
		t.Errorf("transport %q base %q; want anthropic at %s", m.Transport, m.BaseURL, srv.URL)
	}
	if got := llm.ExtractText(ask(t, m, config.ProviderOptions{}).Message, ""); got != "ok" {
		t.Errorf("answer = %q", got)
	}
	r := srv.Request(0)
	if r.Method != "POST" || r.Path != "/v1/messages" || r.Header.Get("X-Api-Key") != "sk-kimi" {
		t.Errorf("request %s %s key %q; want POST /v1/messages with the kimi key", r.Method, r.Path, r.Header.Get("X-Api-Key"))
	}
}
