package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kimigo/kimigo/llm/llmtest"
)

// bgArgs are Bash arguments that run command in the background.
func bgArgs(t *testing.T, command, desc string) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"command": command, "run_in_background": true, "description": desc})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// lineTypes are the lines' "type" (meta lines) or "role".
func lineTypes(lines []map[string]any) []string {
	var out []string
	for _, l := range lines {
		if ty, ok := l["type"].(string); ok {
			out = append(out, ty)
		} else {
			out = append(out, l["role"].(string))
		}
	}
	return out
}

// Issue 18 acceptance: a Bash command in the background whose completion
// the model answers in the same print run (spec 06 §1.6.5, steer); the
// task's start and end are stream-json meta lines.
func TestE2EBackgroundTaskAnsweredInTheSameRun(t *testing.T) {
	c := newCLI(t)
	srv := c.fake("openai", llmtest.ToolCall("call_1", "Bash", bgArgs(t, "sleep 0.3; echo done-bg", "short job")),
		llmtest.Text("Started."), llmtest.Text("The job printed done-bg."))
	r := c.mustRun("-p", "run the job in the background", "--output-format", "stream-json")
	lines := jsonLines(t, r.stdout)
	got := strings.Join(lineTypes(lines), " ")
	want := "system.version assistant background.task.started tool assistant background.task.terminated assistant session.resume_hint result"
	if got != want {
		t.Errorf("stdout lines\n got %s\nwant %s\n%s", got, want, r.stdout)
	}
	if task, _ := lines[5]["task"].(map[string]any); task["status"] != "completed" || task["description"] != "short job" {
		t.Errorf("terminated line %v", lines[5])
	}
	if lines[6]["content"] != "The job printed done-bg." {
		t.Errorf("last answer %v", lines[6])
	}
	if !strings.Contains(r.stderr, "Waiting for 1 background task whose results go to the model: bash-") {
		t.Errorf("stderr does not say what the run waits for:\n%s", r.stderr)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Fatalf("%d requests; want 3", n)
	}
	if msgs := string(body(t, srv.Request(2))["messages"]); !strings.Contains(msgs, "task.completed") || !strings.Contains(msgs, "done-bg") {
		t.Errorf("the third request lacks the notification:\n%s", msgs)
	}
}

// Issue 18 acceptance, ERRATA 23 closed: a foreground command past its
// timeout moves to the background, finishes, and the model hears of it.
func TestE2EForegroundTimeoutMovesToTheBackground(t *testing.T) {
	c := newCLI(t)
	srv := c.fake("openai", llmtest.ToolCall("call_1", "Bash", `{"command":"sleep 2; echo late > late.txt; echo late","timeout":1}`),
		llmtest.Text("It moved to the background."), llmtest.Text("It finished late."))
	r := c.mustRun("-p", "run the slow command")
	if r.stdout != "It finished late.\n" { // the final answer only
		t.Errorf("stdout = %q", r.stdout)
	}
	if b, err := os.ReadFile(filepath.Join(c.dir, "late.txt")); err != nil || string(b) != "late\n" {
		t.Errorf("late.txt = %q, %v: the command did not finish", b, err)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Fatalf("%d requests; want 3", n)
	}
	if msgs := string(body(t, srv.Request(1))["messages"]); !strings.Contains(msgs, "background") {
		t.Errorf("the tool result does not say the command moved to the background:\n%s", msgs)
	}
	if msgs := string(body(t, srv.Request(2))["messages"]); !strings.Contains(msgs, "task.completed") {
		t.Errorf("the third request lacks the notification:\n%s", msgs)
	}
}

// taskRecord is a task file of the main agent, once there is one.
func taskRecord(t *testing.T, home string) (string, map[string]any, bool) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(home, "sessions", "*", "*", "agents", "main", "tasks", "bash-*.json"))
	if len(files) != 1 {
		return "", nil, false
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		return "", nil, false
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return "", nil, false
	}
	return files[0], m, true
}

