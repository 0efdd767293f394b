package main

// Spec 06 §10 scenarios for the command line, print mode and sessions,
// one test per id, run through the real binary. Scenario 17 (headless
// goals) and the TUI, hook and MCP parts are not in this command yet;
// the configuration scenarios (20–32) are tested in package config.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kimigo/kimigo/llm/llmtest"
)

func TestScenario1OutputFormatWithoutPrompt(t *testing.T) {
	c := newCLI(t)
	r := c.run("--output-format", "stream-json")
	if r.code != 1 || r.stdout != "" || r.stderr != "error: Output format is only supported in prompt mode.\n" {
		t.Errorf("got %v", r)
	}
	if files := tree(t, c.home); len(files) != 0 {
		t.Errorf("files created under KIMIGO_HOME: %v", files)
	}
}

// Spec 06 S2, except that --plan goes with --prompt (issue 20: print mode
// runs in plan mode and the plan is its answer) and --yolo is print mode's
// explicit opt-out since ERRATA 34 (TestHeadlessYolo); --auto stays
// interactive.
func TestScenario2PromptWithYoloAutoPlan(t *testing.T) {
	c := newCLI(t)
	for _, tt := range []struct {
		flag, want string
	}{
		{"--auto", "--auto"},
	} {
		r := c.run("-p", "hi", tt.flag)
		if want := "error: Cannot combine -p with " + tt.want + ".\n"; r.code != 1 || r.stderr != want {
			t.Errorf("-p hi %s: %v; want %q", tt.flag, r, want)
		}
	}
}

func TestScenario3ContinueWithSession(t *testing.T) {
	r := newCLI(t).run("-c", "-S", "abc")
	if r.code != 1 || r.stderr != "error: Cannot combine --continue, --session.\n" {
		t.Errorf("got %v", r)
	}
}

func TestScenario4YoloWithAuto(t *testing.T) {
	r := newCLI(t).run("--yolo", "--auto")
	if r.code != 1 || r.stderr != "error: Cannot combine --yolo with --auto.\n" || r.stdout != "" {
		t.Errorf("got %v", r)
	}
}

func TestScenario5ValidationOrder(t *testing.T) {
	c := newCLI(t)
	r := c.run("--prompt", "  ", "--yolo", "--output-format", "xml")
	want := "error: option '--output-format <format>' argument 'xml' is invalid. Allowed choices are text, json, stream-json.\n"
	if r.code != 1 || r.stderr != want {
		t.Errorf("parser first: %v", r)
	}
	if r := c.run("--prompt", "  ", "--yolo"); r.code != 1 || r.stderr != "error: Prompt cannot be empty.\n" {
		t.Errorf("rule 1 before rule 4: %v", r)
	}
}

func TestScenario6AgentFlags(t *testing.T) {
	c := newCLI(t)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--agent", "a", "--agent", "b"}, "--agent may only be specified once."},
		{[]string{"--agent", "a", "--agent-file", "x.md"}, "Cannot combine --agent with --agent-file."},
		{[]string{"--agent", "a", "-c"}, "Cannot combine --agent/--agent-file with --session/--continue: the agent is " +
			"bound at session creation and the bound agent is restored automatically on resume."},
	} {
		if r := c.run(tt.args...); r.code != 1 || r.stderr != "error: "+tt.want+"\n" {
			t.Errorf("%q: %v", tt.args, r)
		}
	}
}

func TestScenario7SessionWithoutID(t *testing.T) {
	c := newCLI(t)
	if r := c.run("-p", "hi", "-S"); r.code != 1 ||
		r.stderr != "error: -S needs a session id in print mode; 'kimigo sessions' lists this directory's sessions.\n" {
		t.Errorf("-S alone: %v", r)
	}
	r := c.run("-p", "hi", "-S", "abc")
	want := "error: failed to run prompt: Session \"abc\" not found.\nSee log: " + filepath.Join(c.home, "logs", "kimigo.log") + "\n"
	if r.code != 1 || r.stderr != want {
		t.Errorf("-S abc: %v\nwant stderr %q", r, want)
	}
}

