package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/llm/llmtest"
)

// Issue 15 item 6: kimigo sessions lists this directory's sessions newest
// first with title, last prompt, updated time and turns; --all every
// directory's; --json for scripts, whose resume commands run.
func TestS15SessionsCommand(t *testing.T) {
	c := newCLI(t)
	if r := c.mustRun("sessions"); !strings.HasPrefix(r.stdout, "No sessions under ") {
		t.Errorf("empty: %v", r)
	}
	srv := c.fake("openai", llmtest.Text("a"), llmtest.Text("b"), llmtest.Text("c"), llmtest.Text("d"), llmtest.Text("e"))
	first := resumeHint(t, c.mustRun("-p", "fix the parser").stderr)
	c.mustRun("-r", first, "-p", "now the lexer")
	second := resumeHint(t, c.mustRun("-p", "write the docs").stderr)
	other := filepath.Join(c.root, "other")
	os.Mkdir(other, 0o755)
	elsewhere := resumeHint(t, c.runIn(other, "", "-p", "elsewhere").stderr)

	r := c.mustRun("sessions")
	lines := strings.Split(r.stdout, "\n")
	if !strings.HasPrefix(lines[0], second+"  ") || !strings.HasSuffix(lines[0], "  1 turns  write the docs") ||
		!strings.HasPrefix(lines[1], first+"  ") || !strings.HasSuffix(lines[1], "  2 turns  fix the parser") ||
		lines[2] != "  last prompt: now the lexer" || strings.Contains(r.stdout, elsewhere) ||
		!strings.Contains(r.stdout, "Resume one with: kimigo -r <id> -p \"…\"") {
		t.Errorf("sessions:\n%s", r.stdout)
	}
	r = c.mustRun("sessions", "--all")
	if !strings.Contains(r.stdout, elsewhere) || !strings.Contains(r.stdout, "  in: "+other+"\n") {
		t.Errorf("--all:\n%s", r.stdout)
	}
	r = c.mustRun("sessions", "--json")
	var list []sessionEntry
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || len(list) != 2 {
		t.Fatalf("--json: %v\n%s", err, r.stdout)
	}
	if e := list[1]; e.SessionID != first || e.Turns != 2 || e.Title != "fix the parser" || e.LastPrompt != "now the lexer" ||
		e.WorkDir != c.dir || e.UpdatedAt == "" || e.ResumeCommand != "kimigo -r "+first+` -p "…"` {
		t.Errorf("--json entry = %+v", e)
	}
	c.mustRun(hintArgs(t, list[1].ResumeCommand, "and the tests")...)
	if msgs := string(body(t, srv.Request(4))["messages"]); !strings.Contains(msgs, "now the lexer") {
		t.Errorf("the listed resume command did not resume %s:\n%s", first, msgs)
	}
	for _, args := range [][]string{{"sessions", "bogus"}, {"sessions", "--frob"}} {
		if r := c.run(args...); r.code != 1 || !strings.HasPrefix(r.stderr, "error: ") {
			t.Errorf("%q: %v", args, r)
		}
	}
}
