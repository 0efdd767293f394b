package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kimigo/kimigo/llm/llmtest"
)

// userText is the text of the last user message of request i, as the
// Chat Completions wire carries it.
func userText(t *testing.T, srv *llmtest.Server, i int) string {
	t.Helper()
	msgs, _ := srv.Request(i).JSON(t)["messages"].([]any)
	for j := len(msgs) - 1; j >= 0; j-- {
		m, _ := msgs[j].(map[string]any)
		if m["role"] != "user" {
			continue
		}
		switch c := m["content"].(type) {
		case string:
			return c
		case []any:
			var b strings.Builder
			for _, p := range c {
				if pm, ok := p.(map[string]any); ok {
					s, _ := pm["text"].(string)
					b.WriteString(s)
				}
			}
			return b.String()
		}
	}
	t.Fatalf("request %d has no user message", i)
	return ""
}

// Issue 15 item 1: -p is a switch and the prompt positional, in every
// order Claude Code users type; Kimi's --prompt keeps its value.
func TestS15InvocationForms(t *testing.T) {
	c := newCLI(t)
	forms := [][]string{
		{"-p", "q1"},
		{"-p", "-c", "q2"},
		{"-c", "-p", "q3"},
		{"-p", "--output-format", "stream-json", "q4"},
		{"--prompt", "q5"},
		{"--print", "--", "-q6"},
	}
	var replies []llmtest.Reply
	for range forms {
		replies = append(replies, llmtest.Text("ok"))
	}
	srv := c.fake("openai", replies...)
	for i, args := range forms {
		c.mustRun(args...)
		want := args[len(args)-1]
		if got := userText(t, srv, i); got != want {
			t.Errorf("%q sent %q; want %q", args, got, want)
		}
	}
	if r := c.run("-p", "--help"); r.code != 0 || !strings.HasPrefix(r.stdout, "kimigo — ") {
		t.Errorf("-p --help: %v", r)
	}
	if n := len(srv.Requests()); n != len(forms) {
		t.Errorf("%d requests; want %d (-p --help sent one)", n, len(forms))
	}
}

// Without -p, a positional prompt is the interactive interface's first
// prompt; with no terminal the interface says so and nothing is written.
func TestS15PositionalWithoutPrint(t *testing.T) {
	c := newCLI(t)
	r := c.run("fix the tests")
	if r.code != 1 || !strings.HasPrefix(r.stderr, "error: the interactive interface needs a terminal") {
		t.Errorf("got %v", r)
	}
	if files := tree(t, c.home); len(files) != 0 {
		t.Errorf("wrote %v", files)
	}
}

// Issue 15 item 2: piped text and the prompt both reach the model; "-"
// and a bare -p read the prompt from standard input.
func TestS15StdinIsPartOfThePrompt(t *testing.T) {
	c := newCLI(t)
	srv := c.fake("openai", llmtest.Text("a"), llmtest.Text("b"), llmtest.Text("c"))
	c.runOK(t, "line 1\nline 2\n", "-p", "explain this")
	if got := userText(t, srv, 0); got != "explain this\n\nline 1\nline 2" {
		t.Errorf("prompt with pipe = %q", got)
	}
	c.runOK(t, "what is 2+2?\n", "-p", "-")
	if got := userText(t, srv, 1); got != "what is 2+2?\n" {
		t.Errorf("-p - = %q", got)
	}
	big := strings.Repeat("x", 200<<10) // past the 128 KiB argument limit
	c.runOK(t, big, "-p")
	if got := userText(t, srv, 2); got != big {
		t.Errorf("-p with a 200 KiB pipe sent %d bytes", len(got))
	}
}

func TestS15StdinRefusals(t *testing.T) {
	c := newCLI(t)
	srv := c.fake("openai", llmtest.Text("never"))
	for _, tt := range []struct {
		name, stdin string
		args        []string
		want        string
	}{
		{"over the limit", strings.Repeat("y", 10<<20+1), []string{"-p", "summarize"},
			"error: Standard input is over the 10 MiB limit: save it to a file and name the file in the prompt.\n"},
		{"binary", "PK\x03\x04\x00\x00", []string{"-p", "what is this"},
			"error: Standard input is not text (a NUL byte at offset 4): kimigo reads only UTF-8 text; " +
				"name a binary file in the prompt instead.\n"},
		{"not UTF-8", "caf\xe9\n", []string{"-p", "-"},
			"error: Standard input is not valid UTF-8 (at offset 3): convert it to UTF-8 first.\n"},
		{"empty", "", []string{"-p"}, "error: Prompt cannot be empty.\n"},
	} {
		r := c.runIn(c.dir, tt.stdin, tt.args...)
		if r.code != 1 || r.stderr != tt.want || r.stdout != "" {
			t.Errorf("%s: %v", tt.name, r)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests; refused input must send none", n)
	}
	if _, err := os.Stat(filepath.Join(c.home, "sessions")); err == nil {
		t.Error("refused input created a session")
	}
}

// The model's commands never read kimigo's standard input.
func TestS15ToolsDoNotReadStdin(t *testing.T) {
	c := newCLI(t)
	srv := c.fake("openai", llmtest.ToolCall("call_1", "Bash", `{"command":"cat; echo done"}`), llmtest.Text("ok"))
	c.runOK(t, "PIPED-SECRET\n", "-p", "run cat")
	body := string(srv.Request(1).Body)
	if !strings.Contains(body, "done") || strings.Count(body, "PIPED-SECRET") != 1 {
		t.Errorf("the command read kimigo's stdin, or did not run:\n%.2000s", body)
	}
}

// runOK runs kimigo with stdin and fails the test unless it exits 0.
func (c *cli) runOK(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	r := c.runIn(c.dir, stdin, args...)
	if r.code != 0 {
		t.Fatalf("kimigo %q failed:\n%v", args, r)
	}
	return r
}

// A prompt on the command line does not wait for ever on a pipe nobody
// writes to.
func TestPromptInputWaitsForPipedInputOnlyBriefly(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	now := make(chan time.Time)
	close(now)
	o := &options{print: true, args: []string{"q"}}
	got, err := promptInput(o, pr, now)
	if err != nil || got != "q" {
		t.Errorf("promptInput = %q, %v; want the prompt alone", got, err)
	}
}
