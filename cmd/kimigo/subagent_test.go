package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kimigo/kimigo/llm/llmtest"
)

// chatTurn is a Chat Completions request as the subagent tests route it:
// the first user message says who asks (the main agent's prompt, or the
// task a child was given), the tool results how far it got.
type chatTurn struct {
	first string
	users []string
	tools int
}

func decodeChatTurn(t *testing.T, r *llmtest.Request) chatTurn {
	var b struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(r.Body, &b); err != nil {
		t.Errorf("request body: %v", err)
	}
	var c chatTurn
	for _, m := range b.Messages {
		switch m.Role {
		case "user":
			var s string
			if json.Unmarshal(m.Content, &s) != nil {
				var parts []struct {
					Text string `json:"text"`
				}
				_ = json.Unmarshal(m.Content, &parts)
				for _, p := range parts {
					s += p.Text
				}
			}
			if c.first == "" {
				c.first = s
			}
			c.users = append(c.users, s)
		case "tool":
			c.tools++
		}
	}
	return c
}

func argsJSON(t *testing.T, v map[string]any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Issue 19 acceptance: a foreground subagent reads a file and hands back
// what it found; the parent answers with it, in one print run.
func TestE2EForegroundSubagentReadsFilesAndHandsBack(t *testing.T) {
	c := newCLI(t)
	c.write("notes.txt", "the launch code is 4711\n")
	srv := c.fake("openai")
	handoff := "notes.txt says the launch code is 4711. " + strings.Repeat("Checked every line. ", 10)
	var mu sync.Mutex
	var childCalls int
	srv.Respond(func(r *llmtest.Request) llmtest.Reply {
		turn := decodeChatTurn(t, r)
		switch {
		case turn.first == "what is the launch code?" && turn.tools == 0:
			return llmtest.ToolCall("call_a", "Agent", argsJSON(t, map[string]any{
				"prompt": "Read notes.txt and report the launch code.", "description": "Read the notes", "subagent_type": "explore"}))
		case turn.first == "what is the launch code?":
			return llmtest.Text("The launch code is 4711.")
		case strings.Contains(turn.first, "Read notes.txt and report the launch code."):
			mu.Lock()
			childCalls++
			mu.Unlock()
			if turn.tools == 0 {
				return llmtest.ToolCall("call_r", "Read", argsJSON(t, map[string]any{"path": filepath.Join(c.dir, "notes.txt")}))
			}
			if !strings.Contains(string(r.Body), "4711") {
				t.Errorf("the child's request lacks the file's content:\n%s", r.Body)
			}
			return llmtest.Text(handoff)
		}
		t.Errorf("unexpected request: %+v", turn)
		return llmtest.Text("?")
	})
	r := c.mustRun("-p", "what is the launch code?")
	if r.stdout != "The launch code is 4711.\n" {
		t.Errorf("stdout %q\nstderr:\n%s", r.stdout, r.stderr)
	}
	if childCalls != 2 {
		t.Errorf("the child sent %d requests, want 2", childCalls)
	}
	last := string(srv.Request(len(srv.Requests()) - 1).Body)
	if !strings.Contains(last, `agent_id: agent-0\nactual_subagent_type: explore\nstatus: completed\n\n[summary]\n`+strings.TrimSpace(handoff)) {
		t.Errorf("the parent's last request lacks the handoff:\n%s", last)
	}
}

// Issue 19 acceptance: a background subagent's completion arrives as a
// notification the parent answers in the same print run.
func TestE2EBackgroundSubagentAnsweredInTheSameRun(t *testing.T) {
	c := newCLI(t)
	srv := c.fake("openai")
	handoff := "The queue is empty. " + strings.Repeat("Every consumer is idle. ", 10)
	srv.Respond(func(r *llmtest.Request) llmtest.Reply {
		turn := decodeChatTurn(t, r)
		notified := strings.Contains(strings.Join(turn.users, "\n"), "<notification")
		switch {
		case turn.first == "check the queue" && turn.tools == 0:
			return llmtest.ToolCall("call_a", "Agent", argsJSON(t, map[string]any{
				"prompt": "Check the queue.", "description": "Check the queue", "run_in_background": true}))
		case turn.first == "check the queue" && notified:
			return llmtest.Text("The subagent reports: the queue is empty.")
		case turn.first == "check the queue":
			return llmtest.Text("A subagent is checking the queue.")
		case strings.Contains(turn.first, "Check the queue."):
			return llmtest.Text(handoff).WithFault(llmtest.Fault{FirstByteDelay: 300 * time.Millisecond})
		}
		t.Errorf("unexpected request: %+v", turn)
		return llmtest.Text("?")
	})
	r := c.mustRun("-p", "check the queue")
	if r.stdout != "The subagent reports: the queue is empty.\n" {
		t.Errorf("stdout %q\nstderr:\n%s", r.stdout, r.stderr)
	}
	last := string(srv.Request(len(srv.Requests()) - 1).Body)
	for _, want := range []string{`type=\"task.completed\"`, `agent_id=\"agent-0\"`, "/agents/main/tasks/agent-"} {
		if !strings.Contains(last, want) {
			t.Errorf("the parent's last request lacks %s:\n%s", want, last)
		}
	}
	// The notification points at the task's log, which holds the handoff.
	logs, _ := filepath.Glob(filepath.Join(c.home, "sessions", "*", "*", "agents", "main", "tasks", "agent-*", "output.log"))
	if len(logs) != 1 {
		t.Fatalf("agent task logs: %v", logs)
	}
	if b, err := os.ReadFile(logs[0]); err != nil || string(b) != strings.TrimSpace(handoff) {
		t.Errorf("the task's log: %q %v", b, err)
	}
}

// Issue 19 item 6 through the binary: kimigo killed while a foreground
// subagent waits for the model; -c closes the parent's Agent call as
// interrupted with its outcome unknown, and the child, resumed by its
// agent id, goes on from its own history.
func TestE2EKilledMidSubagentThenContinue(t *testing.T) {
	c := newCLI(t)
	srv := c.fake("openai")
	held := llmtest.NewGate()
	defer held.Release()
	srv.Respond(func(r *llmtest.Request) llmtest.Reply {
		turn := decodeChatTurn(t, r)
		resumed := slices.Contains(turn.users, "continue")
		switch {
		case turn.first == "start the survey" && turn.tools == 0:
			return llmtest.ToolCall("call_a", "Agent", argsJSON(t, map[string]any{"prompt": "Survey the modules.", "description": "Survey"}))
		case turn.first == "start the survey" && turn.tools == 1 && strings.Contains(string(r.Body), "outcome is unknown"):
			return llmtest.ToolCall("call_b", "Agent", argsJSON(t, map[string]any{"resume": "agent-0", "prompt": "continue", "description": "Survey again"}))
		case turn.first == "start the survey":
			return llmtest.Text("The survey is done.")
		case turn.first == "Survey the modules." && resumed:
			return llmtest.Text("Every module surveyed. " + strings.Repeat("All of them have tests. ", 10))
		case turn.first == "Survey the modules.":
			return llmtest.Reply{Fault: llmtest.Fault{Hold: held}}
		}
		t.Errorf("unexpected request: %+v", turn)
		return llmtest.Text("?")
	})
	r := c.interrupt(syscall.SIGKILL, held.IsReached, "-p", "start the survey")
	if r.code == 0 {
		t.Fatalf("kimigo was not killed: %v", r)
	}
	r = c.mustRun("-c", "-p", "what happened?")
	if r.stdout != "The survey is done.\n" {
		t.Errorf("stdout %q\nstderr:\n%s", r.stdout, r.stderr)
	}
	var childAgain bool
	for _, req := range srv.Requests() {
		turn := decodeChatTurn(t, req)
		if turn.first == "Survey the modules." && slices.Contains(turn.users, "continue") {
			childAgain = true
		}
	}
	if !childAgain {
		for i, req := range srv.Requests() {
			t.Logf("request %d: %+v", i, decodeChatTurn(t, req))
		}
		t.Error("the child was not resumed with its own history")
	}
}

// Spec 06 §6.4: SubagentStart runs before the child's turn (matcher: the
// profile; a blocking exit cannot veto it), SubagentStop after its
// handoff, each with the first 500 characters of the prompt or response.
func TestE2ESubagentHooks(t *testing.T) {
	c := newCLI(t)
	log := filepath.Join(c.root, "hooks.jsonl")
	c.write("../kimigo/config.toml", `[[hooks]]
event = "SubagentStart"
matcher = "^explore$"
command = "cat >> `+log+`; echo >> `+log+`; exit 2"

[[hooks]]
event = "SubagentStop"
command = "cat >> `+log+`; echo >> `+log+`"
`)
	srv := c.fake("openai")
	long := strings.Repeat("p", 600)
	answer := "Found it. " + strings.Repeat("r", 600)
	srv.Respond(func(r *llmtest.Request) llmtest.Reply {
		turn := decodeChatTurn(t, r)
		switch {
		case turn.first == "look" && turn.tools == 0:
			return llmtest.ToolCall("call_a", "Agent", argsJSON(t, map[string]any{"prompt": long, "description": "Look", "subagent_type": "explore"}))
		case turn.first == "look":
			return llmtest.Text("done")
		}
		return llmtest.Text(answer)
	})
	if r := c.mustRun("-p", "look"); r.stdout != "done\n" {
		t.Errorf("stdout %q", r.stdout)
	}
	got := hookLog(t, log)
	if len(got) != 2 {
		t.Fatalf("hook log: %v", got)
	}
	if got[0]["hook_event_name"] != "SubagentStart" || got[0]["agent_name"] != "explore" || got[0]["prompt"] != long[:500] {
		t.Errorf("SubagentStart input: %v", got[0])
	}
	if got[1]["hook_event_name"] != "SubagentStop" || got[1]["agent_name"] != "explore" || got[1]["response"] != answer[:500] {
		t.Errorf("SubagentStop input: %v", got[1])
	}
}

// Issue 19 item 4 in print mode: a child's call that needs approval is
// denied by the headless rules, as the main agent's would be, with the
// subagent's don't-retry guidance; the child hands back and the run ends.
func TestE2ESubagentApprovalDeniedHeadless(t *testing.T) {
	c := newCLI(t)
	srv := c.fake("openai")
	handoff := "The command was not allowed to run. " + strings.Repeat("Nothing else was tried. ", 10)
	var mu sync.Mutex
	var denial string
	srv.Respond(func(r *llmtest.Request) llmtest.Reply {
		turn := decodeChatTurn(t, r)
		switch {
		case turn.first == "delegate" && turn.tools == 0:
			return llmtest.ToolCall("call_a", "Agent", argsJSON(t, map[string]any{"prompt": "Run the tests.", "description": "Test"}))
		case turn.first == "delegate":
			return llmtest.Text("The subagent could not run the tests.")
		case strings.Contains(turn.first, "Run the tests.") && turn.tools == 0:
			return llmtest.ToolCall("call_b", "Bash", argsJSON(t, map[string]any{"command": "touch ran.txt", "description": "run"}))
		case strings.Contains(turn.first, "Run the tests."):
			var b struct {
				Messages []struct {
					Role    string `json:"role"`
					Content string `json:"content"`
				} `json:"messages"`
			}
			_ = json.Unmarshal(r.Body, &b)
			mu.Lock()
			for _, m := range b.Messages {
				if m.Role == "tool" {
					denial = m.Content
				}
			}
			mu.Unlock()
			return llmtest.Text(handoff)
		}
		t.Errorf("unexpected request: %+v", turn)
		return llmtest.Text("?")
	})
	r := c.mustRun("-p", "delegate", "--permission-mode", "manual", "--allowedTools", "Agent")
	if r.stdout != "The subagent could not run the tests.\n" {
		t.Errorf("stdout %q\nstderr:\n%s", r.stdout, r.stderr)
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(denial, `Tool "Bash" was not run: it needs approval, and nobody is here to approve it.`) ||
		!strings.Contains(denial, "don't retry the same call") {
		t.Errorf("the child's tool result: %q", denial)
	}
	if _, err := os.Stat(filepath.Join(c.dir, "ran.txt")); err == nil {
		t.Error("the denied command ran")
	}
}
