package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/llmtest"
)

// resultObject is Claude Code's result object, as scripts read it.
type resultObject struct {
	Type          string `json:"type"`
	Subtype       string `json:"subtype"`
	IsError       bool   `json:"is_error"`
	Result        string `json:"result"`
	SessionID     string `json:"session_id"`
	NumTurns      int    `json:"num_turns"`
	DurationMs    *int64 `json:"duration_ms"`
	ResumeCommand string `json:"resume_command"`
	Usage         *struct {
		InputTokens              int `json:"input_tokens"`
		OutputTokens             int `json:"output_tokens"`
		CacheReadInputTokens     int `json:"cache_read_input_tokens"`
		CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	} `json:"usage"`
	Error *struct{ Code, Message string } `json:"error"`
}

// lastResult is the last stdout line as a result object; it fails the
// test unless every line is JSON and the last is a result.
func lastResult(t *testing.T, r result) resultObject {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	for _, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Fatalf("stdout line is not JSON: %q\n%v", l, r)
		}
	}
	var res resultObject
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil || res.Type != "result" ||
		res.DurationMs == nil || res.Usage == nil {
		t.Fatalf("the last line is not a result object:\n%v", r)
	}
	return res
}

// Issue 15 item 4: one result object in json, a result line ending
// stream-json; on success and on 401, 500, the step limit and a run that
// never started.
func TestS15ResultObject(t *testing.T) {
	unauthorized := llmtest.Status(401, `{"error":{"message":"Invalid Authentication","type":"invalid_authentication_error"}}`)
	serverError := llmtest.Status(500, `{"error":{"message":"upstream exploded","type":"server_error"}}`)
	for _, format := range []string{"json", "stream-json"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			c := newCLI(t)
			os.MkdirAll(c.home, 0o700)
			os.WriteFile(filepath.Join(c.home, "config.toml"), []byte("[loop_control]\nmax_attempts_per_step = 1\n"), 0o600)
			srv := c.fake("anthropic",
				llmtest.Text("The answer.").WithUsage(llm.TokenUsage{InputOther: 11, Output: 7, InputCacheRead: 5, InputCacheCreation: 3}),
				unauthorized, serverError,
				llmtest.ToolCall("call_1", "Glob", `{"pattern":"*"}`))
			r := c.mustRun("-p", "--output-format", format, "q")
			res := lastResult(t, r)
			if res.Subtype != "success" || res.IsError || res.Result != "The answer." || res.NumTurns != 1 ||
				!strings.HasPrefix(res.SessionID, "session_") || res.Error != nil ||
				res.ResumeCommand != "kimigo -r "+res.SessionID+` -p "…"` {
				t.Errorf("success: %+v\n%v", res, r)
			}
			if u := res.Usage; u.InputTokens != 11 || u.OutputTokens != 7 || u.CacheReadInputTokens != 5 || u.CacheCreationInputTokens != 3 {
				t.Errorf("usage = %+v", *u)
			}
			if format == "json" && strings.Count(r.stdout, "\n") != 1 {
				t.Errorf("json wrote more than the result object:\n%s", r.stdout)
			}
			for _, tt := range []struct {
				name, code, subtype string
				args                []string
			}{
				{"401", "provider.auth_error", "error_during_execution", nil},
				{"500", "provider.api_error", "error_during_execution", nil},
				{"step limit", "loop.max_steps_exceeded", "error_max_steps", []string{"--max-turns", "1"}},
			} {
				r := c.run(append([]string{"-p", "--output-format", format, "q"}, tt.args...)...)
				res := lastResult(t, r)
				if r.code != 1 || !res.IsError || res.Subtype != tt.subtype || res.Error == nil || res.Error.Code != tt.code ||
					res.SessionID == "" || res.ResumeCommand == "" {
					t.Errorf("%s: %+v\n%v", tt.name, res, r)
				}
			}
			if n := len(srv.Requests()); n != 4 {
				t.Errorf("%d requests; want 4", n)
			}
			// A run that never started still ends with a result.
			r = c.run("-p", "--output-format", format, "-r", "session_nope", "q")
			if res := lastResult(t, r); r.code != 1 || !res.IsError || res.Error == nil ||
				!strings.Contains(res.Error.Message, `Session "session_nope" not found.`) {
				t.Errorf("not found: %+v\n%v", res, r)
			}
		})
	}
}

