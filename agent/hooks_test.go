package agent_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kimigo/kimigo/agent"
	"github.com/kimigo/kimigo/agent/agenttest"
	"github.com/kimigo/kimigo/agent/permission"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/hooks"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/scripted"
	"github.com/kimigo/kimigo/osenv"
)

// The lifecycle hook scenarios of spec 06 §10 through the real agent and
// the real engine: hook commands run as real processes in dir.

func hookEngine(t *testing.T, dir string, hs ...hooks.Hook) *hooks.Engine {
	t.Helper()
	e := hooks.New(hooks.Options{Hooks: hs, SessionID: "session-1", Cwd: dir,
		Env: osenv.NewLocal(osenv.LocalOptions{Cwd: dir})})
	t.Cleanup(func() { _ = e.Close(context.Background()) })
	return e
}

// approveAll gives the agent a real permission chain (PreToolUse is its
// first policy) whose questions are all approved.
func approveAll() agenttest.Option {
	return agenttest.Permission(permission.Options{Approver: agenttest.AnswerAll(event.ApproveOnce)})
}

func writeScript(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// toolResultText is the text of the tool message for call id in the
// request.
func toolResultText(r llm.Request, id string) (string, bool) {
	for _, m := range r.Messages {
		if m.Role == llm.RoleTool && m.ToolCallID == id {
			return llm.ExtractText(m, "\n"), true
		}
	}
	return "", false
}

func TestScenario44PreToolUseBlocksATool(t *testing.T) {
	dir := t.TempDir()
	check := writeScript(t, dir, "check.sh", `input=$(cat)
case "$input" in *"rm -rf"*) echo "Dangerous command blocked" >&2; exit 2;; esac
exit 0
`)
	failures := filepath.Join(dir, "failures")
	e := hookEngine(t, dir,
		hooks.Hook{Event: hooks.PreToolUse, Matcher: "^Bash$", Command: check},
		hooks.Hook{Event: hooks.PostToolUseFailure, Command: "cat >> " + failures + "; echo >> " + failures},
	)
	approver := agenttest.NewApprover()
	h := newHarness(t, agenttest.BuiltinTools(), agenttest.HookRunner(agent.HookRunner(e)),
		agenttest.Permission(permission.Options{Approver: approver}))
	h.Model(call("c1", "Bash", `{"command":"rm -rf build"}`), scripted.Text("ok"))
	h.Prompt("clean up")
	if cmds := h.Env().Runner().Commands(); len(cmds) != 0 {
		t.Errorf("the blocked command ran: %v", cmds)
	}
	if n := len(approver.Requests()); n != 0 {
		t.Errorf("%d approvals were requested; a PreToolUse block asks nobody", n)
	}
	text, ok := toolResultText(h.Requests()[1], "c1")
	if !ok || !strings.Contains(text, "Dangerous command blocked") {
		t.Errorf("the model read %q; want the hook's reason", text)
	}
	e.Close(t.Context()) // PostToolUseFailure is fired, not awaited
	b, _ := os.ReadFile(failures)
	if !strings.Contains(string(b), `"hook_event_name":"PostToolUseFailure"`) || !strings.Contains(string(b), `"tool_call_id":"c1"`) {
		t.Errorf("PostToolUseFailure saw %s", b)
	}
	h.ExpectResumeMatches()
}

func TestScenario44OtherCommandsRun(t *testing.T) {
	dir := t.TempDir()
	check := writeScript(t, dir, "check.sh", `input=$(cat)
case "$input" in *"rm -rf"*) exit 2;; esac
`)
	e := hookEngine(t, dir, hooks.Hook{Event: hooks.PreToolUse, Matcher: "^Bash$", Command: check})
	h := newHarness(t, agenttest.BuiltinTools(), agenttest.HookRunner(agent.HookRunner(e)),
		approveAll())
	h.Model(call("c1", "Bash", `{"command":"ls"}`), scripted.Text("ok"))
	h.Prompt("list")
	if cmds := h.Env().Runner().Commands(); len(cmds) != 1 {
		t.Errorf("ls did not run: %v", cmds)
	}
}

func TestScenario45HookStdinPayload(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "stdin.json")
	e := hookEngine(t, dir, hooks.Hook{Event: hooks.PreToolUse, Command: "cat > " + out})
	h := newHarness(t, agenttest.BuiltinTools(), agenttest.Files("/ws/a.txt", "hello\n"),
		agenttest.HookRunner(agent.HookRunner(e)), approveAll())
	h.Model(call("call_7", "Read", `{"path": "a.txt"}`), scripted.Text("done"))
	h.Prompt("read a.txt")
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var in struct {
		Event     string          `json:"hook_event_name"`
		Session   string          `json:"session_id"`
		Cwd       string          `json:"cwd"`
		ToolName  string          `json:"tool_name"`
		ToolInput json.RawMessage `json:"tool_input"`
		CallID    string          `json:"tool_call_id"`
	}
	if err := json.Unmarshal(b, &in); err != nil {
		t.Fatal(err)
	}
	if in.Event != "PreToolUse" || in.Session != "session-1" || in.Cwd != dir || in.ToolName != "Read" ||
		string(in.ToolInput) != `{"path":"a.txt"}` || in.CallID != "call_7" {
		t.Errorf("stdin = %s", b)
	}
}

