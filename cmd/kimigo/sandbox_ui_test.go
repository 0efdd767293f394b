package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/sandbox"
	"github.com/kimigo/kimigo/session"
)

// toolResults are the last messages of the requests after the first: the
// tool results the model read, in order.
func toolResults(t *testing.T, srv *llmtest.Server) []string {
	t.Helper()
	var out []string
	reqs := srv.Requests()
	for i := 1; i < len(reqs); i++ {
		msgs, _ := reqs[i].JSON(t)["messages"].([]any)
		last, _ := msgs[len(msgs)-1].(map[string]any)
		text, _ := json.Marshal(last["content"])
		out = append(out, string(text))
	}
	return out
}

// flat is a screen with every run of white space made one space, so a
// notice the interface wrapped reads as one line.
func flat(screen string) string { return strings.Join(strings.Fields(screen), " ") }

// outsideDir is a directory beside the work dir, outside the workspace.
func (c *cli) outsideDir() string {
	c.t.Helper()
	d := filepath.Join(c.root, "outside")
	if err := os.MkdirAll(d, 0o755); err != nil {
		c.t.Fatal(err)
	}
	return d
}

// TestTUISandboxConfinesCommands: the interactive interface runs commands
// in the workspace-write sandbox by default (issue 16), as print mode
// does: an approved Bash call of the model and a "!" command of the user
// that write outside the work dir fail with the sandbox's error, and the
// system prompt states the sandbox with the network on (the interface's
// default: a person approves each command).
func TestTUISandboxConfinesCommands(t *testing.T) {
	c := newCLI(t)
	outside := c.outsideDir()
	fromModel, fromUser := filepath.Join(outside, "from-model"), filepath.Join(outside, "from-user")
	srv := c.fake("openai", llmtest.ToolCall("call_1", "Bash", bash("touch "+fromModel)), llmtest.Text("Tried it."),
		llmtest.Text("Seen."))
	p := c.inTmux("make the file")
	p.waitFor("Reject with feedback")
	p.keys("1")
	p.waitFor("Tried it.")
	if _, err := os.Stat(fromModel); err == nil {
		t.Error("the model's Bash call wrote outside the workspace")
	}
	results := toolResults(t, srv)
	if len(results) != 1 || !strings.Contains(results[0], "Permission denied") {
		t.Errorf("the model did not read the sandbox's error: %q", results)
	}
	body := string(srv.Requests()[0].Body)
	if !strings.Contains(body, "Commands run in a sandbox") || strings.Contains(body, "The network is off") {
		t.Errorf("the system prompt does not state the sandbox with the network on:\n%.3000s", body)
	}
	p.waitFor("> Type a message · /")
	p.text("!touch " + fromUser + "; echo status-$?") // the output, not the command line, says status-1
	p.keys("Enter")
	scr := p.waitFor("status-1")
	if _, err := os.Stat(fromUser); err == nil {
		t.Error("a ! command wrote outside the workspace")
	}
	if n := strings.Count(scr, "Permission denied"); n < 2 {
		t.Errorf("the ! command's sandbox error is not shown:\n%s", scr)
	}
	// The command ran in the conversation: the model reads it and its
	// error with the next prompt (spec 05 §2.7).
	p.waitFor("> Type a message · /")
	p.text("what happened?")
	p.keys("Enter")
	p.waitFor("Seen.")
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests; want 3", len(reqs))
	}
	msgs, _ := json.Marshal(reqs[2].JSON(t)["messages"].([]any)[1:])
	if !strings.Contains(string(msgs), "from-user': Permission denied") {
		t.Errorf("the model did not read the ! command's result: %s", msgs)
	}
	p.leave("C-c")
	if code, _ := p.exited(); code != 0 {
		t.Errorf("exit %d", code)
	}
}

