package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/llm/scripted"
)

// forEachProvider runs f once per provider type, in parallel.
func forEachProvider(t *testing.T, f func(t *testing.T, kind string)) {
	for _, kind := range providerKinds() {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			f(t, kind)
		})
	}
}

func TestE2EText(t *testing.T) {
	forEachProvider(t, func(t *testing.T, kind string) {
		c := newCLI(t)
		srv := c.fake(kind, llmtest.Text("Hello from the fake."))
		r := c.mustRun("-p", "hi")
		if r.stdout != "Hello from the fake.\n" {
			t.Errorf("stdout = %q", r.stdout)
		}
		resumeHint(t, r.stderr)
		if n := len(srv.Requests()); n != 1 {
			t.Errorf("%d requests; want 1", n)
		}
		// The request for a one-word prompt, system prompt and default
		// tools included, stays small. It was under 30 KB before the plan,
		// goal, task and cron tools and the skills listing joined it (about
		// 35 KB with them), the Agent tool with its list of agent types
		// adds about 3.5 KB and AgentSwarm about 1.7 KB.
		size := len(srv.Request(0).Body)
		t.Logf("%s: the one-word request is %d bytes", kind, size)
		if size >= 41_000 {
			t.Errorf("one-word request is %d bytes; want under 41 KB", size)
		}
	})
}

func TestE2EBashCreatesFile(t *testing.T) {
	forEachProvider(t, func(t *testing.T, kind string) {
		c := newCLI(t)
		c.fake(kind, llmtest.ToolCall("call_1", "Bash", `{"command":"echo made > made.txt"}`), llmtest.Text("Created."))
		r := c.mustRun("-p", "create made.txt")
		if r.stdout != "Created.\n" {
			t.Errorf("stdout = %q", r.stdout)
		}
		b, err := os.ReadFile(filepath.Join(c.dir, "made.txt"))
		if err != nil || string(b) != "made\n" {
			t.Errorf("made.txt = %q, %v; want the Bash command's output", b, err)
		}
	})
}

func TestE2ETwentyToolCalls(t *testing.T) {
	forEachProvider(t, func(t *testing.T, kind string) {
		c := newCLI(t)
		var replies []llmtest.Reply
		for i := 1; i <= 20; i++ {
			replies = append(replies, llmtest.ToolCall(fmt.Sprintf("call_%d", i), "Bash",
				fmt.Sprintf(`{"command":"echo %d >> count.txt"}`, i)))
		}
		srv := c.fake(kind, append(replies, llmtest.Text("Counted."))...)
		c.mustRun("-p", "count to twenty")
		b, _ := os.ReadFile(filepath.Join(c.dir, "count.txt"))
		if lines := strings.Fields(string(b)); len(lines) != 20 || lines[19] != "20" {
			t.Errorf("count.txt = %q; want 1…20", b)
		}
		if n := len(srv.Requests()); n != 21 {
			t.Errorf("%d requests; want 21", n)
		}
		for i, req := range srv.Requests() {
			if req.Rejected != 0 {
				t.Errorf("request %d rejected: %d %s", i, req.Rejected, req.RejectReason)
			}
		}
	})
}

// The second run's first request carries the first run's conversation
// exactly: the same system prompt and tools, and the first request's
// messages as its prefix, followed by the answer and the new prompt.
func TestE2EContinue(t *testing.T) {
	forEachProvider(t, func(t *testing.T, kind string) {
		c := newCLI(t)
		srv := c.fake(kind, llmtest.Text("one"), llmtest.Text("two"))
		first := resumeHint(t, c.mustRun("-p", "first").stderr)
		second := resumeHint(t, c.mustRun("-c", "-p", "second").stderr)
		if first != second {
			t.Fatalf("-c opened session %s; want %s", second, first)
		}
		req1, req2 := body(t, srv.Request(0)), body(t, srv.Request(1))
		for _, key := range []string{"system", "tools", "model"} {
			if !bytes.Equal(req1[key], req2[key]) {
				t.Errorf("%s differs between the runs:\n%s\n%s", key, req1[key], req2[key])
			}
		}
		var m1, m2 []json.RawMessage
		json.Unmarshal(req1["messages"], &m1)
		json.Unmarshal(req2["messages"], &m2)
		if len(m2) != len(m1)+2 {
			t.Fatalf("second request has %d messages; want %d + the answer and the new prompt", len(m2), len(m1))
		}
		for i := range m1 {
			if !bytes.Equal(withoutCacheMarks(t, m1[i]), withoutCacheMarks(t, m2[i])) {
				t.Errorf("message %d differs:\n%s\n%s", i, m1[i], m2[i])
			}
		}
		if !strings.Contains(string(m2[len(m1)]), `"one"`) || !strings.Contains(string(m2[len(m1)+1]), `"second"`) {
			t.Errorf("tail = %s, %s; want the answer one, then the prompt second", m2[len(m1)], m2[len(m1)+1])
		}
	})
}

