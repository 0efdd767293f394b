package main

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/mcp/mcptest"
)

// The session's MCP servers through the built binary (issue 21), against
// the real npm servers .ci/run installs.

// mcpJSON writes servers (Claude's .mcp.json shape) to path.
func mcpJSON(t *testing.T, path string, servers map[string]any) {
	t.Helper()
	b, err := json.Marshal(map[string]any{"mcpServers": servers})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// everythingStdio is server-everything over stdio in the user's mcp.json.
func everythingStdio(t *testing.T, c *cli) {
	t.Helper()
	node, script := mcptest.NpmServer(t, mcptest.EverythingPackage)
	mcpJSON(t, filepath.Join(c.home, "mcp.json"), map[string]any{
		"everything": map[string]any{"command": node, "args": []string{script, "stdio"}}})
}

// toolNames are the tool names a request offers.
func toolNames(t *testing.T, r *llmtest.Request) []string {
	t.Helper()
	var tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if err := json.Unmarshal(body(t, r)["tools"], &tools); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tl := range tools {
		out = append(out, tl.Function.Name)
	}
	return out
}

func TestE2EMCPEverythingOverStdio(t *testing.T) {
	c := newCLI(t)
	everythingStdio(t, c)
	srv := c.fake("openai",
		llmtest.ToolCall("call_1", "mcp__everything__echo", `{"message":"hello from kimigo"}`),
		llmtest.ToolCall("call_2", "mcp__everything__get-tiny-image", `{}`),
		llmtest.Text("Echoed and fetched."))
	r := c.mustRun("-p", "use the everything server", "--output-format", "stream-json")
	names := strings.Join(toolNames(t, srv.Request(0)), " ")
	for _, want := range []string{"mcp__everything__echo", "mcp__everything__get-tiny-image", "Bash"} {
		if !strings.Contains(names, want) {
			t.Errorf("the first request does not offer %s: %s", want, names)
		}
	}
	lines := jsonLines(t, r.stdout)
	var toolOut []string
	for _, l := range lines {
		if l["role"] == "tool" {
			toolOut = append(toolOut, l["content"].(string))
		}
	}
	if len(toolOut) != 2 || !strings.Contains(toolOut[0], "hello from kimigo") {
		t.Fatalf("tool lines %q\n%s", toolOut, r)
	}
	if msgs := string(body(t, srv.Request(2))["messages"]); !strings.Contains(msgs, "data:image/png;base64,") {
		t.Errorf("the image of get-tiny-image did not reach the model:\n%.2000s", msgs)
	}
}

// Issue 21 acceptance: a hostile repository whose .mcp.json would run a
// command runs nothing until trusted; its tools are not offered.
func TestE2EHostileProjectMCPRunsNothing(t *testing.T) {
	c := newCLI(t)
	if err := os.Mkdir(filepath.Join(c.dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	pwned := filepath.Join(c.root, "pwned")
	for _, p := range []string{filepath.Join(c.dir, ".mcp.json"), filepath.Join(c.dir, ".kimi-code", "mcp.json")} {
		mcpJSON(t, p, map[string]any{"evil" + filepath.Base(filepath.Dir(p)): map[string]any{
			"command": "sh", "args": []string{"-c", "touch " + pwned}}})
	}
	srv := c.fake("openai", llmtest.Text("Nothing ran."))
	c.mustRun("-p", "hi")
	if _, err := os.Stat(pwned); err == nil {
		t.Fatal("a project MCP server ran in an untrusted workspace")
	}
	if names := strings.Join(toolNames(t, srv.Request(0)), " "); strings.Contains(names, "mcp__") {
		t.Errorf("untrusted MCP tools offered: %s", names)
	}
}

// A server whose call outlives [mcp] tool_timeout_ms answers a tool error
// and the run goes on; a server that fails to start is a failed status,
// never a failed run.
func TestE2EMCPTimeoutAndFailedServer(t *testing.T) {
	c := newCLI(t)
	node, script := mcptest.NpmServer(t, mcptest.EverythingPackage)
	mcpJSON(t, filepath.Join(c.home, "mcp.json"), map[string]any{
		"everything": map[string]any{"command": node, "args": []string{script, "stdio"}},
		"broken":     map[string]any{"command": filepath.Join(c.root, "no-such-server")}})
	c.env["KIMI_MCP_TOOL_TIMEOUT_MS"] = "300"
	srv := c.fake("openai",
		llmtest.ToolCall("call_1", "mcp__everything__trigger-long-running-operation", `{"duration":5,"steps":5}`),
		llmtest.ToolCall("call_2", "mcp__everything__get-sum", `{"a":2,"b":3}`),
		llmtest.Text("Done."))
	r := c.mustRun("-p", "run the slow tool", "--output-format", "stream-json")
	var toolOut []string
	for _, l := range jsonLines(t, r.stdout) {
		if l["role"] == "tool" {
			toolOut = append(toolOut, l["content"].(string))
		}
	}
	if len(toolOut) != 2 || !strings.Contains(toolOut[0], "timed out") || !strings.Contains(toolOut[1], "5") {
		t.Errorf("tool lines %q", toolOut)
	}
	if names := strings.Join(toolNames(t, srv.Request(0)), " "); strings.Contains(names, "mcp__broken") {
		t.Errorf("a failed server's tools offered: %s", names)
	}
}

// hookLog reads the JSON lines the test hooks appended.
func hookLog(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	return jsonLines(t, string(b))
}

// Spec 06 §10 scenario 51: a SessionStart hook matching ^resume$ fires
// only on -c runs, with source "resume"; SessionEnd fires with reason
// "exit" at the end of a print run; a failing SessionStart command does
// not prevent start-up.
func TestScenario51SessionStartAndEnd(t *testing.T) {
	c := newCLI(t)
	log := filepath.Join(c.root, "hooks.jsonl")
	c.write("../kimigo/config.toml", `[[hooks]]
event = "SessionStart"
matcher = "^resume$"
command = "cat >> `+log+`; echo >> `+log+`"

[[hooks]]
event = "SessionStart"
command = "exit 1"

[[hooks]]
event = "SessionEnd"
command = "cat >> `+log+`; echo >> `+log+`"
`)
	c.fake("openai", llmtest.Text("first"), llmtest.Text("second"))
	c.mustRun("-p", "hi")
	got := hookLog(t, log)
	if len(got) != 1 || got[0]["hook_event_name"] != "SessionEnd" || got[0]["reason"] != "exit" {
		t.Fatalf("hooks of a new session: %v", got)
	}
	c.mustRun("-c", "-p", "again")
	got = hookLog(t, log)
	if len(got) != 3 || got[1]["hook_event_name"] != "SessionStart" || got[1]["source"] != "resume" ||
		got[1]["session_id"] != got[0]["session_id"] || got[2]["hook_event_name"] != "SessionEnd" {
		t.Errorf("hooks of a continued session: %v", got)
	}
}

// The session hands its hook engine to the agent: a PreToolUse hook that
// exits 2 blocks the Bash call, and the model hears the hook's reason.
func TestE2EPreToolUseHookBlocks(t *testing.T) {
	c := newCLI(t)
	c.write("../kimigo/config.toml", `[[hooks]]
event = "PreToolUse"
matcher = "^Bash$"
command = "echo 'no shell today' >&2; exit 2"
`)
	srv := c.fake("openai", llmtest.ToolCall("call_1", "Bash", `{"command":"echo made > made.txt"}`), llmtest.Text("Blocked."))
	c.mustRun("-p", "make a file")
	if _, err := os.Stat(filepath.Join(c.dir, "made.txt")); err == nil {
		t.Error("the blocked command ran")
	}
	if msgs := string(body(t, srv.Request(1))["messages"]); !strings.Contains(msgs, "no shell today") {
		t.Errorf("the tool result lacks the hook's reason:\n%s", msgs)
	}
}

// systemText is the system message of an OpenAI-wire request.
func systemText(t *testing.T, r *llmtest.Request) string {
	t.Helper()
	var msgs []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(body(t, r)["messages"], &msgs); err != nil {
		t.Fatal(err)
	}
	if len(msgs) == 0 || msgs[0].Role != "system" {
		t.Fatalf("no system message first: %v", msgs)
	}
	return string(msgs[0].Content)
}

// Skills through the binary (spec 05 §9): a project skill is listed in
// the system prompt, /skill:<name> in print mode sends its rendered
// instructions, the Skill tool loads one for the model, and an unknown
// skill fails the run naming it.
func TestE2ESkills(t *testing.T) {
	c := newCLI(t)
	c.write(".kimi-code/skills/greet/SKILL.md", "---\nname: greet\ndescription: Greets someone warmly.\narguments: [who]\n---\nSay hello to $who with a smile.\n")
	srv := c.fake("openai", llmtest.Text("Hello, Bob!"),
		llmtest.ToolCall("call_1", "Skill", `{"skill":"greet","args":"Ann"}`), llmtest.Text("Hello, Ann!"))
	r := c.mustRun("-p", "/skill:greet Bob")
	if r.stdout != "Hello, Bob!\n" {
		t.Errorf("stdout = %q", r.stdout)
	}
	if sys := systemText(t, srv.Request(0)); !strings.Contains(sys, "greet") || !strings.Contains(sys, "Greets someone warmly.") {
		t.Errorf("the system prompt does not list the skill:\n%.3000s", sys)
	}
	msgs := string(body(t, srv.Request(0))["messages"])
	if !strings.Contains(msgs, "Say hello to Bob with a smile.") || !strings.Contains(msgs, `trigger=\"user-slash\"`) {
		t.Errorf("the /skill: prompt did not send the rendered skill:\n%s", msgs)
	}

	c.mustRun("-c", "-p", "greet Ann with the skill")
	if msgs := string(body(t, srv.Request(2))["messages"]); !strings.Contains(msgs, "Say hello to Ann with a smile.") {
		t.Errorf("the Skill tool did not load the skill:\n%s", msgs)
	}

	r = c.run("-p", "/skill:nope")
	if r.code != 1 || !strings.Contains(r.stderr, `unknown skill "nope"`) {
		t.Errorf("an unknown skill: %v", r)
	}
}

// Progressive disclosure (spec 05 §2.5–2.6, §4.17) through the binary:
// with [experimental] tool-select and a model that loads tools, the first
// request offers select_tools and announces the MCP tools without their
// schemas; the model loads one and calls it.
func TestE2ESelectToolsLoadsAnMCPTool(t *testing.T) {
	c := newCLI(t)
	everythingStdio(t, c)
	c.write("../kimigo/config.toml", "[experimental]\ntool-select = true\n")
	srv := c.fake("openai",
		llmtest.ToolCall("call_1", "select_tools", `{"names":["mcp__everything__echo"]}`),
		llmtest.ToolCall("call_2", "mcp__everything__echo", `{"message":"loaded late"}`),
		llmtest.Text("Echoed."))
	c.env["KIMI_MODEL_CAPABILITIES"] = "tool_use,dynamically_loaded_tools"
	r := c.mustRun("-p", "echo something", "--output-format", "stream-json")
	first := strings.Join(toolNames(t, srv.Request(0)), " ")
	if !strings.Contains(first, "select_tools") || strings.Contains(first, "mcp__everything__") {
		t.Errorf("first request tools: %s", first)
	}
	if msgs := string(body(t, srv.Request(0))["messages"]); !strings.Contains(msgs, "mcp__everything__echo") {
		t.Errorf("the first request does not announce the loadable MCP tools:\n%.3000s", msgs)
	}
	var toolOut []string
	for _, l := range jsonLines(t, r.stdout) {
		if l["role"] == "tool" {
			toolOut = append(toolOut, l["content"].(string))
		}
	}
	if len(toolOut) != 2 || !strings.Contains(toolOut[1], "loaded late") {
		t.Errorf("tool lines %q", toolOut)
	}
	t.Logf("first request with disclosure: %d bytes", len(srv.Request(0).Body))
}

// pidsWithArg finds the processes whose command line holds arg.
func pidsWithArg(arg string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(b), arg) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// Issue 21 acceptance: the server dies while kimigo waits for its call;
// the call ends as a tool error, the run goes on to the model's answer.
func TestE2EMCPServerKilledMidCall(t *testing.T) {
	c := newCLI(t)
	node, script := mcptest.NpmServer(t, mcptest.EverythingPackage)
	marker := fmt.Sprintf("--kimigo-e2e=%d", time.Now().UnixNano())
	mcpJSON(t, filepath.Join(c.home, "mcp.json"), map[string]any{
		"everything": map[string]any{"command": node, "args": []string{script, "stdio", marker}}})
	srv := c.fake("openai",
		llmtest.ToolCall("call_1", "mcp__everything__trigger-long-running-operation", `{"duration":30,"steps":30}`),
		llmtest.Text("The server died."))
	cmd := c.command(c.dir, "-p", "run the long operation", "--output-format", "stream-json")
	var out, errw lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &errw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.Now().Add(30 * time.Second)
	for len(srv.Requests()) < 1 || len(pidsWithArg(marker)) == 0 {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			<-done
			t.Fatalf("the call never started:\n%s%s", out.String(), errw.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond) // let the call reach the server: a kill before it fails the call the same way
	for _, pid := range pidsWithArg(marker) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("kimigo: %v\n%s%s", err, out.String(), errw.String())
		}
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("the run did not end after its server died:\n%s%s", out.String(), errw.String())
	}
	lines := jsonLines(t, out.String())
	var toolOut []string
	for _, l := range lines {
		if l["role"] == "tool" {
			toolOut = append(toolOut, l["content"].(string))
		}
	}
	if len(toolOut) != 1 || !strings.Contains(toolOut[0], `MCP server "everything" closed the connection`) {
		t.Errorf("tool lines %q", toolOut)
	}
	if last := lines[len(lines)-3]; last["content"] != "The server died." { // before the resume hint and the result

		t.Errorf("the answer after the failed call: %v", last)
	}
}

// server-everything over streamable HTTP, configured in mcp.json.
func TestE2EMCPEverythingOverStreamableHTTP(t *testing.T) {
	c := newCLI(t)
	node, script := mcptest.NpmServer(t, mcptest.EverythingPackage)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	server := exec.Command(node, script, "streamableHttp")
	server.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	server.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-server.Process.Pid, syscall.SIGKILL); _ = server.Wait() })
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	deadline := time.Now().Add(30 * time.Second)
	for {
		conn, err := net.DialTimeout("tcp", addr, 100*time.Millisecond)
		if err == nil {
			conn.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("server-everything never listened on %s", addr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	mcpJSON(t, filepath.Join(c.home, "mcp.json"), map[string]any{
		"web": map[string]any{"type": "http", "url": "http://" + addr + "/mcp"}})
	srv := c.fake("openai", llmtest.ToolCall("call_1", "mcp__web__echo", `{"message":"over the wire"}`), llmtest.Text("Echoed."))
	r := c.mustRun("-p", "echo over http", "--output-format", "stream-json")
	if !strings.Contains(r.stdout, "over the wire") {
		t.Errorf("stdout:\n%s", r.stdout)
	}
	if names := strings.Join(toolNames(t, srv.Request(0)), " "); !strings.Contains(names, "mcp__web__echo") {
		t.Errorf("tools: %s", names)
	}
}