// TestTUISandboxFlags: --sandbox off runs the interface's commands
// unconfined, and [sandbox] network = false in config.toml turns the
// network off there (the system prompt says so).
func TestTUISandboxFlags(t *testing.T) {
	c := newCLI(t)
	target := filepath.Join(c.outsideDir(), "unconfined")
	c.fake("openai")
	p := c.inTmux("--sandbox", "off")
	p.waitFor("> Type a message · /")
	p.text("!touch " + target + " && echo made-$((6*7))") // the output, not the command line, says made-42
	p.keys("Enter")
	p.waitFor("made-42")
	if _, err := os.Stat(target); err != nil {
		t.Errorf("--sandbox off: %v", err)
	}
	p.leave("C-c")
	p.exited()

	c = newCLI(t)
	if err := os.MkdirAll(c.home, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c.home, "config.toml"), []byte("[sandbox]\nnetwork = false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := c.fake("openai", llmtest.Text("ok"))
	p = c.inTmux("hi")
	p.waitFor("ok")
	if body := string(srv.Requests()[0].Body); !strings.Contains(body, "The network is off") {
		t.Errorf("network = false: the system prompt does not say the network is off:\n%.3000s", body)
	}
	p.leave("C-c")
	p.exited()
}

// TestTUITrustQuestion: a project whose .kimi-code/local.toml adds a
// directory outside it is asked about before the session opens (ERRATA
// 38). "Don't trust" (the default) opens it without the directory: a
// command cannot write there. "Trust this folder" records the project
// in the trust store under KIMIGO_HOME; then the directory is writable,
// and the question is not asked again.
func TestTUITrustQuestion(t *testing.T) {
	c := newCLI(t)
	extra := c.outsideDir()
	c.write(".kimi-code/local.toml", "[workspace]\nadditional_dir = [\""+extra+"\"]\n")
	c.fake("openai")
	touch := func(p *tmuxPane, name, want string) {
		t.Helper()
		p.text("!touch " + filepath.Join(extra, name) + " && echo made-$((6*7))")
		p.keys("Enter")
		p.waitFor(want)
	}

	p := c.inTmux()
	scr := p.waitFor("Trust this folder?")
	for _, want := range []string{"local.toml", "Don't trust"} {
		if !strings.Contains(scr, want) {
			t.Errorf("the trust question lacks %q:\n%s", want, scr)
		}
	}
	p.keys("Enter") // the default: don't trust
	if scr := flat(p.waitFor("> Type a message · /")); !strings.Contains(scr, c.dir+" is not trusted") {
		t.Errorf("no notice that the folder is not trusted:\n%s", scr)
	}
	touch(p, "untrusted", "Permission denied")
	p.leave("C-c")
	p.exited()
	if _, err := os.Stat(filepath.Join(extra, "untrusted")); err == nil {
		t.Error("an untrusted local.toml widened the sandbox")
	}
	if dirs, _ := session.TrustedDirs(osenv.LocalFS{}, c.home); len(dirs) != 0 {
		t.Errorf("trusted %v after Don't trust", dirs)
	}

	p = c.inTmux()
	p.waitFor("Trust this folder?")
	p.keys("1")
	if scr := flat(p.waitFor("> Type a message · /")); !strings.Contains(scr, "Trusted "+c.dir+".") {
		t.Errorf("no notice that the folder is trusted:\n%s", scr)
	}
	touch(p, "trusted", "made-42")
	p.leave("C-c")
	p.exited()
	if dirs, _ := session.TrustedDirs(osenv.LocalFS{}, c.home); len(dirs) != 1 || dirs[0] != c.dir {
		t.Errorf("the trust store holds %v; want %s", dirs, c.dir)
	}

	p = c.inTmux()
	scr = p.waitFor("> Type a message · /")
	if strings.Contains(scr, "Trust this folder?") {
		t.Errorf("a trusted project was asked about again:\n%s", scr)
	}
	p.leave("C-c")
	p.exited()
}

// TestACPSandboxConfinesCommands: `kimigo acp` runs each session's
// commands in the workspace-write sandbox of that session: its cwd and
// its additionalDirectories are writable, a directory outside both is
// not, and the model reads the sandbox's error (issue 16).
func TestACPSandboxConfinesCommands(t *testing.T) {
	c := newCLI(t)
	root := c.outsideDir()
	extra, outside := filepath.Join(root, "extra"), filepath.Join(root, "elsewhere")
	for _, d := range []string{extra, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	inWork, inExtra, out := filepath.Join(c.dir, "in-work"), filepath.Join(extra, "in-extra"), filepath.Join(outside, "out")
	srv := c.fake("openai",
		llmtest.ToolCall("call_1", "Bash", bash("touch "+inWork+"; touch "+inExtra+"; touch "+out)),
		llmtest.Text("Done."))
	cmd := c.command(c.dir, "acp")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer stdin.Close()
	lines := bufio.NewScanner(stdout)
	lines.Buffer(nil, 1<<22)
	send := func(m map[string]any) {
		t.Helper()
		m["jsonrpc"] = "2.0"
		b, _ := json.Marshal(m)
		if _, err := stdin.Write(append(b, '\n')); err != nil {
			t.Fatal(err)
		}
	}
	// call sends a request and answers the agent's permission requests
	// (approve once) until its response arrives.
	permissions := 0
	call := func(id int, method string, params any) map[string]any {
		t.Helper()
		send(map[string]any{"id": id, "method": method, "params": params})
		for lines.Scan() {
			var m map[string]any
			if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
				t.Fatalf("stdout line is not JSON: %q", lines.Text())
			}
			if m["method"] == "session/request_permission" {
				permissions++
				send(map[string]any{"id": m["id"], "result": map[string]any{
					"outcome": map[string]any{"outcome": "selected", "optionId": "approve_once"}}})
				continue
			}
			if n, ok := m["id"].(float64); ok && int(n) == id && m["method"] == nil {
				return m
			}
		}
		t.Fatalf("no response to %s: %v", method, lines.Err())
		return nil
	}
	call(1, "initialize", map[string]any{"protocolVersion": 1})
	resp := call(2, "session/new", map[string]any{"cwd": c.dir, "mcpServers": []any{}, "additionalDirectories": []string{extra}})
	result, _ := resp["result"].(map[string]any)
	id, _ := result["sessionId"].(string)
	if id == "" {
		t.Fatalf("session/new: %v", resp)
	}
	resp = call(3, "session/prompt", map[string]any{"sessionId": id,
		"prompt": []any{map[string]any{"type": "text", "text": "make the files"}}})
	if r, _ := resp["result"].(map[string]any); r["stopReason"] != "end_turn" {
		t.Fatalf("session/prompt: %v", resp)
	}
	if permissions != 1 {
		t.Errorf("%d permission requests; want 1 (the Bash call)", permissions)
	}
	for _, f := range []string{inWork, inExtra} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("a write inside the session's workspace failed: %v", err)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a command wrote outside the session's workspace")
	}
	results := toolResults(t, srv)
	if len(results) != 1 || !strings.Contains(results[0], "Permission denied") || !strings.Contains(results[0], "elsewhere/out") {
		t.Errorf("the model did not read the sandbox's error: %q", results)
	}
	if body := string(srv.Requests()[0].Body); !strings.Contains(body, "Commands run in a sandbox") {
		t.Errorf("the system prompt does not state the sandbox:\n%.3000s", body)
	}
}