// Issue 18 acceptance: kill -9 of kimigo while a background task runs,
// then -c: the task is reported lost, its output is readable, and no
// process of it is left behind (spec 02 S57, spec 05 §6.7).
func TestE2EKilledWhileATaskRunsThenContinue(t *testing.T) {
	c := newCLI(t)
	srv := c.fake("openai", llmtest.ToolCall("call_1", "Bash", bgArgs(t, "echo partial; exec sleep 60", "long job")),
		llmtest.Text("Started."), llmtest.Text("The job was lost."))
	// Without the sandbox: a sandboxed command dies with kimigo's sandbox
	// server, and this test is about a process that outlives kimigo.
	cmd := c.command(c.dir, "-p", "run the long job", "--sandbox", "off")
	var out, errw lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &errw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	deadline := time.Now().Add(30 * time.Second)
	for {
		// The kill comes once the task's first line is in its log: the
		// shell may not have run the echo yet when the run starts waiting.
		file, rec, ok := taskRecord(t, c.home)
		logged := false
		if ok {
			b, _ := os.ReadFile(filepath.Join(strings.TrimSuffix(file, ".json"), "output.log"))
			logged = string(b) == "partial\n"
		}
		if ok && logged && len(srv.Requests()) == 2 && strings.Contains(errw.String(), "Waiting for 1 background task") {
			pid = int(rec["pid"].(float64))
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("the run never waited for its task:\n%s%s", out.String(), errw.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if syscall.Kill(pid, 0) != nil {
		t.Fatalf("the task's process %d did not outlive kimigo; the test proves nothing", pid)
	}

	r := c.mustRun("-c", "-p", "what happened to the job?")
	if r.stdout != "The job was lost.\n" {
		t.Errorf("stdout = %q", r.stdout)
	}
	file, rec, ok := taskRecord(t, c.home)
	if !ok || rec["status"] != "lost" {
		t.Errorf("task record after -c: %v", rec)
	}
	if b, err := os.ReadFile(filepath.Join(strings.TrimSuffix(file, ".json"), "output.log")); err != nil || string(b) != "partial\n" {
		t.Errorf("output.log = %q, %v", b, err)
	}
	gone := time.Now().Add(10 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(gone) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("process %d of the lost task is still running", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if msgs := string(body(t, srv.Request(2))["messages"]); !strings.Contains(msgs, "lost") || !strings.Contains(msgs, "what happened") {
		t.Errorf("the resumed request lacks the lost notification or the prompt:\n%s", msgs)
	}
}

// lockedBuffer is a buffer a child process writes while the test reads.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Issue 18 acceptance: a cron job created in one step fires on the next
// idle tick, and the print run renders the turn it starts (spec 06
// §1.6.5 step 2). The wall clock is KIMI_CRON_CLOCK's file, moved past
// the fire time once the run waits for it.
func TestE2ECronJobFiresOnTheNextIdleTick(t *testing.T) {
	c := newCLI(t)
	clock := filepath.Join(c.root, "clock")
	if err := os.WriteFile(clock, []byte("2026-01-05T10:00:30Z\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.env["TZ"] = "UTC"
	c.env["KIMI_CRON_CLOCK"] = "file:" + clock
	c.env["KIMI_CRON_NO_JITTER"] = "1"
	srv := c.fake("openai", llmtest.ToolCall("call_1", "CronCreate", `{"cron":"* * * * *","prompt":"check the build","recurring":false}`),
		llmtest.Text("Scheduled."), llmtest.Text("The build is fine."))
	cmd := c.command(c.dir, "-p", "check the build in a minute", "--output-format", "stream-json")
	var out, errw lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &errw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(errw.String(), "Waiting for the scheduled prompt due at 2026-01-05T10:01:00Z.") {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			<-done
			t.Fatalf("the run never waited for the job:\n%s%s", out.String(), errw.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := os.WriteFile(clock, []byte("2026-01-05T10:01:05Z\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("kimigo: %v\n%s%s", err, out.String(), errw.String())
		}
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("the job never fired:\n%s%s", out.String(), errw.String())
	}
	got := strings.Join(lineTypes(jsonLines(t, out.String())), " ")
	if want := "system.version assistant tool assistant cron.fired assistant session.resume_hint result"; got != want {
		t.Errorf("stdout lines\n got %s\nwant %s\n%s", got, want, out.String())
	}
	if n := len(srv.Requests()); n != 3 {
		t.Fatalf("%d requests; want 3", n)
	}
	if msgs := string(body(t, srv.Request(2))["messages"]); !strings.Contains(msgs, "check the build") {
		t.Errorf("the fired prompt is not in the third request:\n%s", msgs)
	}
}