// Issue 15 item 5: the hint a successful run prints, run as printed,
// resumes the session; so does the hint of a failed run.
func TestS15ResumeHintRuns(t *testing.T) {
	c := newCLI(t)
	unauthorized := llmtest.Status(401, `{"error":{"message":"Invalid Authentication","type":"invalid_authentication_error"}}`)
	srv := c.fake("openai", llmtest.Text("first"), unauthorized, llmtest.Text("third"))
	r := c.mustRun("-p", "one")
	id := resumeHint(t, r.stderr)
	r = c.run(hintArgs(t, resumeCommandIn(t, r.stderr), "two")...)
	if r.code != 1 || resumeHint(t, r.stderr) != id {
		t.Fatalf("the failed resumed run: %v", r)
	}
	r = c.mustRun(hintArgs(t, resumeCommandIn(t, r.stderr), "three")...)
	if r.stdout != "third\n" || resumeHint(t, r.stderr) != id {
		t.Errorf("the hint of the failed run: %v", r)
	}
	msgs := string(body(t, srv.Request(len(srv.Requests())-1))["messages"])
	if !strings.Contains(msgs, `"one"`) || !strings.Contains(msgs, `"first"`) || !strings.Contains(msgs, `"three"`) {
		t.Errorf("the resumed request lacks the earlier turn:\n%s", msgs)
	}
}

// Issue 15 item 7: the flags change the run and say so.
func TestS15PrintFlags(t *testing.T) {
	c := newCLI(t)
	srv := c.fake("openai", llmtest.ToolCall("call_1", "Bash", `{"command":"echo hi"}`), llmtest.Text("done"),
		llmtest.ToolCall("call_2", "Glob", `{"pattern":"*"}`))
	r := c.mustRun("-p", "--verbose", "--append-system-prompt", "Answer in haiku.", "go")
	if sys := string(body(t, srv.Request(0))["messages"]); !strings.Contains(sys, `Answer in haiku.`) {
		t.Errorf("the system prompt lacks the addition:\n%.3000s", sys)
	}
	if !strings.Contains(r.stderr, "→ Bash echo hi\nhi\n  ✓ 1 line\n") || r.stdout != "done\n" {
		t.Errorf("--verbose: %v", r)
	}
	r = c.run("-p", "--max-steps", "1", "go")
	if r.code != 1 || !strings.Contains(r.stderr, "the turn reached its step limit of 1 steps") ||
		!strings.Contains(r.stderr, "this run's limit is --max-steps 1") || strings.Contains(r.stderr, "/reload") {
		t.Errorf("--max-steps 1: %v", r)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-p", "--max-steps", "-3", "q"}, "error: option '--max-steps <n>' argument '-3' is invalid"},
		{[]string{"-c", "-p", "--append-system-prompt", "x", "q"}, "error: Cannot combine --append-system-prompt with --session/--continue"},
		{[]string{"--verbose"}, "error: --verbose is only supported in print mode (-p)."},
	} {
		before := tree(t, c.home)
		r := c.run(tt.args...)
		if r.code != 1 || !strings.HasPrefix(r.stderr, tt.want) {
			t.Errorf("%q: %v", tt.args, r)
		}
		if d := diffTrees(before, tree(t, c.home)); d != "" {
			t.Errorf("%q wrote: %s", tt.args, d)
		}
	}
	help := c.mustRun("--help").stdout
	for _, f := range []string{"--max-steps", "--max-turns", "--append-system-prompt", "--verbose", "--output-format", "json"} {
		if !strings.Contains(help, f) {
			t.Errorf("--help lacks %s", f)
		}
	}
}