// sandboxFor is every front end's sandbox: workspace-write unless
// configured; the network off headless and on where a person approves,
// unless [sandbox] network says otherwise; --network turns it on;
// --yolo turns the sandbox off unless --sandbox names one; ACP (no
// flags) reads the configuration alone.
func TestSandboxForEveryFrontEnd(t *testing.T) {
	no, yes := false, true
	cfg := func(mode string, network *bool) *config.Config {
		c := &config.Config{}
		c.Sandbox.Mode, c.Sandbox.Network = mode, network
		return c
	}
	for _, tt := range []struct {
		args     []string // nil: ACP, which has no flags
		cfg      *config.Config
		headless bool
		want     session.SandboxOptions
	}{
		{[]string{"-p", "x"}, cfg("", nil), true, session.SandboxOptions{Mode: sandbox.ModeWorkspaceWrite}},
		{[]string{}, cfg("", nil), false, session.SandboxOptions{Mode: sandbox.ModeWorkspaceWrite, Network: true}},
		{nil, cfg("", nil), false, session.SandboxOptions{Mode: sandbox.ModeWorkspaceWrite, Network: true}},
		{[]string{}, cfg("read-only", &no), false, session.SandboxOptions{Mode: sandbox.ModeReadOnly}},
		{nil, cfg("off", &no), false, session.SandboxOptions{Mode: sandbox.ModeOff}},
		{[]string{"-p", "x"}, cfg("", &yes), true, session.SandboxOptions{Mode: sandbox.ModeWorkspaceWrite, Network: true}},
		{[]string{"--network"}, cfg("", &no), false, session.SandboxOptions{Mode: sandbox.ModeWorkspaceWrite, Network: true}},
		{[]string{"--sandbox", "read-only"}, cfg("off", nil), false, session.SandboxOptions{Mode: sandbox.ModeReadOnly, Network: true}},
		{[]string{"--yolo"}, cfg("", nil), false, session.SandboxOptions{Mode: sandbox.ModeOff, Network: true}},
		{[]string{"--yolo", "--sandbox", "workspace-write"}, cfg("", nil), false,
			session.SandboxOptions{Mode: sandbox.ModeWorkspaceWrite, Network: true}},
		{[]string{"-p", "x", "--dangerously-skip-permissions"}, cfg("", nil), true, session.SandboxOptions{Mode: sandbox.ModeOff}},
	} {
		var o *options
		if tt.args != nil {
			var err error
			if o, err = parseArgs(tt.args); err != nil {
				t.Fatalf("%q: %v", tt.args, err)
			}
		}
		if got := sandboxFor(tt.cfg, o, tt.headless); got != tt.want {
			t.Errorf("%q, [sandbox] %+v, headless %v: %+v; want %+v", tt.args, tt.cfg.Sandbox, tt.headless, got, tt.want)
		}
	}
}