func TestScenario8EnvOutputFormat(t *testing.T) {
	c := newCLI(t)
	c.env["KIMI_MODEL_OUTPUT_FORMAT"] = "xml"
	r := c.run("-p", "hi")
	if want := "error: Invalid KIMI_MODEL_OUTPUT_FORMAT value \"xml\". Expected one of: text, json, stream-json.\n"; r.code != 1 || r.stderr != want {
		t.Errorf("xml: %v", r)
	}
	if r := c.run(); r.code != 1 || strings.Contains(r.stderr, "KIMI_MODEL_OUTPUT_FORMAT") ||
		!strings.Contains(r.stderr, "the interactive interface needs a terminal") {
		t.Errorf("the interactive command must ignore the variable: %v", r)
	}
	c.env["KIMI_MODEL_OUTPUT_FORMAT"] = "stream-json"
	r = c.mustRun("-p", "hi")
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		if !json.Valid([]byte(line)) {
			t.Errorf("not a JSON line: %q", line)
		}
	}
}

// Scenario 9 with ERRATA 33: a positional argument is the interactive
// interface's first prompt (here without a terminal), and print mode
// refuses one.
func TestScenario9UnknownCommandAndOption(t *testing.T) {
	c := newCLI(t)
	// A positional is the interactive interface's first prompt (ERRATA 33),
	// which needs a terminal.
	if r := c.run("frobnicate"); r.code != 1 || !strings.HasPrefix(r.stderr, "error: the interactive interface needs a terminal") {
		t.Errorf("frobnicate: %v", r)
	}
	if r := c.run("--frob"); r.code != 1 || r.stderr != "error: unknown option '--frob'\n" {
		t.Errorf("--frob: %v", r)
	}
	if r := c.run("-V"); r.code != 0 || r.stdout != "kimigo "+versionString()+"\n" {
		t.Errorf("-V: %v", r)
	}
	if r := c.run("--help"); r.code != 0 || !strings.Contains(r.stdout, "Documentation:") {
		t.Errorf("--help: %v", r)
	}
}

func TestScenario10CrossDirectorySession(t *testing.T) {
	c := newCLI(t)
	id := resumeHint(t, c.mustRun("-p", "hi").stderr)
	before := tree(t, filepath.Join(c.home, "sessions"))
	other := filepath.Join(c.root, "other")
	os.Mkdir(other, 0o755)
	r := c.runIn(other, "", "-p", "hi", "-S", id)
	notice := fmt.Sprintf("Session %q was created under a different directory.\n  cd %q && kimigo -r %s -p hi\n", id, c.dir, id)
	if r.code != 1 || !strings.HasPrefix(r.stderr, notice) ||
		!strings.Contains(r.stderr, fmt.Sprintf("error: failed to run prompt: Session %q was created under a different directory.", id)) {
		t.Errorf("got %v\nwant stderr starting %q", r, notice)
	}
	if d := diffTrees(before, tree(t, filepath.Join(c.home, "sessions"))); d != "" {
		t.Errorf("the refused resume changed session files: %s", d)
	}
}

// Spec 06 scenario 11 as issue 15 item 3 changed it: stdout is the answer
// as written; thinking shows only with --verbose on a stderr that is not
// a terminal; no version line.
func TestScenario11TextOutput(t *testing.T) {
	c := newCLI(t)
	c.fake("kimi", llmtest.Think("hmm", "Hello\nworld"), llmtest.Think("hmm", "Hello\nworld"))
	r := c.mustRun("-p", "hi")
	if r.stdout != "Hello\nworld\n" {
		t.Errorf("stdout = %q", r.stdout)
	}
	id := resumeHint(t, r.stderr)
	if want := "To resume this session: kimigo -r " + id + " -p \"…\"\n"; r.stderr != want {
		t.Errorf("stderr = %q; want only %q", r.stderr, want)
	}
	r = c.mustRun("-p", "--verbose", "hi")
	if r.stdout != "Hello\nworld\n" || !strings.HasPrefix(r.stderr, "• hmm\n\n") {
		t.Errorf("--verbose: %v", r)
	}
}

// Scenario 12 is TestScenario12StreamJSONToolTurn in e2e_test.go.

// The second call finishes first; ERRATA 19 puts the tool lines in
// provider order all the same (the loop reports results in that order).
func TestScenario13ParallelCallsOneAssistantLine(t *testing.T) {
	c := newCLI(t)
	c.fake("openai", llmtest.ToolCalls(
		scriptedCall("call_a", "Bash", `{"command":"sleep 0.5; echo slow"}`),
		scriptedCall("call_b", "Bash", `{"command":"echo fast"}`),
	), llmtest.Text("Both ran."))
	r := c.mustRun("-p", "run both", "--output-format", "stream-json")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 7 {
		t.Fatalf("%d lines; want 7:\n%s", len(lines), r.stdout)
	}
	if !strings.Contains(lines[1], `"id":"call_a"`) || !strings.Contains(lines[1], `"id":"call_b"`) ||
		strings.Index(lines[1], "call_a") > strings.Index(lines[1], "call_b") {
		t.Errorf("line 2 = %s; want one assistant line with call_a, then call_b", lines[1])
	}
	if !strings.Contains(lines[2], `"tool_call_id":"call_a"`) || !strings.Contains(lines[3], `"tool_call_id":"call_b"`) {
		t.Errorf("tool lines = %s / %s; want call_a, then call_b (provider order)", lines[2], lines[3])
	}
}

