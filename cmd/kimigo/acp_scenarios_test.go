package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/mcp/mcptest"
)

// Scenarios 61, 63, 64 and 66 of spec 06 §10, two sessions of one process
// at once, session/resume and the thinking option, each driven by the
// real npm client (acp/testdata/scenarios.mjs) against the built binary
// over its stdio.

// acpScenarioLimit bounds one scenario's Node run, every kimigo process
// it starts included.
const acpScenarioLimit = 2 * time.Minute

// acpScenario runs scenario with the npm client and returns its
// transcript; a line that is not JSON-RPC, a client error or anything on
// kimigo's stderr fails the test.
func acpScenario(t *testing.T, c *cli, scenario string, opts any) []string {
	t.Helper()
	dir := acpNpmDir(t)
	script, err := filepath.Abs(filepath.Join("..", "..", "acp", "testdata", "scenarios.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	args := []string{script, binary, c.dir, scenario}
	if opts != nil {
		b, err := json.Marshal(opts)
		if err != nil {
			t.Fatal(err)
		}
		args = append(args, string(b))
	}
	ctx, cancel := context.WithTimeout(context.Background(), acpScenarioLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", args...)
	cmd.Env = append(c.environ(), "KIMIGO_ACP_NPM_DIR="+dir)
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node %s: %v (deadline: %v)\n%s", scenario, err, ctx.Err(), out)
	}
	t.Logf("transcript of %s:\n%s", scenario, out)
	transcript := strings.Split(strings.TrimSpace(string(out)), "\n")
	for _, l := range transcript {
		for _, bad := range []string{"bad-line", "client error", "stderr"} {
			if strings.HasPrefix(l, bad) {
				t.Errorf("%s", l)
			}
		}
		if strings.HasPrefix(l, "exit ") && l != "exit 0 lines=true" {
			t.Errorf("a kimigo process ended with %q", l)
		}
	}
	return transcript
}

// inOrder checks that want appears in transcript in this order, other
// lines between them, and returns the index after each match.
func inOrder(t *testing.T, transcript []string, want ...string) []int {
	t.Helper()
	var at []int
	i := 0
	for _, w := range want {
		for i < len(transcript) && transcript[i] != w {
			i++
		}
		if i == len(transcript) {
			t.Errorf("the transcript lacks %q after %q", w, want[:len(at)])
			return at
		}
		at = append(at, i)
		i++
	}
	return at
}

// lastUser is the text of the last message a request carries.
func lastUser(t *testing.T, r *llmtest.Request) string {
	var body struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil || len(body.Messages) == 0 {
		t.Errorf("request body: %v", err)
		return ""
	}
	last := body.Messages[len(body.Messages)-1]
	return last.Role + ": " + string(last.Content)
}

// Scenario 61: a rejected Write and a client whose permission handler
// fails both leave the file unwritten, fail the tool call, tell the model
// and end the turn.
func TestACPNpmScenario61RejectAndFailingClient(t *testing.T) {
	for _, scenario := range []string{"reject", "throws"} {
		t.Run(scenario, func(t *testing.T) {
			c := newCLI(t)
			srv := c.fake("openai", writeReply("call_b", "b.txt"), llmtest.Text("Understood."))
			tr := acpScenario(t, c, scenario, nil)
			inOrder(t, tr, "prompt create b.txt",
				"update tool_call 1:call_b edit pending",
				"permission 1:call_b approve_once,approve_always,reject",
				"update tool_call_update 1:call_b failed",
				"stop end_turn")
			if _, err := os.Stat(filepath.Join(c.dir, "b.txt")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("b.txt was written: %v", err)
			}
			if n := len(srv.Requests()); n != 2 {
				t.Fatalf("model requests: %d, want 2", n)
			}
			if last := strings.ToLower(lastUser(t, srv.Request(1))); !strings.HasPrefix(last, "tool:") ||
				!strings.Contains(last, "reject") && !strings.Contains(last, "denied") {
				t.Errorf("the model did not hear of the rejection: %.500s", last)
			}
		})
	}
}

// Scenario 63: with the client's file system a Read returns the unsaved
// buffer, a Write goes to the editor with an absolute path and leaves the
// disk alone, and a Read outside the session's directories is a tool
// error without a request.
func TestACPNpmScenario63FileSystemBridge(t *testing.T) {
	c := newCLI(t)
	a := filepath.Join(c.dir, "a.txt")
	if err := os.WriteFile(a, []byte("on disk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := func(v map[string]string) string { b, _ := json.Marshal(v); return string(b) }
	srv := c.fake("openai",
		llmtest.ToolCall("r1", "Read", args(map[string]string{"path": a})),
		llmtest.ToolCall("w1", "Write", args(map[string]string{"path": "new.txt", "content": "x"})),
		llmtest.ToolCall("r2", "Read", args(map[string]string{"path": "/etc/hostname"})),
		llmtest.Text("done"))
	tr := acpScenario(t, c, "fs", nil)
	newTxt := filepath.Join(c.dir, "new.txt")
	inOrder(t, tr, "prompt edit", "fs read "+a, "update tool_call_update 1:r1 completed",
		"permission 1:w1 approve_once,approve_always,reject", "fs write "+newTxt+` "x"`,
		"update tool_call_update 1:w1 completed", "update tool_call_update 1:r2 failed", "stop end_turn")
	for _, l := range tr {
		if strings.HasPrefix(l, "fs ") && !strings.HasPrefix(l, "fs read "+a) && !strings.HasPrefix(l, "fs write "+newTxt) {
			t.Errorf("unexpected file system request: %s", l)
		}
	}
	if last := lastUser(t, srv.Request(1)); !strings.Contains(last, `1\tdraft`) || strings.Contains(last, "on disk") {
		t.Errorf("the Read did not return the editor's buffer: %.500s", last)
	}
	if _, err := os.Stat(newTxt); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the Write reached the disk: %v", err)
	}
	if b, _ := os.ReadFile(a); string(b) != "on disk\n" {
		t.Errorf("a.txt on disk changed: %q", b)
	}
	if last := lastUser(t, srv.Request(3)); !strings.Contains(last, "outside the session") {
		t.Errorf("the Read outside the roots is not a tool error: %.500s", last)
	}
}

// Scenario 64 and session/resume: a later process lists the session,
// replays its history before the load response, resumes it in a third
// process without the replay and continues the conversation; an unknown
// id and an unknown auth method are -32602.
func TestACPNpmScenario64LoadResumeListErrors(t *testing.T) {
	c := newCLI(t)
	srv := c.fake("openai", writeReply("call_b", "b.txt"), llmtest.Text("Done."), llmtest.Text("Still here."))
	tr := acpScenario(t, c, "load", nil)
	at := inOrder(t, tr,
		"stop end_turn", "exit 0 lines=true",
		"list same-id cwd=true updatedAt=true",
		"load",
		`update user_message_chunk "create b.txt"`,
		`update agent_message_chunk "Writing b.txt."`,
		"update tool_call 1:call_b edit in_progress",
		"update tool_call_update 1:call_b completed",
		`update agent_message_chunk "Done."`,
		"response configOptions",
		"loaded "+envOptions,
		"load session_nope error -32602 Unknown sessionId: session_nope",
		"authenticate x error -32602 Unknown auth method: x",
		"authenticate login ok {}",
		"exit 0 lines=true",
		"resume", "response configOptions", "resumed "+envOptions,
		"prompt are you there?", "stop end_turn",
		"resume session_nope error -32602 Unknown sessionId: session_nope")
	if len(at) == 21 {
		// Between resume and its response only the available commands of
		// the load (none) may come: no replay.
		for _, l := range tr[at[15]:at[16]] {
			if strings.HasPrefix(l, "update ") {
				t.Errorf("session/resume replayed %q", l)
			}
		}
		// The available commands follow each response.
		if !slices.Contains(tr[at[16]:at[19]], "update available_commands_update") {
			t.Errorf("no available_commands_update after the resume response")
		}
	}
	if n := len(srv.Requests()); n != 3 {
		t.Fatalf("model requests: %d, want 3", n)
	}
	if body := string(srv.Request(2).Body); !strings.Contains(body, "create b.txt") || !strings.Contains(body, "Done.") {
		t.Errorf("the prompt after resume lacks the earlier conversation: %.1500s", body)
	}
}

// envOptions are the config options of a session on the KIMI_MODEL_*
// model of cli.fake.
const envOptions = "model=__kimi_env_model__ thinking=on[off:Off,on:On]thought_level mode=default"

// Scenario 64: with no usable model session/new and authenticate answer
// -32000.
func TestACPNpmScenario64NoModel(t *testing.T) {
	c := newCLI(t)
	tr := acpScenario(t, c, "nomodel", nil)
	inOrder(t, tr, "initialize protocol=1")
	for _, want := range []string{"new error -32000 ", "authenticate login error -32000 "} {
		if !slices.ContainsFunc(tr, func(l string) bool { return strings.HasPrefix(l, want) }) {
			t.Errorf("the transcript lacks %q", want)
		}
	}
}

// Scenario 66: the client's stdio MCP server (the npm server-everything)
// starts with the environment the client gave and its tools reach the
// model; an entry of a type kimigo does not take is ignored.
func TestACPNpmScenario66ClientMCPServers(t *testing.T) {
	c := newCLI(t)
	node, script := mcptest.NpmServer(t, mcptest.EverythingPackage)
	srv := c.fake("openai", llmtest.ToolCall("m1", "mcp__echo__get-env", `{}`), llmtest.Text("done"))
	tr := acpScenario(t, c, "mcp", map[string]any{"command": node, "args": []string{script, "stdio"}})
	inOrder(t, tr, "new session_* "+envOptions, "prompt show the environment", "update tool_call 1:m1 other pending",
		"update tool_call_update 1:m1 completed", "stop end_turn", "prompt /mcp")
	if !slices.ContainsFunc(tr, func(l string) bool {
		return strings.HasPrefix(l, `update agent_message_chunk "MCP servers:\necho (stdio): connected, `) && strings.HasSuffix(l, ` tools"`)
	}) {
		t.Errorf("/mcp does not list the connected server")
	}
	if n := len(srv.Requests()); n != 2 {
		t.Fatalf("model requests: %d, want 2", n)
	}
	if names := strings.Join(toolNames(t, srv.Request(0)), " "); !strings.Contains(names, "mcp__echo__echo") {
		t.Errorf("the first request does not offer the client's server's tools: %s", names)
	}
	if last := lastUser(t, srv.Request(1)); !strings.Contains(last, `\"K\": \"v\"`) {
		t.Errorf("the server did not get K=v from the client: %.3000s", last)
	}
}

// Two sessions of one process prompt at once: cancelling one while both
// are mid-stream ends it cancelled; the other's answer then comes in full
// and ends its turn as usual, and the cancelled session takes the next
// prompt.
func TestACPNpmConcurrentSessionsOneCancelled(t *testing.T) {
	c := newCLI(t)
	slowGate, fastGate := llmtest.NewGate(), llmtest.NewGate()
	t.Cleanup(slowGate.Release)
	t.Cleanup(fastGate.Release)
	const fast = "The fast answer comes in several parts, held in the middle."
	srv := c.fake("openai")
	srv.Respond(func(r *llmtest.Request) llmtest.Reply {
		switch last := lastUser(t, r); {
		case strings.Contains(last, "the slow one"):
			slow := llmtest.Text("This answer takes a long time.")
			slow.Fault.Hold, slow.Fault.HoldAfter = slowGate, 2
			return slow
		case strings.Contains(last, "the fast one"):
			held := llmtest.Text(fast)
			held.Fault.Hold, held.Fault.HoldAfter = fastGate, 2
			return held
		case strings.Contains(last, "again"):
			fastGate.Release() // the other session's answer goes on
		}
		return llmtest.Text("ok")
	})
	tr := acpScenario(t, c, "concurrent", nil)
	at := inOrder(t, tr, "distinct true", "both streaming", "stop s1 cancelled", "stop s2 end_turn", "next s1 end_turn")
	var text strings.Builder
	for _, l := range tr {
		if q, ok := strings.CutPrefix(l, "update [s2] agent_message_chunk "); ok {
			var s string
			if err := json.Unmarshal([]byte(q), &s); err != nil {
				t.Fatal(err)
			}
			text.WriteString(s)
		}
	}
	if text.String() != fast {
		t.Errorf("the other session's answer = %q, want %q", text.String(), fast)
	}
	if len(at) == 5 && !slices.ContainsFunc(tr[at[2]:at[3]], func(l string) bool { return strings.HasPrefix(l, "update [s2] agent_message_chunk") }) {
		t.Error("the other session's answer did not go on after the cancel")
	}
}

// The thinking option through the real client: listed with the model's
// efforts, set to high, refused for a value the model lacks, set off; each
// applies to the next request.
func TestACPNpmThinkingOption(t *testing.T) {
	c := newCLI(t)
	srv := llmtest.FakeChatCompletions(t)
	srv.Respond(func(*llmtest.Request) llmtest.Reply { return llmtest.Text("ok") })
	if err := os.MkdirAll(c.home, 0o755); err != nil {
		t.Fatal(err)
	}
	toml := fmt.Sprintf(`default_model = "r"

[providers.fake]
type = "openai"
base_url = %q
api_key = "test-key"

[models.r]
provider = "fake"
model = "model-r"
max_context_size = 100000
capabilities = ["thinking"]
support_efforts = ["low", "high"]
default_effort = "low"
`, llmtest.ChatBaseURL(srv))
	if err := os.WriteFile(config.ConfigFile(c.home), []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	tr := acpScenario(t, c, "thinking", nil)
	const opts = "[off:Off,low:Low,high:High]thought_level mode=default"
	inOrder(t, tr,
		"new session_* model=r thinking=low"+opts,
		"prompt first", "stop end_turn",
		"update config_option_update model=r thinking=high"+opts,
		"set high model=r thinking=high"+opts,
		"prompt second", "stop end_turn",
		`set max error -32602 Unknown thinking effort for model "r": max`,
		"update config_option_update model=r thinking=off"+opts,
		"set off model=r thinking=off"+opts,
		"prompt third", "stop end_turn")
	var efforts []string
	for _, r := range srv.Requests() {
		v, ok := r.JSON(t)["reasoning_effort"]
		if !ok {
			v = "-"
		}
		efforts = append(efforts, fmt.Sprint(v))
	}
	if want := []string{"low", "high", "-"}; !slices.Equal(efforts, want) {
		t.Errorf("reasoning_effort of each request = %q, want %q", efforts, want)
	}
}