// Spec 06 §10 scenario 12, for every provider type: the call's arguments
// stream in three fragments, and stdout holds exactly five JSON lines.
func TestScenario12StreamJSONToolTurn(t *testing.T) {
	forEachProvider(t, func(t *testing.T, kind string) {
		c := newCLI(t)
		c.write("a.txt", "hello\n")
		step1 := scripted.Response{Parts: append(scripted.Text("Let me read it.").Parts, fragmentedCall("call_1", "Read",
			`{"path":`, `"a.t`, `xt"}`)...)}
		c.fake(kind, llmtest.Reply{Response: step1}, llmtest.Think("private", "Done."))
		r := c.mustRun("-p", "read a.txt", "--output-format", "stream-json")
		lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
		if len(lines) != 6 {
			t.Fatalf("%d stdout lines; want 6:\n%s", len(lines), r.stdout)
		}
		var hint struct {
			SessionID string `json:"session_id"`
		}
		json.Unmarshal([]byte(lines[4]), &hint)
		want := []string{
			`{"role":"meta","type":"system.version","version":"` + versionString() + `"}`,
			`{"role":"assistant","content":"Let me read it.","tool_calls":[{"type":"function","id":"call_1",` +
				`"function":{"name":"Read","arguments":"{\"path\":\"a.txt\"}"}}]}`,
			"", // the tool line, checked below
			`{"role":"assistant","content":"Done."}`,
			`{"role":"meta","type":"session.resume_hint","session_id":"` + hint.SessionID + `","command":"kimigo -r ` +
				hint.SessionID + ` -p \"…\"","content":"To resume this session: kimigo -r ` + hint.SessionID + ` -p \"…\""}`,
		}
		for i, w := range want {
			if i != 2 && lines[i] != w {
				t.Errorf("line %d:\n got %s\nwant %s", i+1, lines[i], w)
			}
		}
		var tool struct {
			Role, ToolCallID, Content string
		}
		if err := json.Unmarshal([]byte(lines[2]), &map[string]any{}); err != nil {
			t.Fatalf("line 3 is not JSON: %s", lines[2])
		}
		json.Unmarshal([]byte(strings.ReplaceAll(lines[2], "tool_call_id", "toolcallid")), &tool)
		if tool.Role != "tool" || tool.ToolCallID != "call_1" || !strings.Contains(tool.Content, "hello") {
			t.Errorf("line 3 = %s; want call_1's result with the file text", lines[2])
		}
		if strings.Contains(r.stdout, "private") || strings.Contains(r.stderr, "private") {
			t.Error("thinking was written in stream-json mode")
		}
		if !strings.HasPrefix(hint.SessionID, "session_") {
			t.Errorf("resume hint line = %s", lines[4])
		}
		var res map[string]any
		json.Unmarshal([]byte(lines[5]), &res)
		if res["type"] != "result" || res["subtype"] != "success" || res["result"] != "Done." || res["num_turns"] != 2.0 ||
			res["session_id"] != hint.SessionID {
			t.Errorf("last line = %s; want the success result", lines[5])
		}
	})
}

// SIGINT during the model's answer ends the run with 130 once the session
// is flushed; -c then continues that session with the interrupted prompt
// in its history.
func TestE2ESigintResumes(t *testing.T) {
	forEachProvider(t, func(t *testing.T, kind string) {
		c := newCLI(t)
		slow := llmtest.Text("too late").WithFault(llmtest.Fault{FirstByteDelay: time.Minute})
		srv := c.fake(kind, slow, llmtest.Text("resumed"))
		r := c.interrupt(syscall.SIGINT, func() bool { return len(srv.Requests()) == 1 }, "-p", "slow question")
		if r.code != 130 {
			t.Fatalf("exit code %d; want 130\n%v", r.code, r)
		}
		// The hint is printed and runs as printed, the next prompt in
		// place of the ellipsis (issue 15 item 5).
		hint := resumeCommandIn(t, r.stderr)
		r = c.mustRun(hintArgs(t, hint, "go on")...)
		if r.stdout != "resumed\n" {
			t.Errorf("stdout = %q", r.stdout)
		}
		msgs := string(body(t, srv.Request(1))["messages"])
		if !strings.Contains(msgs, "slow question") || !strings.Contains(msgs, "go on") {
			t.Errorf("the resumed request lacks the interrupted prompt or the new one:\n%s", msgs)
		}
	})
}

// body decodes a request body into its top-level fields.
func body(t *testing.T, r *llmtest.Request) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("request body: %v", err)
	}
	return m
}

// withoutCacheMarks drops Anthropic's cache_control marks from a message:
// the cache breakpoint moves to the newest message with every request, so
// it is the one part of an earlier message that changes.
func withoutCacheMarks(t *testing.T, raw json.RawMessage) []byte {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	var strip func(any)
	strip = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			delete(x, "cache_control")
			for _, e := range x {
				strip(e)
			}
		case []any:
			for _, e := range x {
				strip(e)
			}
		}
	}
	strip(v)
	b, _ := json.Marshal(v) // decoded JSON always encodes
	return b
}

// fragmentedCall streams one tool call with its arguments in the given
// fragments.
func fragmentedCall(id, name string, fragments ...string) []llm.StreamPart {
	parts := []llm.StreamPart{{Kind: llm.KindToolCall, Index: 0, Indexed: true, ToolCall: llm.ToolCall{ID: id, Name: name}}}
	for _, f := range fragments {
		parts = append(parts, llm.StreamPart{Kind: llm.KindToolCallPart, Index: 0, Indexed: true, ArgumentsPart: f})
	}
	return parts
}

// resumeCommandIn is the command of a text run's resume hint.
func resumeCommandIn(t *testing.T, stderr string) string {
	t.Helper()
	for line := range strings.SplitSeq(stderr, "\n") {
		if cmd, ok := strings.CutPrefix(line, "To resume this session: "); ok {
			return cmd
		}
	}
	t.Fatalf("no resume hint in stderr:\n%s", stderr)
	return ""
}

// hintArgs are the arguments of a printed kimigo command, as a shell
// would split it, with prompt in place of the "…" placeholder.
func hintArgs(t *testing.T, command, prompt string) []string {
	t.Helper()
	fields := strings.Fields(command)
	if len(fields) < 2 || fields[0] != "kimigo" {
		t.Fatalf("hint %q is not a kimigo command", command)
	}
	args := fields[1:]
	for i, a := range args {
		if a == `"…"` {
			args[i] = prompt
		}
	}
	return args
}
