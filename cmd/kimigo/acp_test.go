package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/llm/scripted"
)

// acpNpmDir is where .ci/run installs the npm ACP client
// (@agentclientprotocol/sdk, acpClientVersion); KIMIGO_ACP_NPM_DIR names it.
func acpNpmDir(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("Node.js is not installed; .ci/run installs it to run the npm ACP client")
	}
	dir := os.Getenv("KIMIGO_ACP_NPM_DIR")
	explicit := dir != ""
	if !explicit {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache", "kimigo", "npm-acp")
	}
	pkg := filepath.Join(dir, "node_modules", "@agentclientprotocol", "sdk", "package.json")
	b, err := os.ReadFile(pkg)
	var v struct{ Version string }
	json.Unmarshal(b, &v)
	if err != nil || v.Version != acpClientVersion {
		if explicit {
			t.Fatalf("KIMIGO_ACP_NPM_DIR=%s but @agentclientprotocol/sdk@%s is not installed there (%v, found %q)",
				dir, acpClientVersion, err, v.Version)
		}
		t.Skipf("@agentclientprotocol/sdk@%s is not installed in %s; run .ci/run (or npm install --prefix %s @agentclientprotocol/sdk@%s)",
			acpClientVersion, dir, dir, acpClientVersion)
	}
	return dir
}

const acpClientVersion = "2.4.0"

// acpModel answers by what the request asks: a Write of the file the
// prompt names, then a closing line once the call has its result; a held
// stream for the slow prompt.
func acpModel(gate *llmtest.Gate) func(*llmtest.Request) llmtest.Reply {
	return func(r *llmtest.Request) llmtest.Reply {
		var body struct {
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		json.Unmarshal(r.Body, &body)
		last := body.Messages[len(body.Messages)-1]
		switch {
		case last.Role == "tool":
			return llmtest.Text("Done.")
		case strings.Contains(string(last.Content), "a slow one"):
			slow := llmtest.Text("This answer takes a long time.")
			slow.Fault.Hold, slow.Fault.HoldAfter = gate, 2
			return slow
		case strings.Contains(string(last.Content), "create b.txt"):
			return writeReply("call_b", "b.txt")
		case strings.Contains(string(last.Content), "create c.txt"):
			return writeReply("call_c", "c.txt")
		}
		return llmtest.Text("?")
	}
}

func writeReply(id, path string) llmtest.Reply {
	args, _ := json.Marshal(map[string]string{"path": path, "content": "hi"})
	parts := scripted.Text("Writing " + path + ".").Parts
	parts = append(parts, scripted.CallParts(0, scripted.Call{ID: id, Name: "Write", Arguments: string(args)})...)
	return llmtest.Reply{Response: scripted.Response{Parts: parts}}
}

// Scenarios 59, 60, 62 (and 65's refused mode) with the real npm client
// over the process's stdio.
func TestACPWithTheNpmClient(t *testing.T) {
	dir := acpNpmDir(t)
	c := newCLI(t)
	gate := llmtest.NewGate()
	t.Cleanup(gate.Release)
	srv := c.fake("openai")
	srv.Respond(acpModel(gate))
	script, err := filepath.Abs(filepath.Join("..", "..", "acp", "testdata", "client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), runLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", script, binary, c.dir)
	cmd.Env = append(c.environ(), "KIMIGO_ACP_NPM_DIR="+dir)
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	transcript := strings.Split(strings.TrimSpace(string(out)), "\n")
	t.Logf("transcript:\n%s", out)
	for _, l := range transcript {
		if strings.HasPrefix(l, "bad-line") || strings.HasPrefix(l, "client error") || strings.HasPrefix(l, "stderr") {
			t.Errorf("%s", l)
		}
	}
	// The steps that must appear, in this order; other updates (chunks,
	// call updates) come between them.
	want := []string{
		"initialize protocol=1 loadSession=true image=true audio=false embeddedContext=true http=true sse=true list=true resume=true auth=login:terminal:--login",
		"new session_* options=model,thinking,mode mode=default",
		"prompt create b.txt",
		"update agent_message_chunk",
		"update tool_call 1:call_b edit pending",
		// The host asks before it records the call: the update with the
		// full input follows the request (which carries the input).
		"permission 1:call_b approve_once,approve_always,reject",
		"update tool_call_update 1:call_b in_progress",
		"update tool_call_update 1:call_b completed",
		"update agent_message_chunk",
		"stop end_turn",
		"prompt create c.txt",
		"permission 2:call_c approve_once,approve_always,reject",
		"stop cancelled",
		"prompt slow",
		"update agent_message_chunk",
		"stop cancelled",
		"set_mode bogus error -32602 Unknown sessionModeId: bogus",
		"exit 0 lines=true",
	}
	at := 0
	for _, l := range transcript {
		if at < len(want) && l == want[at] {
			at++
		}
	}
	if at < len(want) {
		t.Errorf("the transcript lacks %q (after %q)", want[at], want[:at])
	}
	if b, err := os.ReadFile(filepath.Join(c.dir, "b.txt")); err != nil || string(b) != "hi" {
		t.Errorf("b.txt: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(c.dir, "c.txt")); err == nil {
		t.Error("c.txt was written although its permission request was cancelled")
	}
	if i, j := slices.Index(transcript, "update available_commands_update"), slices.Index(transcript, "response session/new"); i < j || j < 0 {
		t.Errorf("available_commands_update at line %d, before the session/new response at %d", i, j)
	}
	if i := slices.Index(transcript, "stop end_turn"); i >= 0 && slices.Contains(transcript[i+1:], "update tool_call 1:call_b edit pending") {
		t.Error("an update of the first prompt arrived after its response")
	}
}

// SIGTERM closes the sessions as EOF does and exits 0; stdout carries
// only protocol lines, and the session's lock is released so another
// process can load it.
func TestACPSignalClosesSessions(t *testing.T) {
	c := newCLI(t)
	c.fake("openai", llmtest.Text("hi"))
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
	lines := bufio.NewScanner(stdout)
	call := func(id int, method string, params any) map[string]any {
		t.Helper()
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		if _, err := stdin.Write(append(b, '\n')); err != nil {
			t.Fatal(err)
		}
		for lines.Scan() {
			var m map[string]any
			if err := json.Unmarshal(lines.Bytes(), &m); err != nil || m["jsonrpc"] != "2.0" {
				t.Fatalf("stdout line is not JSON-RPC: %q", lines.Text())
			}
			if n, ok := m["id"].(float64); ok && int(n) == id {
				return m
			}
		}
		t.Fatalf("no response to %s: %v", method, lines.Err())
		return nil
	}
	call(1, "initialize", map[string]any{"protocolVersion": 1})
	resp := call(2, "session/new", map[string]any{"cwd": c.dir, "mcpServers": []any{}})
	result, _ := resp["result"].(map[string]any)
	id, _ := result["sessionId"].(string)
	if id == "" {
		t.Fatalf("session/new: %v", resp)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for lines.Scan() {
		var m map[string]any
		if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
			t.Errorf("stdout line is not JSON: %q", lines.Text())
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit: %v", err)
	}
	// The lock is free: print mode resumes the session.
	c.fake("openai", llmtest.Text("resumed"))
	if r := c.run("-p", "again", "-S", id); r.code != 0 {
		t.Errorf("resume after SIGTERM: %v", r)
	}
}
