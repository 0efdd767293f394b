package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/llm/llmtest"
)

// Issue 15 item 10: with no model configured, the offline notice names
// the other tools' keys it sees and the KIMI_MODEL_* line that uses each.
func TestS15OfflineNoticeNamesKeys(t *testing.T) {
	c := newCLI(t)
	c.env["ANTHROPIC_API_KEY"] = "sk-ant-secret-value"
	c.env["MOONSHOT_API_KEY"] = "sk-moon-secret-value"
	r := c.mustRun("-p", "hi")
	for _, want := range []string{
		"No model configured; using the built-in offline model.",
		"ANTHROPIC_API_KEY is set, but kimigo does not read it; to use it:\n" +
			`  export KIMI_MODEL_PROVIDER_TYPE=anthropic KIMI_MODEL_NAME=claude-sonnet-4-5 KIMI_MODEL_API_KEY="$ANTHROPIC_API_KEY"`,
		"MOONSHOT_API_KEY is set, but kimigo does not read it; to use it:\n" +
			`  export KIMI_MODEL_PROVIDER_TYPE=kimi KIMI_MODEL_NAME=kimi-k2-0905-preview KIMI_MODEL_API_KEY="$MOONSHOT_API_KEY"`,
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "OPENAI_API_KEY") || strings.Contains(r.stderr, "secret-value") {
		t.Errorf("the notice names a key that is not set, or shows a value:\n%s", r.stderr)
	}
}

// Issue 15 item 10: doctor reports providers that cannot run and checks
// the project's local.toml; item 11: a wrong kind is named.
func TestS15DoctorChecks(t *testing.T) {
	c := newCLI(t)
	os.MkdirAll(c.home, 0o700)
	cfg := filepath.Join(c.home, "config.toml")
	os.WriteFile(cfg, []byte(`[providers.g]
type = "google-genai"
api_key = "k"
[providers.nokey]
type = "openai"
base_url = "https://api.example.com/v1"
[providers.local]
type = "openai"
base_url = "http://127.0.0.1:11434/v1"
[providers.ok]
type = "anthropic"
api_key = "k"
`), 0o600)
	r := c.run("doctor", "config")
	for _, want := range []string{
		"ERROR config.toml  " + cfg + "\n  Valid, but these providers cannot run:\n",
		`    providers.g: type "google-genai" is not supported by this kimigo; use kimi, openai or anthropic`,
		"    providers.nokey: no api_key for https://api.example.com/v1; requests will be refused.",
	} {
		if r.code != 1 || !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%v", want, r)
		}
	}
	if strings.Contains(r.stderr, "providers.local") || strings.Contains(r.stderr, "providers.ok") {
		t.Errorf("a provider that runs was reported:\n%s", r.stderr)
	}

	local := filepath.Join(c.dir, ".kimi-code", "local.toml")
	if r := c.run("doctor", "local"); r.code != 0 || !strings.Contains(r.stdout, "SKIP local.toml   "+local+"\n") {
		t.Errorf("no local.toml: %v", r)
	}
	os.MkdirAll(filepath.Dir(local), 0o755)
	os.WriteFile(local, []byte("[workspace]\nadditional_dir = [\"/nonexistent/dir\"]\n"), 0o600)
	if r := c.run("doctor", "local"); r.code != 1 || !strings.Contains(r.stderr, "ERROR local.toml   "+local+"\n") ||
		!strings.Contains(r.stderr, "/nonexistent/dir") {
		t.Errorf("bad local.toml: %v", r)
	}
	os.WriteFile(local, []byte("[workspace]\nadditional_dir = []\n"), 0o600)
	if r := c.run("doctor", "local"); r.code != 0 || !strings.Contains(r.stdout, "OK local.toml   "+local+"\n") {
		t.Errorf("a valid local.toml: %v", r)
	}

	r = c.run("doctor", "bogus")
	if want := "error: unknown check 'bogus' for 'doctor'. Expected config, tui, local or sessions.\n"; r.code != 1 || r.stderr != want {
		t.Errorf("doctor bogus: %v", r)
	}
}

// Issue 15 item 8: a rule the session would drop (an unknown tool, an
// argument on a tool whose calls carry none, so it can never match) is
// reported by doctor with its file and line, in config.toml and in the
// project's local.toml, and warned about at load.
func TestS15DoctorReportsRulesThatNeverMatch(t *testing.T) {
	c := newCLI(t)
	os.MkdirAll(c.home, 0o700)
	cfg := filepath.Join(c.home, "config.toml")
	os.WriteFile(cfg, []byte(`[[permission.rules]]
decision = "deny"
pattern = "Bash(rm:*)"

[[permission.rules]]
decision = "deny"
pattern = "Agent(explore)"
`), 0o600)
	r := c.run("doctor", "config")
	want := "ERROR config.toml  " + cfg + "\n  These permission rules are dropped when a session loads them:\n    " +
		cfg + `:5: permission rule "Agent(explore)", column 7: Agent calls carry no argument a rule can match, so this rule would never match; write "Agent" to cover every Agent call` + "\n"
	if r.code != 1 || !strings.Contains(r.stderr, want) || strings.Contains(r.stderr, "rm:*") {
		t.Errorf("doctor config = %v\nwant stderr with %q and nothing on Bash(rm:*)", r, want)
	}
	if r := c.run("-p", "hi"); !strings.Contains(r.stderr, "Warning: "+cfg+`:5: permission rule "Agent(explore)"`) {
		t.Errorf("the run does not warn about the rule: %v", r)
	}

	local := filepath.Join(c.dir, ".kimi-code", "local.toml")
	os.MkdirAll(filepath.Dir(local), 0o755)
	os.WriteFile(local, []byte("[[permission.rules]]\ndecision = \"ask\"\npattern = \"Wrte(x)\"\n"), 0o600)
	if r := c.run("doctor", "local"); r.code != 1 || !strings.Contains(r.stderr, "ERROR local.toml   "+local+"\n") ||
		!strings.Contains(r.stderr, local+`:1: permission rule "Wrte(x)", column 1: unknown tool name "Wrte"`) {
		t.Errorf("doctor local = %v", r)
	}
}

