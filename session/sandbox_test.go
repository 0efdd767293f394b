package session_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/sandbox"
	"github.com/kimigo/kimigo/session"
)

// A sandbox the session cannot start (this test binary never calls
// sandbox.MaybeRunTrampoline, as a system without Landlock cannot
// sandbox either) is said once, as a warning notice, and no command runs
// unconfined: every Bash call asks, which a session nobody answers
// denies; other tools carry on. The system prompt states the sandbox
// promised (ERRATA 34).
func TestSandboxThatCannotStartRefusesCommands(t *testing.T) {
	r := newRig(t)
	r.srv.Add(llmtest.ToolCall("c1", "Bash", `{"command":"echo ran > ran.txt"}`),
		llmtest.ToolCall("c2", "Bash", `{"command":"echo ran > ran2.txt"}`),
		llmtest.ToolCall("c3", "Write", `{"path":"w.txt","content":"w"}`),
		llmtest.Text("done"))
	o := r.opts("")
	o.Mode = event.ModeYolo
	o.Sandbox = session.SandboxOptions{Mode: sandbox.ModeWorkspaceWrite}
	s, err := session.Open(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer closeSession(t, s)
	sub := s.Subscribe()
	defer sub.Close()
	if err := s.Prompt(t.Context(), textParts("run it")); err != nil {
		t.Fatal(err)
	}
	var notices []string
	var results []event.ToolResult
	for {
		ev, err := sub.Next(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		switch e := ev.(type) {
		case event.Notice:
			notices = append(notices, e.Text)
		case event.ToolResult:
			results = append(results, e)
		}
		if _, ok := ev.(event.TurnEnded); ok {
			break
		}
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "sandbox") {
		t.Errorf("notices = %q; want one about the sandbox", notices)
	}
	if len(results) != 3 {
		t.Fatalf("got %d tool results; want 3", len(results))
	}
	for i, res := range results[:2] {
		if !res.IsError || !strings.Contains(res.Output.Text(), "--sandbox off") {
			t.Errorf("Bash result %d = %+v; want a denial naming --sandbox off", i, res)
		}
	}
	for _, f := range []string{"ran.txt", "ran2.txt"} {
		if _, err := os.Stat(filepath.Join(r.workDir, f)); err == nil {
			t.Errorf("%s was written: a command ran unconfined", f)
		}
	}
	if results[2].IsError {
		t.Errorf("Write failed: %+v", results[2])
	}
	if sys := r.sentMessages(0)[0]; !strings.Contains(sys["content"].(string), "Commands run in a sandbox") {
		t.Errorf("the system prompt does not state the sandbox: %v", sys["content"])
	}
}
