package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent/agenttest"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/llm/openai"
	"github.com/kimigo/kimigo/llm/scripted"
	"github.com/kimigo/kimigo/mcp"
	"github.com/kimigo/kimigo/mcp/mcptest"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/tools"
)

// The MCP scenarios of spec 06 §10 and select_tools (spec 05 §12) through
// the real agent: a real MCP manager with servers run as child processes,
// and a tool manager that follows it, as the session wires them.

// startMCP connects servers and waits for them.
func startMCP(t *testing.T, servers ...mcp.Server) *mcp.Manager {
	t.Helper()
	m := mcp.New(mcp.Options{})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_ = m.Close(ctx)
	})
	m.Start(servers)
	if err := m.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	return m
}

// followingMCP builds the agent's tool manager from o, following m.
func followingMCP(t *testing.T, m *mcp.Manager, o tools.Options) agenttest.Option {
	return agenttest.ToolManager(func(env osenv.Env, c tools.StoreCommitter) *tools.Manager {
		o.Base.Env, o.Committer = env, c
		tm := tools.New(o)
		t.Cleanup(tm.FollowMCP(m, func(err error) { t.Errorf("collision: %v", err) }))
		return tm
	})
}

func toolNamesOf(r llm.Request) []string {
	var out []string
	for _, d := range r.Tools {
		out = append(out, d.Name)
	}
	return out
}

// mcpNamesOf are the MCP tools a request offers.
func mcpNamesOf(r llm.Request) []string {
	var out []string
	for _, n := range toolNamesOf(r) {
		if strings.HasPrefix(n, "mcp__") {
			out = append(out, n)
		}
	}
	return out
}

func TestScenario52ModelSeesAndCallsMCPTools(t *testing.T) {
	schema := `{"type":"object","properties":{"key":{"type":"string"}},"required":["key"],"additionalProperties":false}`
	m := startMCP(t, mcptest.Stdio(t, "my server", mcptest.Spec{Tools: []mcptest.Tool{
		{Name: "get.data", Description: "Get data", Schema: json.RawMessage(schema), Text: "data"},
		{Name: "echo", Description: "Echo", Echo: true},
	}}))
	h := newHarness(t, followingMCP(t, m, tools.Options{}))
	h.Model(call("c1", "mcp__my_server__echo", `{"text":"from the server"}`), scripted.Text("done"))
	h.Prompt("say it")
	first := h.Requests()[0]
	if d := cmp.Diff([]string{"mcp__my_server__echo", "mcp__my_server__get_data"}, mcpNamesOf(first)); d != "" {
		t.Errorf("tools offered (-want +got):\n%s", d)
	}
	for _, d := range first.Tools {
		if d.Name != "mcp__my_server__get_data" {
			continue
		}
		var got, want any
		_ = json.Unmarshal(d.Parameters, &got)
		_ = json.Unmarshal([]byte(schema), &want)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("the schema was changed (-server +offered):\n%s", diff)
		}
	}
	if text, _ := toolResultText(h.Requests()[1], "c1"); text != "from the server" {
		t.Errorf("tool output = %q", text)
	}
	h.ExpectResumeMatches()
}

func TestScenario53ServerCrashMidCallKeepsTheSession(t *testing.T) {
	m := startMCP(t, mcptest.Stdio(t, "crash", mcptest.Spec{Tools: []mcptest.Tool{
		{Name: "slow", Crash: true, CrashStderr: "boom"}}}))
	h := newHarness(t, followingMCP(t, m, tools.Options{}))
	h.Model(call("c1", "mcp__crash__slow", `{}`), call("c2", "mcp__crash__slow", `{}`), scripted.Text("gave up"))
	res := h.Prompt("try it")
	if res.Event.Reason != "completed" {
		t.Fatalf("turn = %+v", res.Event)
	}
	reqs := h.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests; the model's next steps must happen", len(reqs))
	}
	if text, _ := toolResultText(reqs[1], "c1"); !strings.Contains(text, `Tool "mcp__crash__slow" failed:`) {
		t.Errorf("first result = %q", text)
	}
	if names := mcpNamesOf(reqs[1]); len(names) != 0 {
		t.Errorf("the next request still offers %v", names)
	}
	if text, _ := toolResultText(reqs[2], "c2"); !strings.Contains(text, `Tool "mcp__crash__slow" not found`) {
		t.Errorf("a later call = %q", text)
	}
	in, _ := m.Server("crash")
	if in.Status != mcp.StatusFailed || !strings.Contains(in.Error, `MCP server "crash" closed unexpectedly`) ||
		!strings.Contains(in.Error, "stderr: boom") {
		t.Errorf("server = %s %q", in.Status, in.Error)
	}
}

