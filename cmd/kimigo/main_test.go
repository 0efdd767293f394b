package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/llm/llmtest"
)

func TestVersionAndHelpTouchNothing(t *testing.T) {
	c := newCLI(t)
	for _, args := range [][]string{{"--version"}, {"-V"}, {"--help"}, {"-h"}, {"-p", "hi", "--help"}} {
		r := c.run(args...)
		if r.code != 0 || r.stderr != "" || r.stdout == "" {
			t.Errorf("%q: %v", args, r)
		}
	}
	if files := tree(t, c.home); len(files) != 0 {
		t.Errorf("--version/--help wrote %v", files)
	}
}

func TestInteractiveNeedsATerminal(t *testing.T) {
	r := newCLI(t).run()
	want := "error: the interactive interface needs a terminal on stdin and stdout; use -p \"<prompt>\" to run one prompt\n"
	if r.code != 1 || r.stderr != want || r.stdout != "" {
		t.Errorf("got %v", r)
	}
}

// The README's main job works on a fresh machine: no configuration, no
// key, no network. The offline model lists the directory with Glob.
func TestOfflineMainJob(t *testing.T) {
	c := newCLI(t)
	c.write("main.go", "package main\n")
	c.write("notes/todo.md", "- nothing\n")
	r := c.mustRun("-p", "what is in this directory?")
	if r.stdout == "" || !strings.Contains(r.stderr, "No model configured") {
		t.Errorf("text run: %v", r)
	}
	r = c.mustRun("-p", "what is in this directory?", "--output-format", "stream-json")
	var listing string
	for line := range strings.SplitSeq(strings.TrimSpace(r.stdout), "\n") {
		var l struct{ Role, Content string }
		json.Unmarshal([]byte(line), &l)
		if l.Role == "tool" {
			listing = l.Content
		}
	}
	if !strings.Contains(r.stdout, `"name":"Glob"`) || !strings.Contains(listing, "main.go") || !strings.Contains(listing, "notes") {
		t.Errorf("the Glob listing is missing:\n%s", r.stdout)
	}
}

func TestAddDirMustBeADirectory(t *testing.T) {
	c := newCLI(t)
	r := c.run("-p", "hi", "--add-dir", "nope")
	if r.code != 1 || !strings.Contains(r.stderr, "error: failed to run prompt: --add-dir nope: ") {
		t.Errorf("got %v", r)
	}
	os.Mkdir(filepath.Join(c.root, "shared"), 0o755)
	c.mustRun("-p", "hi", "--add-dir", "../shared")
}

func TestAgentFile(t *testing.T) {
	c := newCLI(t)
	if r := c.run("-p", "hi", "--agent-file", "missing.md"); r.code != 1 ||
		!strings.Contains(r.stderr, `Failed to read agent file "missing.md": `) {
		t.Errorf("missing file: %v", r)
	}
	c.write("bad.md", "no frontmatter\n")
	if r := c.run("-p", "hi", "--agent-file", "bad.md"); r.code != 1 ||
		!strings.Contains(r.stderr, `Invalid agent file "bad.md": `) {
		t.Errorf("invalid file: %v", r)
	}
	if r := c.run("-p", "hi", "--agent", "nobody"); r.code != 1 || !strings.Contains(r.stderr, "nobody") {
		t.Errorf("unknown agent: %v", r)
	}
	if _, err := os.Stat(filepath.Join(c.home, "sessions")); err == nil {
		t.Error("a bad agent created a session")
	}
	c.write("reviewer.md", "---\nname: reviewer\ndescription: Reviews code.\ntools: [Read]\n---\nYou review code, tersely.\n")
	srv := c.fake("openai", llmtest.Text("Looks fine."))
	c.mustRun("-p", "review", "--agent-file", "reviewer.md")
	req := string(srv.Request(0).Body)
	if !strings.Contains(req, "You review code, tersely.") || strings.Contains(req, `"name":"Bash"`) {
		t.Errorf("the agent file's prompt and tools were not used:\n%.600s", req)
	}
}

func TestDoctor(t *testing.T) {
	c := newCLI(t)
	r := c.run("doctor")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "kimigo doctor\n\n") ||
		!strings.Contains(r.stdout, "SKIP tui.toml     "+filepath.Join(c.home, "tui.toml")+"\n") ||
		!strings.HasSuffix(r.stdout, "\nAll checked config files are valid.\n") {
		t.Errorf("fresh home: %v", r)
	}
	os.MkdirAll(c.home, 0o700)
	cfg := filepath.Join(c.home, "config.toml")
	bad := "[loop_control]\nmax_steps_per_turn = \"nope\"\n[providers.bad]\ntype = \"nope\"\n"
	os.WriteFile(cfg, []byte(bad), 0o600)
	r = c.run("doctor", "config")
	if r.code != 1 || !strings.HasPrefix(r.stderr, "kimigo doctor found 1 issue.\n\nERROR config.toml  "+cfg+"\n  Invalid configuration in "+cfg+".\n  Validation issues:\n") ||
		!strings.Contains(r.stderr, "loop_control.max_steps_per_turn") || !strings.Contains(r.stderr, "providers.bad.type") {
		t.Errorf("doctor config: %v", r)
	}
	if b, _ := os.ReadFile(cfg); string(b) != bad {
		t.Errorf("doctor changed config.toml")
	}
	r = c.run("doctor", "tui", "missing.toml")
	if r.code != 1 || !strings.Contains(r.stderr, "ERROR tui.toml     "+filepath.Join(c.dir, "missing.toml")+"\n  File does not exist.\n") {
		t.Errorf("doctor tui missing.toml: %v", r)
	}
}
