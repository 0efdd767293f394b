package session_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/session"
)

// waitGo ends when the file go appears in the work dir, printing hi.
const waitGo = `while [ ! -e go ]; do sleep 0.01; done; echo hi`

func bashBackground(t *testing.T, command, desc string) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"command": command, "run_in_background": true, "description": desc})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// startBackground opens a yolo session whose first turn starts waitGo in
// the background and answers "Started."; the turn has ended when it
// returns.
func (r *rig) startBackground(t *testing.T) (*session.Session, *event.Subscription) {
	t.Helper()
	r.srv.Add(llmtest.ToolCall("c1", "Bash", bashBackground(t, waitGo, "wait for go")), llmtest.Text("Started."))
	o := r.opts("")
	o.Mode = event.ModeYolo
	o.Env = osenv.NewLocal(osenv.LocalOptions{Cwd: r.workDir, Environ: []string{"PATH=" + os.Getenv("PATH")}})
	s, err := session.Open(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeSession(t, s) })
	sub := s.Subscribe()
	t.Cleanup(sub.Close)
	if err := s.Prompt(t.Context(), textParts("start the job")); err != nil {
		t.Fatal(err)
	}
	if e := waitEnded(t, sub); e.Reason != event.EndCompleted {
		t.Fatalf("first turn ended %+v", e)
	}
	return s, sub
}

func (r *rig) release(t *testing.T) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(r.workDir, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

type settled struct {
	more bool
	err  error
}

// settleAsync runs Settle on its own goroutine; the first thing it says
// it waits for arrives on waiting.
func settleAsync(ctx context.Context, s *session.Session) (<-chan settled, <-chan string) {
	done := make(chan settled, 1)
	waiting := make(chan string, 8)
	go func() {
		more, err := s.Settle(ctx, func(m string) { waiting <- m })
		done <- settled{more, err}
	}()
	return done, waiting
}

// Spec 06 §1.6.5, steer: a background task that ends after the print
// turn steers a new main turn, in which the model answers its
// notification; then nothing is left and the run is over.
func TestPrintSettleSteersABackgroundCompletion(t *testing.T) {
	r := newRig(t)
	s, sub := r.startBackground(t)
	if m := s.PrintBackgroundMode(); m != session.PrintSteer {
		t.Fatalf("mode %q", m)
	}
	r.srv.Add(llmtest.Text("It printed hi."))
	done, waiting := settleAsync(t.Context(), s)
	if msg := <-waiting; !strings.HasPrefix(msg, "Waiting for 1 background task whose results go to the model: bash-") ||
		!strings.Contains(msg, "(wait for go)") {
		t.Errorf("waiting message %q", msg)
	}
	r.release(t)
	if got := <-done; !got.more || got.err != nil {
		t.Fatalf("Settle = %+v; want another turn", got)
	}
	if e := waitEnded(t, sub); e.Reason != event.EndCompleted {
		t.Fatalf("notification turn ended %+v", e)
	}
	msgs := r.sentMessages(-1)
	last, _ := json.Marshal(msgs[len(msgs)-1])
	if !strings.Contains(string(last), `type=\"task.completed\"`) || !strings.Contains(string(last), "hi") {
		t.Errorf("the last request does not end with the notification: %s", last)
	}
	if more, err := s.Settle(t.Context(), nil); more || err != nil {
		t.Errorf("second Settle = %v, %v; want the run over", more, err)
	}
	if n := len(r.srv.Requests()); n != 3 {
		t.Errorf("%d requests; want 3", n)
	}
}

// Spec 06 §1.6.5, drain: the run waits for the task, and its end is not
// told to the model.
func TestPrintSettleDrainsWithoutTellingTheModel(t *testing.T) {
	r := newRig(t)
	r.writeConfig(r.configText() + "\n[background]\nprint_background_mode = \"drain\"\n")
	s, _ := r.startBackground(t)
	done, waiting := settleAsync(t.Context(), s)
	if msg := <-waiting; !strings.Contains(msg, "to finish") {
		t.Errorf("waiting message %q", msg)
	}
	r.release(t)
	if got := <-done; got.more || got.err != nil {
		t.Fatalf("Settle = %+v; want the run over", got)
	}
	tasks, err := filepath.Glob(filepath.Join(s.Dir(), "agents", "main", "tasks", "bash-*.json"))
	if err != nil || len(tasks) != 1 {
		t.Fatalf("task records %v %v", tasks, err)
	}
	rec, _ := os.ReadFile(tasks[0])
	if !strings.Contains(string(rec), `"status": "completed"`) {
		t.Errorf("task record %s", rec)
	}
	if n := len(r.srv.Requests()); n != 2 {
		t.Errorf("%d requests; the model must not hear of a drained task", n)
	}
}

// Spec 06 §1.6.5, exit: the run ends with its turn; Close stops the task.
func TestPrintSettleExitEndsAtOnce(t *testing.T) {
	r := newRig(t)
	r.writeConfig(r.configText() + "\n[background]\nprint_background_mode = \"exit\"\n")
	s, _ := r.startBackground(t)
	if more, err := s.Settle(t.Context(), nil); more || err != nil {
		t.Fatalf("Settle = %v, %v", more, err)
	}
	closeSession(t, s)
	tasks, _ := filepath.Glob(filepath.Join(s.Dir(), "agents", "main", "tasks", "bash-*.json"))
	if len(tasks) != 1 {
		t.Fatalf("task records %v", tasks)
	}
	rec, _ := os.ReadFile(tasks[0])
	if !strings.Contains(string(rec), `"status": "killed"`) {
		t.Errorf("task record after Close %s", rec)
	}
}
