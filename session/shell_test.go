package session_test

import (
	"os"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/session"
)

// Spec 05 §2.7: a user shell command runs through the main agent's Bash
// without a turn, streams its output, and the model sees the command and
// its output with the next prompt.
func TestRunShellRecordsTheCommandForTheNextPrompt(t *testing.T) {
	r := newRig(t, "I saw it.")
	o := r.opts("")
	o.Env = osenv.NewLocal(osenv.LocalOptions{Cwd: r.workDir, Environ: []string{"PATH=" + os.Getenv("PATH")}})
	s, err := session.Open(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeSession(t, s) })
	sub := s.Subscribe()
	defer sub.Close()
	res, err := s.RunShell(t.Context(), "c1", "echo from-the-shell")
	if err != nil || res.IsError || !strings.Contains(res.Output, "from-the-shell") {
		t.Fatalf("RunShell = %+v, %v", res, err)
	}
	var started, output bool
	for !(started && output) {
		ev, err := sub.Next(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		switch e := ev.(type) {
		case event.ShellStarted:
			started = e.CommandID == "c1" && e.TaskID != ""
		case event.ShellOutput:
			output = output || (e.CommandID == "c1" && strings.Contains(e.Text, "from-the-shell"))
		}
	}
	res, err = s.RunShell(t.Context(), "c2", "echo broken >&2; exit 3")
	if err != nil || !res.IsError || !strings.Contains(res.Output, "broken") {
		t.Fatalf("a failing command = %+v, %v", res, err)
	}
	if len(r.srv.Requests()) != 0 {
		t.Fatal("a shell command called the model")
	}
	prompt(t, s, "what did the shell say?")
	var all string
	for _, m := range r.sentMessages(0) {
		if c, ok := m["content"].(string); ok {
			all += c + "\n"
		}
	}
	for _, want := range []string{"<bash-input>\necho from-the-shell\n</bash-input>", "<bash-stdout>", "from-the-shell",
		"<bash-stderr>", "broken", "what did the shell say?"} {
		if !strings.Contains(all, want) {
			t.Errorf("the request lacks %q:\n%s", want, all)
		}
	}
}