// TestTUIRunFlags: the safety flags of a run apply in the interface as in
// print mode (issue 15 item 7): --allowedTools approves a Write without the
// panel in manual mode, --disallowedTools denies a command, --plan starts in plan mode and --permission-mode picks the mode.
// (--max-steps and --append-system-prompt are print mode's and refused
// here, TestPrintOnlyOptions.)
func TestTUIRunFlags(t *testing.T) {
	c := newCLI(t)
	srv := c.fake("openai",
		llmtest.ToolCall("call_1", "Write", `{"path":"a.txt","content":"allowed\n"}`),
		llmtest.ToolCall("call_2", "Bash", `{"command":"echo denied-$((6*7))"}`),
		llmtest.Text("done"))
	p := c.inTmux("--allowedTools", "Write(a.txt)", "--disallowedTools", "Bash(echo *)", "write a file")
	p.waitFor("done")
	if b, err := os.ReadFile(filepath.Join(c.dir, "a.txt")); err != nil || string(b) != "allowed\n" {
		t.Errorf("--allowedTools Write(a.txt): a.txt = %q, %v", b, err)
	}
	if scr := p.screen(); strings.Contains(scr, "Approve once") || strings.Contains(scr, "denied-42") {
		t.Errorf("a call asked or the denied command ran:\n%s", scr)
	}
	if res := toolResults(t, srv); len(res) != 2 || !strings.Contains(res[1], `Tool \"Bash\" was denied by permission rule.`) {
		t.Errorf("the tool results = %q; want the Bash call denied by the rule", res)
	}
	p.leave("C-c")
	p.exited()

	c = newCLI(t)
	c.fake("openai")
	p = c.inTmux("--plan", "--permission-mode", "auto")
	scr := p.waitFor("> Type a message · /")
	if !strings.Contains(scr, "auto") || !strings.Contains(scr, "plan") {
		t.Errorf("--plan --permission-mode auto: the footer lacks a mode:\n%s", scr)
	}
	p.leave("C-c")
	p.exited()
}
