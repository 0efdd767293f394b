package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/llm/llmtest"
)

// repeatScript is an offline model script that calls Glob with the same
// arguments n times, then answers.
func repeatScript(t *testing.T, c *cli, n int) {
	t.Helper()
	var rs []string
	for range n {
		rs = append(rs, `{"tool_calls": [{"name": "Glob", "arguments": {"pattern": "*.txt"}}]}`)
	}
	script := filepath.Join(c.root, "script.json")
	if err := os.WriteFile(script, []byte(`{"responses": [`+strings.Join(rs, ",")+`, {"text": "never reached"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	c.env["KIMIGO_SCRIPT"] = script
}

// Issue 13 item 9: a print run whose turn the repeat guard stopped (12
// identical calls) says so on stderr and exits 1, in both output formats,
// on the offline model and through a loopback fake; stdout has no answer.
func TestPrintRunStoppedByTheRepeatGuardFails(t *testing.T) {
	const want = "error: failed to run prompt: turn.repeat_stopped: the model called Glob with the same arguments " +
		"12 times in a row; the turn was stopped before the task was finished\n"
	for _, format := range []string{"text", "stream-json"} {
		t.Run("offline/"+format, func(t *testing.T) {
			t.Parallel()
			c := newCLI(t)
			c.write("a.txt", "a\n")
			repeatScript(t, c, 20)
			r := c.run("-p", "find the text files", "--output-format", format)
			if r.code != 1 || !strings.Contains(r.stderr, want) || strings.Contains(r.stdout, "never reached") ||
				strings.Contains(r.stdout, "resume_hint") {
				t.Errorf("the stopped run:\n%v", r)
			}
		})
	}
	t.Run("anthropic", func(t *testing.T) {
		t.Parallel()
		c := newCLI(t)
		c.write("a.txt", "a\n")
		var replies []llmtest.Reply
		for i := range 13 {
			replies = append(replies, llmtest.ToolCall(fmt.Sprint("call_", i), "Glob", `{"pattern":"*.txt"}`))
		}
		srv := c.fake("anthropic", replies...)
		r := c.run("-p", "find the text files")
		if r.code != 1 || !strings.Contains(r.stderr, want) || r.stdout != "" {
			t.Errorf("the stopped run:\n%v", r)
		}
		if n := len(srv.Requests()); n != 12 || srv.Remaining() != 1 {
			t.Errorf("%d requests; want 12 (the guard stops after the 12th call)", n)
		}
	})
}

// Issue 13 item 9: a print run that reaches the step limit says so on
// stderr, naming the config key, and exits 1.
func TestPrintRunAtTheStepLimitFails(t *testing.T) {
	c := newCLI(t)
	c.write("a.txt", "a\n")
	repeatScript(t, c, 5)
	if err := os.MkdirAll(c.home, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c.home, "config.toml"), []byte("[loop_control]\nmax_steps_per_turn = 3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := c.run("-p", "find the text files")
	if r.code != 1 || !strings.Contains(r.stderr, "error: failed to run prompt: loop.max_steps_exceeded: the turn reached its step limit of 3 steps") ||
		!strings.Contains(r.stderr, "loop_control.max_steps_per_turn") || strings.Contains(r.stderr, "/reload") ||
		strings.Contains(r.stdout, "never reached") {
		t.Errorf("the run at the step limit:\n%v", r)
	}
}