func TestScenario14RetryMeta(t *testing.T) {
	c := newCLI(t)
	c.fake("openai", llmtest.Status(503, `{"error":{"message":"overloaded","type":"server_error"}}`, "Retry-After", "0"),
		llmtest.Text("Recovered."))
	r := c.mustRun("-p", "hi", "--output-format", "stream-json")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d lines; want 5:\n%s", len(lines), r.stdout)
	}
	var retry map[string]any
	json.Unmarshal([]byte(lines[1]), &retry)
	if retry["type"] != "turn.step.retrying" || retry["failed_attempt"] != 1.0 || retry["next_attempt"] != 2.0 ||
		retry["max_attempts"] != 10.0 || retry["status_code"] != 503.0 {
		t.Errorf("line 2 = %s; want the retry meta line", lines[1])
	}
	if lines[2] != `{"role":"assistant","content":"Recovered."}` {
		t.Errorf("line 3 = %s", lines[2])
	}
}

func TestScenario15ProviderFailure(t *testing.T) {
	c := newCLI(t)
	unauthorized := llmtest.Status(401, `{"error":{"message":"Invalid Authentication","type":"invalid_authentication_error"}}`)
	c.fake("openai", unauthorized, unauthorized, unauthorized)
	r := c.run("-p", "hi")
	if r.code != 1 || !strings.Contains(r.stderr, "error: failed to run prompt: provider.auth_error: ") ||
		!strings.Contains(r.stderr, "See log: "+filepath.Join(c.home, "logs", "kimigo.log")) {
		t.Errorf("got %v", r)
	}
	if !strings.HasSuffix(r.stderr, "\nTo resume this session: kimigo -r "+resumeHint(t, r.stderr)+" -p \"…\"\n") {
		t.Errorf("a failed run must end with the resume hint: %v", r)
	}
	if !strings.Contains(r.stderr, "hint: ") || !strings.Contains(r.stderr, "KIMI_MODEL_API_KEY") {
		t.Errorf("no hint saying what to check: %v", r)
	}
}

func TestScenario16Signals(t *testing.T) {
	for sig, code := range map[syscall.Signal]int{syscall.SIGINT: 130, syscall.SIGTERM: 143, syscall.SIGHUP: 129} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			c := newCLI(t)
			srv := c.fake("openai", llmtest.Text("late").WithFault(llmtest.Fault{FirstByteDelay: time.Minute}))
			start := time.Now()
			r := c.interrupt(sig, func() bool { return len(srv.Requests()) == 1 }, "-p", "hi")
			if r.code != code {
				t.Errorf("exit code %d; want %d\n%v", r.code, code, r)
			}
			if d := time.Since(start); d > 8*time.Second {
				t.Errorf("took %v; want under 8 s", d)
			}
		})
	}
}

func TestScenario18ResumeRestoresPermissionMode(t *testing.T) {
	c := newCLI(t)
	c.fake("openai", llmtest.Text("first"), llmtest.ToolCall("call_1", "Write", `{"path":"b.txt","content":"hi"}`),
		llmtest.Text("written"))
	id := resumeHint(t, c.mustRun("-p", "hi").stderr)
	setSavedMode(t, c, id, "manual")
	c.mustRun("-p", "write b.txt", "-S", id)
	if b, err := os.ReadFile(filepath.Join(c.dir, "b.txt")); err != nil || string(b) != "hi" {
		t.Errorf("b.txt = %q, %v; want the Write to run without approval (auto)", b, err)
	}
	if got := savedMode(t, c, id); got != "manual" {
		t.Errorf("saved mode after the run = %q; want manual restored", got)
	}
}

func TestScenario19OfflineModel(t *testing.T) {
	c := newCLI(t)
	r := c.mustRun("-p", "hi")
	if !strings.Contains(r.stdout, "offline model") {
		t.Errorf("stdout = %q; want the offline model's scripted answer", r.stdout)
	}
	if n := strings.Count(r.stderr, "No model configured; using the built-in offline model."); n != 1 {
		t.Errorf("stderr has the offline notice %d times; want once:\n%s", n, r.stderr)
	}
	r = c.run("-p", "hi", "-m", "nope")
	if r.code != 1 || !strings.Contains(r.stderr,
		`Model "nope" is not configured in config.toml. Add a [models."nope"] entry with max_context_size.`) {
		t.Errorf("-m nope: %v", r)
	}
}

