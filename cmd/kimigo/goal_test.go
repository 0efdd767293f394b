package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/llmtest"
)

// Headless goals through the built binary (spec 06 §1.6.6, S17; issue
// 20): `kimigo -p "/goal <objective>"` runs until the goal is complete
// (exit 0), blocked (3) or paused (6), and ends with the goal summary.

// out costs n output tokens.
func out(r llmtest.Reply, n int) llmtest.Reply {
	return r.WithUsage(llm.TokenUsage{InputOther: 100, Output: n})
}

// jsonLines are stdout's stream-json lines, decoded.
func jsonLines(t *testing.T, stdout string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for l := range strings.SplitSeq(strings.TrimSpace(stdout), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("stdout line %q: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

func TestS17HeadlessGoal(t *testing.T) {
	t.Run("completes in several turns", func(t *testing.T) {
		t.Parallel()
		c := newCLI(t)
		srv := c.fake("openai", out(llmtest.Text("Looked at the failures."), 10), out(llmtest.Text("Fixed one."), 10),
			out(llmtest.ToolCall("u1", "UpdateGoal", `{"status":"complete"}`), 5), llmtest.Text("All tests pass."))
		r := c.run("-p", "/goal fix the tests", "--output-format", "stream-json")
		lines := jsonLines(t, r.stdout)
		n := len(lines)
		if r.code != 0 || n < 2 {
			t.Fatalf("run:\n%v", r)
		}
		// The summary, the hint, then the result line (issue 15).
		sum, hint, res := lines[n-3], lines[n-2], lines[n-1]
		if sum["type"] != "goal.summary" || sum["status"] != "complete" || sum["turnsUsed"] != float64(3) ||
			sum["tokensUsed"] != float64(25) || hint["type"] != "session.resume_hint" || res["subtype"] != "success" {
			t.Errorf("last lines %v, %v, %v", sum, hint, res)
		}
		if n := len(srv.Requests()); n != 4 {
			t.Errorf("%d model requests", n)
		}
		if !strings.Contains(string(srv.Request(1).Body), "Continue working toward the active goal") {
			t.Error("the second turn does not carry the continuation prompt")
		}
	})
	t.Run("blocked", func(t *testing.T) {
		t.Parallel()
		c := newCLI(t)
		c.fake("openai", llmtest.Text("Need credentials."), llmtest.ToolCall("u1", "UpdateGoal", `{"status":"blocked"}`),
			llmtest.Text("Blocked: no credentials for the registry."))
		r := c.run("-p", "/goal fix tests", "--output-format", "stream-json")
		lines := jsonLines(t, r.stdout)
		n := len(lines)
		if r.code != 3 || lines[n-3]["type"] != "goal.summary" || lines[n-3]["status"] != "blocked" ||
			lines[n-2]["type"] != "session.resume_hint" || lines[n-1]["subtype"] != "error_goal_blocked" ||
			lines[n-1]["is_error"] != true {
			t.Errorf("run:\n%v", r)
		}
	})
	t.Run("out of its token budget", func(t *testing.T) {
		t.Parallel()
		c := newCLI(t)
		srv := c.fake("openai", out(llmtest.ToolCall("b1", "SetGoalBudget", `{"value":30,"unit":"tokens"}`), 10),
			out(llmtest.Text("Worked a while."), 40), llmtest.Text("never sent"))
		r := c.run("-p", "/goal fix the tests within 30 tokens")
		if r.code != 3 || !strings.Contains(r.stderr, "Goal [blocked]: A configured budget was reached (turns: 1, tokens: 50)") ||
			!strings.Contains(r.stderr, "To resume this session: kimigo -r ") {
			t.Errorf("run:\n%v", r)
		}
		if n := len(srv.Requests()); n != 2 {
			t.Errorf("%d model requests; the budget must stop the goal", n)
		}
	})
	t.Run("paused", func(t *testing.T) {
		t.Parallel()
		c := newCLI(t)
		c.fake("openai", llmtest.Status(401, `{"error":{"message":"Invalid API key","type":"invalid_request_error"}}`))
		r := c.run("-p", "/goal fix tests")
		if r.code != 6 || !strings.Contains(r.stderr, "Goal [paused]: Paused after provider authentication error") {
			t.Errorf("run:\n%v", r)
		}
	})
	t.Run("other forms are prompts", func(t *testing.T) {
		t.Parallel()
		c := newCLI(t)
		srv := c.fake("openai", llmtest.Text("There is no goal."))
		r := c.run("-p", "/goal status")
		if r.code != 0 || strings.Contains(r.stderr, "Goal [") {
			t.Errorf("run:\n%v", r)
		}
		if body := string(srv.Request(0).Body); !strings.Contains(body, "/goal status") {
			t.Errorf("the model did not get the text: %s", body)
		}
	})
	t.Run("next is a prompt too", func(t *testing.T) { // spec 06 §1.6.1 step 6: a print run has no queue
		t.Parallel()
		c := newCLI(t)
		srv := c.fake("openai", llmtest.Text("Noted."))
		r := c.run("-p", "/goal next ship it")
		if r.code != 0 || strings.Contains(r.stderr, "Goal [") || len(srv.Requests()) != 1 {
			t.Errorf("run:\n%v", r)
		}
		if body := string(srv.Request(0).Body); !strings.Contains(body, "/goal next ship it") {
			t.Errorf("the model did not get the text: %s", body)
		}
	})
	t.Run("a bad form fails first", func(t *testing.T) {
		t.Parallel()
		c := newCLI(t)
		srv := c.fake("openai")
		r := c.run("-p", "/goal replace")
		if r.code != 1 || !strings.Contains(r.stderr, "/goal replace needs the new objective") || len(srv.Requests()) != 0 {
			t.Errorf("run:\n%v", r)
		}
	})
}

// A goal waiting on a quota reset (a 429 with Retry-After) pauses, waits
// and resumes by itself instead of failing.
func TestHeadlessGoalWaitsForTheQuota(t *testing.T) {
	c := newCLI(t)
	c.env["KIMI_LOOP_MAX_RETRIES_PER_STEP"] = "1"
	srv := c.fake("openai", llmtest.ChatRateLimited(1), llmtest.ToolCall("u1", "UpdateGoal", `{"status":"complete"}`),
		llmtest.Text("Done."))
	r := c.run("-p", "/goal ship it")
	if r.code != 0 || !strings.Contains(r.stderr, "the goal resumes in 1s") || !strings.Contains(r.stderr, "Goal [complete]") {
		t.Errorf("run:\n%v", r)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("%d requests", n)
	}
}

// Plan mode in print mode (--plan) refuses a Write outside the plan file,
// in the run's auto mode too.
func TestPrintPlanModeRefusesWritesOutsideThePlan(t *testing.T) {
	c := newCLI(t)
	c.fake("openai", llmtest.ToolCall("w1", "Write", `{"path":"main.go","content":"package main"}`),
		llmtest.Text("I may only write the plan."))
	r := c.run("-p", "add a main package", "--plan", "--output-format", "stream-json")
	if r.code != 0 || !strings.Contains(r.stdout, "Plan mode is active") {
		t.Errorf("run:\n%v", r)
	}
	if _, err := os.Stat(filepath.Join(c.dir, "main.go")); err == nil {
		t.Error("the Write ran")
	}
}

// --plan in print mode: the model writes its plan to the plan file the
// reminder names, ExitPlanMode is approved without a review (the run is
// in auto mode), and the answer is the plan; nothing else is written.
func TestPrintPlanModeThePlanIsTheAnswer(t *testing.T) {
	c := newCLI(t)
	srv := c.fake("openai")
	planFile := regexp.MustCompile(`Plan file: ([^"\\]+)`)
	var (
		mu   sync.Mutex
		path string
		n    int
	)
	srv.Respond(func(r *llmtest.Request) llmtest.Reply {
		mu.Lock()
		defer mu.Unlock()
		n++
		switch n {
		case 1:
			m := planFile.FindSubmatch(r.Body)
			if m == nil {
				return llmtest.Text("no plan file in the request")
			}
			path = string(m[1])
			args, _ := json.Marshal(map[string]string{"path": path, "content": "1. Write main.go.\n2. Run it.\n"})
			return llmtest.ToolCall("w1", "Write", string(args))
		case 2:
			return llmtest.ToolCall("x1", "ExitPlanMode", `{}`)
		}
		return llmtest.Text("The plan: write main.go, then run it.")
	})
	r := c.run("-p", "add a main package", "--plan", "--output-format", "stream-json")
	if r.code != 0 {
		t.Fatalf("run:\n%v", r)
	}
	mu.Lock()
	defer mu.Unlock()
	if b, err := os.ReadFile(path); err != nil || string(b) != "1. Write main.go.\n2. Run it.\n" {
		t.Errorf("plan file %q: %q, %v", path, b, err)
	}
	lines := jsonLines(t, r.stdout)
	var exitResult string
	for _, l := range lines {
		if l["role"] == "tool" && l["tool_call_id"] == "x1" {
			exitResult, _ = l["content"].(string)
		}
	}
	if !strings.Contains(exitResult, "approved automatically") || !strings.Contains(exitResult, "1. Write main.go.") {
		t.Errorf("ExitPlanMode result %q", exitResult)
	}
	if answer := lines[len(lines)-3]; answer["role"] != "assistant" || answer["content"] != "The plan: write main.go, then run it." {
		t.Errorf("the answer line %v", answer)
	}
	if _, err := os.Stat(filepath.Join(c.dir, "main.go")); err == nil {
		t.Error("main.go was written")
	}
}

// kill -9 in the middle of a goal, then `-c`: the goal comes back paused
// with what it was charged, and the model resumes it in the continued run.
func TestHeadlessGoalSurvivesKill9(t *testing.T) {
	c := newCLI(t)
	gate := llmtest.NewGate()
	c.fake("openai", out(llmtest.Text("slice one"), 7), out(llmtest.Text("slice two"), 7),
		llmtest.Text("never").WithFault(llmtest.Fault{Hold: gate}))
	res := c.interrupt(syscall.SIGKILL, gate.IsReached, "-p", "/goal ship it", "--output-format", "stream-json")
	if res.code != -1 {
		t.Fatalf("the first run was not killed:\n%v", res)
	}
	c.fake("openai", out(llmtest.ToolCall("a1", "UpdateGoal", `{"status":"active"}`), 3), llmtest.Text("Resuming."),
		out(llmtest.ToolCall("u1", "UpdateGoal", `{"status":"complete"}`), 2), llmtest.Text("Shipped."))
	r := c.run("-c", "-p", "carry on with the goal", "--output-format", "stream-json")
	if r.code != 0 {
		t.Fatalf("the continued run:\n%v", r)
	}
	wire := findWire(t, c)
	b, err := os.ReadFile(wire)
	if err != nil {
		t.Fatal(err)
	}
	log := string(b)
	if !strings.Contains(log, `"reason":"Paused after agent resume"`) || !strings.Contains(log, `"status":"complete"`) {
		t.Errorf("the log lacks the pause on resume or the completion:\n%s", log)
	}
	var last struct {
		TurnsUsed  *int `json:"turnsUsed"`
		TokensUsed *int `json:"tokensUsed"`
	}
	for l := range strings.SplitSeq(log, "\n") {
		if strings.Contains(l, `"type":"goal.update"`) && strings.Contains(l, `"status":"complete"`) {
			continue
		}
		if strings.Contains(l, `"type":"goal.update"`) && strings.Contains(l, "tokensUsed") {
			if err := json.Unmarshal([]byte(l), &last); err != nil {
				t.Fatal(err)
			}
		}
	}
	// 7 + 7 before the kill, none for the step that resumed the paused
	// goal (it was not active while that step ran), 2 after.
	if last.TokensUsed == nil || *last.TokensUsed != 7+7+2 {
		t.Errorf("tokens charged over both runs: %v; want 16 (none lost to the kill)", last.TokensUsed)
	}
}

// findWire is the main agent's record log of the work dir's one session.
func findWire(t *testing.T, c *cli) string {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join(c.home, "sessions", "*", "*", "agents", "main", "wire.jsonl"))
	if err != nil || len(matches) != 1 {
		t.Fatalf("wire logs %v, %v", matches, err)
	}
	return matches[0]
}