// disclosure turns progressive disclosure on: the model loads tools
// dynamically and the experiment is on.
var disclosureCap = &llm.Capability{ToolUse: true, DynamicallyLoadedTools: true, MaxContextTokens: 256_000}

func TestScenario86SelectTools(t *testing.T) {
	m := startMCP(t, mcptest.Stdio(t, "gh", mcptest.Spec{Tools: []mcptest.Tool{
		{Name: "list", Text: "issues: 3"}, {Name: "get", Text: "issue 1"}}}))
	h := runtimeHarness(t, withReminders, agenttest.Capability(disclosureCap),
		followingMCP(t, m, tools.Options{Capability: *disclosureCap, ToolSelect: true}))
	h.Model(
		call("c1", "select_tools", `{"names":["mcp__gh__list","nope"]}`),
		call("c2", "mcp__gh__list", `{}`),
		call("c3", "mcp__gh__get", `{}`),
		call("c4", "select_tools", `{"names":["mcp__gh__list"]}`),
		call("c5", "select_tools", `{"names":["nope"]}`),
		scripted.Text("done"))
	h.Prompt("what issues are open?")
	reqs := h.Requests()
	names := toolNamesOf(reqs[0])
	if !slicesContain(names, "select_tools") || slicesContain(names, "mcp__gh__list") {
		t.Errorf("first request offers %v; want select_tools and no MCP schema", names)
	}
	if txt := requestText(reqs[0]); !strings.Contains(txt, "<tools_added>\nmcp__gh__get\nmcp__gh__list\n</tools_added>") {
		t.Errorf("the first request announces no tools:\n%s", txt)
	}
	want := map[string]string{
		"c1": "Loaded: mcp__gh__list\nUnknown tool: nope. Pick from the latest announced tools list.",
		"c2": "issues: 3",
		"c3": `Tool "mcp__gh__get" is available but not loaded. Call select_tools with ["mcp__gh__get"] first, then call the tool.`,
		"c4": "Already available: mcp__gh__list",
		"c5": "Unknown tool: nope. Pick from the latest announced tools list.",
	}
	for i, id := range []string{"c1", "c2", "c3", "c4", "c5"} {
		if text, _ := toolResultText(reqs[i+1], id); !strings.Contains(text, want[id]) {
			t.Errorf("%s = %q; want %q", id, text, want[id])
		}
	}
	var schema []string
	for _, msg := range reqs[1].Messages {
		for _, d := range msg.Tools {
			schema = append(schema, d.Name)
		}
	}
	if d := cmp.Diff([]string{"mcp__gh__list"}, schema); d != "" {
		t.Errorf("schema messages after select_tools (-want +got):\n%s", d)
	}
	if slicesContain(toolNamesOf(reqs[1]), "mcp__gh__list") {
		t.Error("a loaded MCP tool was offered at the top level; its schema travels in history")
	}
	expectStablePrefix(t, reqs)
	h.ExpectResumeMatches()
}

// expectStablePrefix checks ERRATA 21 within a turn: every request's
// tools and messages are byte for byte the start of the next one's, so
// loading tools never invalidates the provider's prompt cache.
func expectStablePrefix(t *testing.T, reqs []llm.Request) {
	t.Helper()
	for i := 1; i < len(reqs); i++ {
		prevTools, _ := json.Marshal(reqs[i-1].Tools)
		tools, _ := json.Marshal(reqs[i].Tools)
		if string(prevTools) != string(tools) {
			t.Errorf("request %d changed the tool list", i)
		}
		prev, _ := json.Marshal(reqs[i-1].Messages)
		next, _ := json.Marshal(reqs[i].Messages[:min(len(reqs[i].Messages), len(reqs[i-1].Messages))])
		if string(prev) != string(next) {
			t.Errorf("request %d does not start with request %d's messages", i, i-1)
		}
	}
}