func TestScenario33ContinuePicksTheLatest(t *testing.T) {
	c := newCLI(t)
	s1 := resumeHint(t, c.mustRun("-p", "one").stderr)
	s2 := resumeHint(t, c.mustRun("-p", "two").stderr)
	other := filepath.Join(c.root, "other")
	os.Mkdir(other, 0o755)
	if r := c.runIn(other, "", "-p", "three"); r.code != 0 {
		t.Fatal(r)
	}
	age(t, c, s1, time.Hour)
	if got := resumeHint(t, c.mustRun("-p", "again", "-c").stderr); got != s2 {
		t.Errorf("-c resumed %s; want the newer %s (older %s)", got, s2, s1)
	}
	empty := filepath.Join(c.root, "empty")
	os.Mkdir(empty, 0o755)
	r := c.runIn(empty, "", "-p", "again", "-c")
	if notice := fmt.Sprintf("No sessions to continue under %q; starting a fresh session.\n", empty); r.code != 0 ||
		!strings.Contains(r.stderr, notice) {
		t.Errorf("got %v; want %q", r, notice)
	}
	if id := resumeHint(t, r.stderr); id == s1 || id == s2 {
		t.Errorf("-c in an empty dir resumed %s", id)
	}
}

// The /title part of scenario 34 belongs to the interactive interface.
func TestScenario34TitleAndRedaction(t *testing.T) {
	c := newCLI(t)
	id := resumeHint(t, c.mustRun("-p", "deploy with api_key=sk-abcdefghijklmnop please").stderr)
	want := "deploy with api_key=[redacted] please"
	st := state(t, c, id)
	if st["title"] != want || st["lastPrompt"] != want {
		t.Errorf("title %q lastPrompt %q; want %q", st["title"], st["lastPrompt"], want)
	}
	c.mustRun("-p", "second prompt", "-c")
	if st := state(t, c, id); st["title"] != want || st["lastPrompt"] != "second prompt" {
		t.Errorf("after a second prompt: title %q lastPrompt %q", st["title"], st["lastPrompt"])
	}
}

func TestScenario35Export(t *testing.T) {
	c := newCLI(t)
	id := resumeHint(t, c.mustRun("-p", "hi").stderr)
	r := c.mustRun("export", id, "-o", "out.zip")
	out := filepath.Join(c.dir, "out.zip")
	if r.stdout != out+"\n" {
		t.Errorf("stdout = %q; want %q", r.stdout, out+"\n")
	}
	names, manifest := readZip(t, out)
	if names[0] != "manifest.json" || manifest["sessionId"] != id || manifest["workspaceDir"] != c.dir {
		t.Errorf("entries %v, manifest %v", names, manifest)
	}
	for _, want := range []string{"state.json", "agents/main/wire.jsonl", "logs/global/kimigo.log"} {
		if !contains(names, want) {
			t.Errorf("export lacks %s: %v", want, names)
		}
	}
	c.mustRun("export", id, "-o", "bare.zip", "--no-include-global-log")
	if names, _ := readZip(t, filepath.Join(c.dir, "bare.zip")); contains(names, "logs/global/kimigo.log") {
		t.Errorf("--no-include-global-log bundled the global log: %v", names)
	}
	// A piped answer is read, and the question is not shown to a pipe
	// (issue 15 item 11).
	if r := c.runIn(c.dir, "n\n", "export"); r.code != 0 || r.stdout != "Export cancelled.\n" || r.stderr != "" {
		t.Errorf("answering n: %v", r)
	}
	r = c.runIn(c.dir, "\n", "export")
	if r.code != 0 || !regexp.MustCompile(`^`+regexp.QuoteMeta(c.dir)+`/kimigo-debug-`+
		regexp.QuoteMeta(strings.TrimPrefix(id, "session_")[:8])+`-\d{8}-\d{6}\.zip\n$`).MatchString(r.stdout) {
		t.Errorf("default name: %v", r)
	}
	empty := filepath.Join(c.root, "empty")
	os.Mkdir(empty, 0o755)
	if r := c.runIn(empty, "", "export"); r.code != 1 || r.stderr != "No previous session found to export.\n" {
		t.Errorf("no sessions: %v", r)
	}
}