// Issue 15 item 10: FetchURL is offered to the model, and reaches only
// public addresses.
func TestS15FetchURLOffered(t *testing.T) {
	c := newCLI(t)
	srv := c.fake("openai", llmtest.ToolCall("call_1", "FetchURL", `{"url":"http://127.0.0.1:1/secret"}`), llmtest.Text("ok"))
	c.mustRun("-p", "fetch it")
	if req := string(srv.Request(0).Body); !strings.Contains(req, `"name":"FetchURL"`) {
		t.Errorf("FetchURL is not among the tools:\n%.2000s", req)
	}
	msgs, _ := srv.Request(1).JSON(t)["messages"].([]any)
	last, _ := msgs[len(msgs)-1].(map[string]any)
	if content, _ := last["content"].(string); last["role"] != "tool" || !strings.Contains(content, "refusing to fetch 127.0.0.1: it is not a public address") {
		t.Errorf("the tool result = %v", last)
	}
}

// Issue 15 item 11: export asks its question only on a terminal.
func TestS15ConfirmAsksOnlyATerminal(t *testing.T) {
	for _, tty := range []bool{true, false} {
		var errw strings.Builder
		ok := confirm(proc{stdin: strings.NewReader("n\n"), stderr: &errw, stdinTTY: tty}, "Export? [Y/n] ")
		if want := map[bool]string{true: "Export? [Y/n] ", false: ""}[tty]; ok || errw.String() != want {
			t.Errorf("tty %v: confirm = %v, stderr %q; want false, %q", tty, ok, errw.String(), want)
		}
	}
}

// Issue 15 item 11: export -o <dir> writes the default name in it; a
// mistyped --agent-file gets no storage hint; an anthropic base URL that
// ends in /v1 is named; the manifest names the Go version.
func TestS15SmallMessages(t *testing.T) {
	c := newCLI(t)
	c.fake("openai", llmtest.Text("one"))
	id := resumeHint(t, c.mustRun("-p", "hi").stderr)
	out := filepath.Join(c.root, "exports")
	os.Mkdir(out, 0o755)
	r := c.mustRun("export", id, "-o", out)
	if !strings.HasPrefix(r.stdout, out+string(filepath.Separator)+"kimigo-debug-") {
		t.Errorf("export -o <dir>: %v", r)
	}
	entries, _ := os.ReadDir(c.root)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("a temporary file was left in the parent: %s", e.Name())
		}
	}
	_, manifest := readZip(t, strings.TrimSpace(r.stdout))
	if manifest["goVersion"] == nil || manifest["nodejsVersion"] != nil {
		t.Errorf("manifest = %v", manifest)
	}

	r = c.run("-p", "hi", "--agent-file", "revewer.md")
	if r.code != 1 || !strings.Contains(r.stderr, `Failed to read agent file "revewer.md"`) || strings.Contains(r.stderr, "backup") ||
		strings.Contains(r.stderr, "hint:") {
		t.Errorf("mistyped --agent-file: %v", r)
	}

	c.fake("anthropic")
	c.env["KIMI_MODEL_BASE_URL"] += "/v1"
	r = c.run("-p", "hi")
	if r.code != 1 || !strings.Contains(r.stderr, "KIMI_MODEL_BASE_URL is \""+c.env["KIMI_MODEL_BASE_URL"]+"\", which ends in /v1, "+
		"but the anthropic wire adds /v1/messages itself: set it to \""+strings.TrimSuffix(c.env["KIMI_MODEL_BASE_URL"], "/v1")+"\".") {
		t.Errorf("anthropic /v1: %v", r)
	}
}

// Issue 15 item 11: --skills-dir names a directory that does not exist,
// before anything is written, and is never taken silently.
func TestS15SkillsDirChecked(t *testing.T) {
	c := newCLI(t)
	r := c.run("-p", "hi", "--skills-dir", "/nonexistent")
	if r.code != 1 || r.stderr != "error: --skills-dir /nonexistent: /nonexistent is not an existing directory.\n" {
		t.Errorf("got %v", r)
	}
	if files := tree(t, c.home); len(files) != 0 {
		t.Errorf("wrote %v", files)
	}
	os.Mkdir(filepath.Join(c.dir, "skills"), 0o755)
	// An existing directory replaces the skill roots; the run goes on.
	r = c.mustRun("-p", "hi", "--skills-dir", "skills")
	if strings.Contains(r.stderr, "--skills-dir") {
		t.Errorf("got %v", r)
	}
}