// TestMCP200ToolsFirstRequestSize measures the first request of a session
// with 200 MCP tools on the real Chat Completions wire: with progressive
// disclosure it stays under 40 KB (issue 21); without, every schema goes
// out.
func TestMCP200ToolsFirstRequestSize(t *testing.T) {
	var ts []mcptest.Tool
	for i := range 200 {
		ts = append(ts, mcptest.Tool{Name: fmt.Sprintf("operation_%03d", i),
			Description: fmt.Sprintf("Runs operation %d against the team's project tracker: looks up the item by its key, applies the change and returns the updated item as JSON.", i),
			Schema: json.RawMessage(`{"type":"object","properties":{"key":{"type":"string","description":"Item key, such as PROJ-123."},` +
				`"fields":{"type":"object","description":"Fields to change.","additionalProperties":{"type":"string"}},` +
				`"notify":{"type":"boolean","description":"Whether watchers are notified."}},"required":["key"],"additionalProperties":false}`),
			Text: "ok"})
	}
	m := startMCP(t, mcptest.Stdio(t, "tracker", mcptest.Spec{Tools: ts}))
	size := func(disclosure bool) int {
		srv := llmtest.FakeChatCompletions(t, llmtest.Text("ok"))
		p := openai.New(openai.Options{BaseURL: llmtest.ChatBaseURL(srv), APIKey: "test-key", Model: "kimi-test"})
		c := llm.Capability{ToolUse: true, DynamicallyLoadedTools: disclosure, MaxContextTokens: 256_000}
		h := runtimeHarness(t, withReminders, agenttest.Provider(p), agenttest.Capability(&c),
			followingMCP(t, m, tools.Options{Capability: c, ToolSelect: disclosure}))
		h.Prompt("what changed this week?")
		return len(srv.Request(0).Body)
	}
	with, without := size(true), size(false)
	t.Logf("first request with 200 MCP tools: %d bytes with progressive disclosure, %d without", with, without)
	if with >= 40_000 {
		t.Errorf("with progressive disclosure the first request is %d bytes; want under 40 KB", with)
	}
	if without <= with {
		t.Errorf("disclosure saved nothing: %d bytes without, %d with", without, with)
	}
}

// TestSelectToolsOnTheKimiWire runs select_tools against the fake Kimi
// Chat Completions server, which refuses what the service refuses: the
// schema message rides in history and the loaded tool is callable.
func TestSelectToolsOnTheKimiWire(t *testing.T) {
	m := startMCP(t, mcptest.Stdio(t, "gh", mcptest.Spec{Tools: []mcptest.Tool{{Name: "list", Text: "issues: 3"}}}))
	srv := llmtest.FakeChatCompletions(t,
		llmtest.ToolCall("c1", "select_tools", `{"names":["mcp__gh__list"]}`),
		llmtest.ToolCall("c2", "mcp__gh__list", `{}`),
		llmtest.Text("3 issues"))
	p := openai.New(openai.Options{BaseURL: llmtest.ChatBaseURL(srv), APIKey: "test-key", Model: "kimi-test"})
	h := runtimeHarness(t, withReminders, agenttest.Provider(p), agenttest.Capability(disclosureCap),
		followingMCP(t, m, tools.Options{Capability: *disclosureCap, ToolSelect: true}))
	if res := h.Prompt("issues?"); res.Event.Reason != "completed" {
		t.Fatalf("turn = %+v", res.Event)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Fatalf("%d requests", n)
	}
	body := string(srv.Request(2).Body)
	if !strings.Contains(body, `"name":"mcp__gh__list"`) || !strings.Contains(body, "issues: 3") {
		t.Errorf("the last request lacks the loaded schema or the tool's output:\n%s", body)
	}
}

// TestToolsDiffAnnouncesRemovedToolsAtTheNextStep: a server that dies
// mid-turn has its tools announced as removed before the very next step,
// and a call to one of them says the server is disconnected.
func TestToolsDiffAnnouncesRemovedToolsAtTheNextStep(t *testing.T) {
	m := startMCP(t, mcptest.Stdio(t, "crash", mcptest.Spec{Tools: []mcptest.Tool{
		{Name: "slow", Crash: true, CrashStderr: "boom"}, {Name: "other", Text: "x"}}}))
	h := runtimeHarness(t, withReminders, agenttest.Capability(disclosureCap),
		followingMCP(t, m, tools.Options{Capability: *disclosureCap, ToolSelect: true}))
	h.Model(call("c1", "select_tools", `{"names":["mcp__crash__slow","mcp__crash__other"]}`),
		call("c2", "mcp__crash__slow", `{}`), call("c3", "mcp__crash__other", `{}`), scripted.Text("gave up"))
	h.Prompt("try")
	reqs := h.Requests()
	if txt := requestText(reqs[2]); !strings.Contains(txt, "<tools_removed>\nmcp__crash__other\nmcp__crash__slow\n</tools_removed>") {
		t.Errorf("the step after the crash announces no removal:\n%s", txt)
	}
	if text, _ := toolResultText(reqs[3], "c3"); !strings.Contains(text, "disconnected") {
		t.Errorf("a call to a loaded tool of the dead server = %q", text)
	}
	h.ExpectResumeMatches()
}