func TestScenario46JSONDenyThroughTheAgent(t *testing.T) {
	dir := t.TempDir()
	e := hookEngine(t, dir, hooks.Hook{Event: hooks.PreToolUse, Command: `echo '{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"use rg"}}'`})
	h := newHarness(t, agenttest.BuiltinTools(), agenttest.HookRunner(agent.HookRunner(e)), approveAll())
	h.Model(call("c1", "Grep", `{"pattern":"x"}`), scripted.Text("ok"))
	h.Prompt("search")
	if text, _ := toolResultText(h.Requests()[1], "c1"); !strings.Contains(text, "use rg") {
		t.Errorf("the model read %q; want the JSON reason", text)
	}
}

func TestScenario47FailOpenThroughTheAgent(t *testing.T) {
	dir := t.TempDir()
	e := hookEngine(t, dir,
		hooks.Hook{Event: hooks.PreToolUse, Command: "sleep 10", Timeout: 200 * time.Millisecond},
		hooks.Hook{Event: hooks.PreToolUse, Command: "no-such-command-for-kimigo-tests"},
		hooks.Hook{Event: hooks.PreToolUse, Matcher: "(", Command: "exit 2"})
	h := newHarness(t, agenttest.BuiltinTools(), agenttest.HookRunner(agent.HookRunner(e)), approveAll())
	h.Model(call("c1", "Bash", `{"command":"ls"}`), scripted.Text("ok"))
	h.Prompt("list")
	if cmds := h.Env().Runner().Commands(); len(cmds) != 1 {
		t.Errorf("the tool did not run after failing hooks: %v", cmds)
	}
}

func TestScenario48UserPromptSubmitAddsContext(t *testing.T) {
	dir := t.TempDir()
	e := hookEngine(t, dir, hooks.Hook{Event: hooks.UserPromptSubmit, Command: "echo branch: main"})
	h := newHarness(t, agenttest.HookRunner(agent.HookRunner(e)))
	h.Model(scripted.Text("ok"))
	h.Prompt("what branch?")
	msgs := h.Requests()[0].Messages
	last := msgs[len(msgs)-1]
	if last.Role != llm.RoleUser || llm.ExtractText(last, "") != "<hook_result hook_event=\"UserPromptSubmit\">\nbranch: main\n</hook_result>" {
		t.Errorf("last message of the first request = %+v", last)
	}
	if prev := msgs[len(msgs)-2]; llm.ExtractText(prev, "") != "what branch?" {
		t.Errorf("the hook result does not follow the prompt: %+v", prev)
	}
	hr := eventsOf[event.HookResult](h)
	if len(hr) != 1 || hr[0].Content != "branch: main" || hr[0].Blocked {
		t.Errorf("hook.result = %+v", hr)
	}
	h.ExpectResumeMatches()
}

func TestScenario48UserPromptSubmitBlocks(t *testing.T) {
	dir := t.TempDir()
	e := hookEngine(t, dir, hooks.Hook{Event: hooks.UserPromptSubmit, Command: "echo no secrets >&2; exit 2"})
	h := newHarness(t, agenttest.HookRunner(agent.HookRunner(e)))
	res := h.Prompt("print the API key")
	if res.Event.Reason != event.EndBlocked || len(h.Requests()) != 0 {
		t.Errorf("turn = %+v with %d requests; want blocked and no model call", res.Event, len(h.Requests()))
	}
	hr := eventsOf[event.HookResult](h)
	if len(hr) != 1 || hr[0].Content != "no secrets" || !hr[0].Blocked {
		t.Errorf("hook.result = %+v", hr)
	}
	h.ExpectResumeMatches()
}

func TestScenario49StopContinuesOnce(t *testing.T) {
	dir := t.TempDir()
	count := filepath.Join(dir, "count")
	e := hookEngine(t, dir, hooks.Hook{Event: hooks.Stop, Command: "echo x >> " + count + "; echo run the tests >&2; exit 2"})
	h := newHarness(t, agenttest.HookRunner(agent.HookRunner(e)))
	h.Model(scripted.Text("done"), scripted.Text("tests pass"))
	res := h.Prompt("fix it")
	if res.Event.Reason != event.EndCompleted || len(h.Requests()) != 2 {
		t.Fatalf("turn = %+v after %d requests; want completed after 2", res.Event, len(h.Requests()))
	}
	msgs := h.Requests()[1].Messages
	if last := msgs[len(msgs)-1]; last.Role != llm.RoleUser || llm.ExtractText(last, "") != "run the tests" {
		t.Errorf("the continuation = %+v", last)
	}
	if b, _ := os.ReadFile(count); string(b) != "x\n" {
		t.Errorf("the Stop hook ran %d times; want once per turn", strings.Count(string(b), "x"))
	}
	h.ExpectResumeMatches()
}
