package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kimigo/kimigo/llm/llmtest"
)

// tmuxPane runs the kimigo binary in a pane of a tmux server of its own
// and reads the pane as a user sees it (capture-pane). After kimigo exits
// the pane runs `stty -a`, so a test can read the line discipline kimigo
// left behind.
type tmuxPane struct {
	t      *testing.T
	socket string
	target string
}

// inTmux starts kimigo with args in the work dir, in a 100×30 pane.
func (c *cli) inTmux(args ...string) *tmuxPane {
	c.t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		c.t.Skip("tmux is not installed (.ci/run installs it)")
	}
	p := &tmuxPane{t: c.t, socket: fmt.Sprintf("kimigo-e2e-%d-%d", os.Getpid(), time.Now().UnixNano()), target: "kg"}
	var env []string
	for k, v := range c.env {
		env = append(env, k+"="+shellQuote(v))
	}
	sort.Strings(env)
	env = append(env, "TERM=xterm-256color")
	var quoted []string
	for _, a := range args {
		quoted = append(quoted, shellQuote(a))
	}
	script := fmt.Sprintf("cd %s && env -i %s %s %s; echo \"KIMIGO-EXIT=$?\"; stty -a; echo STTY-END; exec sleep 600",
		shellQuote(c.dir), strings.Join(env, " "), shellQuote(binary), strings.Join(quoted, " "))
	p.tmux("-f", "/dev/null", "new-session", "-d", "-s", p.target, "-x", "100", "-y", "30", "sh", "-c", script)
	c.t.Cleanup(func() { exec.Command("tmux", "-L", p.socket, "kill-server").Run() })
	return p
}

func (p *tmuxPane) tmux(args ...string) string {
	p.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", p.socket}, args...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %q: %v\n%s", args, err, out)
	}
	return string(out)
}

// keys sends tmux key names (Enter, Escape, C-c) or text.
func (p *tmuxPane) keys(keys ...string) {
	p.t.Helper()
	p.tmux(append([]string{"send-keys", "-t", p.target}, keys...)...)
}

// text types s literally.
func (p *tmuxPane) text(s string) {
	p.t.Helper()
	p.tmux("send-keys", "-t", p.target, "-l", s)
}

// screen is the pane's visible text and its history.
func (p *tmuxPane) screen() string {
	p.t.Helper()
	return p.tmux("capture-pane", "-p", "-J", "-S", "-200", "-t", p.target)
}

// waitTimeout bounds every wait for the pane; only a failing test waits
// that long (the race detector on two busy cores is slow, not stuck).
const waitTimeout = 60 * time.Second

// waitFor polls the pane until it shows s; it fails after waitTimeout.
func (p *tmuxPane) waitFor(s string) string {
	p.t.Helper()
	scr, ok := p.poll(s, waitTimeout)
	if !ok {
		p.t.Fatalf("the pane never showed %q:\n%s", s, scr)
	}
	return scr
}

// poll reads the pane until it shows s or d passes, and returns the last
// screen read and whether s was on it.
func (p *tmuxPane) poll(s string, d time.Duration) (string, bool) {
	p.t.Helper()
	deadline := time.Now().Add(d)
	for {
		scr := p.screen()
		if strings.Contains(scr, s) {
			return scr, true
		}
		if time.Now().After(deadline) {
			return scr, false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// leave exits with key pressed twice (C-c or C-d while idle with an
// empty editor, once the turn ended). The second press counts within 1.5 s of the first; on
// a machine too busy for that it only re-arms, so leave presses again
// (never after kimigo exited: the pane's shell would take the key).
func (p *tmuxPane) leave(key string) {
	p.t.Helper()
	hint := map[string]string{"C-c": "Press Ctrl+C again to exit", "C-d": "Press Ctrl+D again to exit"}[key]
	p.waitFor("> Type a message · /") // idle: a key would cancel a turn
	p.keys(key)
	p.waitFor(hint)
	for range 5 {
		p.keys(key)
		if _, ok := p.poll("KIMIGO-EXIT=", 10*time.Second); ok {
			return
		}
	}
	p.t.Fatalf("%s pressed six times did not exit:\n%s", key, p.screen())
}

// exited waits for kimigo's exit code and checks the terminal it left:
// the cursor shown, canonical input and echo back on.
func (p *tmuxPane) exited() (code int, screen string) {
	p.t.Helper()
	p.waitFor("KIMIGO-EXIT=")
	screen = p.waitFor("STTY-END") // stty's whole report, not its first line
	m := regexp.MustCompile(`KIMIGO-EXIT=(\d+)`).FindStringSubmatch(screen)
	fmt.Sscan(m[1], &code)
	stty := screen[strings.Index(screen, "KIMIGO-EXIT="):]
	for _, flag := range []string{"icanon", "echo", "isig", "icrnl", "opost"} {
		if !regexp.MustCompile(`(^|\s)` + flag + `(\s|$)`).MatchString(stty) {
			p.t.Errorf("the terminal was left with -%s:\n%s", flag, stty)
		}
	}
	if c := strings.TrimSpace(p.tmux("display", "-p", "-t", p.target, "#{cursor_flag}")); c != "1" {
		p.t.Errorf("the cursor was left hidden (cursor_flag=%s)", c)
	}
	return code, screen
}

// pid is the process id of kimigo in the pane.
func (p *tmuxPane) pid() int {
	p.t.Helper()
	shell := strings.TrimSpace(p.tmux("display", "-p", "-t", p.target, "#{pane_pid}"))
	out, err := exec.Command("pgrep", "-P", shell).Output()
	if err != nil {
		p.t.Fatalf("no kimigo under the pane's shell %s: %v", shell, err)
	}
	var pid int
	fmt.Sscan(strings.Fields(string(out))[0], &pid)
	return pid
}

func TestTUIStartPromptAndExit(t *testing.T) {
	c := newCLI(t)
	answer := "The answer streams in pieces, one after another, until it is whole."
	c.fake("openai", llmtest.Text(answer).WithFault(llmtest.Fault{EventDelay: 20 * time.Millisecond}))
	p := c.inTmux()
	scr := p.waitFor("context:")
	for _, want := range []string{"kimigo", "fake-model", "> Type a message"} {
		if !strings.Contains(scr, want) {
			t.Errorf("start-up screen lacks %q:\n%s", want, scr)
		}
	}
	p.text("hello there")
	p.keys("Enter")
	p.waitFor("✨ hello there")
	p.waitFor(answer)
	scr = p.waitFor("> Type a message · /") // idle again: the turn ended
	if strings.Count(scr, answer) != 1 {
		t.Errorf("the answer shows %d times:\n%s", strings.Count(scr, answer), scr)
	}
	p.leave("C-c")
	code, scr := p.exited()
	if code != 0 || !strings.Contains(scr, "Bye!") || !strings.Contains(scr, "To resume this session: kimigo -r session_") {
		t.Errorf("exit %d:\n%s", code, scr)
	}
}

func TestTUIApprovalInManualMode(t *testing.T) {
	c := newCLI(t)
	c.fake("openai", llmtest.ToolCall("call_1", "Write", `{"path":"a.txt","content":"from the model\n"}`), llmtest.Text("Wrote it."))
	p := c.inTmux("write a file")
	scr := p.waitFor("Reject with feedback")
	for _, want := range []string{"1 Approve once", "2 Approve for this session", "a.txt", "from the model"} {
		if !strings.Contains(scr, want) {
			t.Errorf("the approval panel lacks %q:\n%s", want, scr)
		}
	}
	if _, err := os.Stat(filepath.Join(c.dir, "a.txt")); err == nil {
		t.Error("a.txt was written before the approval")
	}
	p.keys("1")
	p.waitFor("Wrote it.")
	if b, err := os.ReadFile(filepath.Join(c.dir, "a.txt")); err != nil || string(b) != "from the model\n" {
		t.Errorf("a.txt = %q, %v", b, err)
	}
	p.waitFor("Used Write (a.txt)")
	p.text("/export out.md")
	p.keys("Enter")
	p.waitFor("Exported 4 messages")
	if b, err := os.ReadFile(filepath.Join(c.dir, "out.md")); err != nil || !strings.Contains(string(b), "#### Tool Call: Write (`a.txt`)") {
		t.Errorf("out.md = %.500s, %v", b, err)
	}
	p.text("/exit")
	p.keys("Enter") // the completion menu takes it: /exit runs
	if code, _ := p.exited(); code != 0 {
		t.Errorf("/exit: exit %d", code)
	}
}

func TestTUIQueueEscResizeAndSignals(t *testing.T) {
	c := newCLI(t)
	gate := llmtest.NewGate()
	srv := c.fake("openai",
		llmtest.Text("first answer").WithFault(llmtest.Fault{Hold: gate}),
		llmtest.Text("second answer"),
		llmtest.ToolCall("call_1", "Bash", `{"command":"sleep 41.25"}`),
		llmtest.Text("after the interruption"))
	p := c.inTmux("--yolo", "first question")
	p.waitFor("✨ first question")
	<-gate.Reached()
	p.text("second question")
	p.keys("Enter")
	p.waitFor("↳ second question")
	gate.Release()
	p.waitFor("first answer")
	p.waitFor("second answer")
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests; want the queued prompt sent after the first turn", n)
	}

	// Esc during a long tool.
	p.text("run the long command")
	p.keys("Enter")
	p.waitFor("Running a command")
	p.keys("Escape")
	p.waitFor("Interrupted.")
	for deadline := time.Now().Add(waitTimeout); ; time.Sleep(20 * time.Millisecond) {
		out, _ := exec.Command("pgrep", "-f", `sleep 41\.25`).Output()
		if strings.TrimSpace(string(out)) == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the command still runs after Esc: %s", out)
		}
	}

	// Resize: the live region is drawn once, at the new width.
	p.tmux("resize-window", "-t", p.target, "-x", "60", "-y", "20")
	p.text("x")
	scr := p.waitFor("> x")
	if n := strings.Count(scr, "context:"); n != 1 {
		t.Errorf("the footer shows %d times after the resize:\n%s", n, scr)
	}
	lines := strings.Split(strings.TrimRight(scr, "\n"), "\n")
	for _, l := range lines[max(0, len(lines)-6):] { // the live region: editor and footer
		if w := len([]rune(l)); w > 60 {
			t.Errorf("a live line is %d cells wide after narrowing to 60: %q", w, l)
		}
	}

	// SIGTERM ends it with the terminal restored.
	exec.Command("kill", "-TERM", fmt.Sprint(p.pid())).Run()
	if code, scr := p.exited(); code != 143 {
		t.Errorf("SIGTERM: exit %d\n%s", code, scr)
	}
}

func TestTUIHangup(t *testing.T) {
	c := newCLI(t)
	c.fake("openai")
	p := c.inTmux()
	p.waitFor("context:")
	exec.Command("kill", "-HUP", fmt.Sprint(p.pid())).Run()
	if code, scr := p.exited(); code != 129 {
		t.Errorf("SIGHUP: exit %d\n%s", code, scr)
	}
}

// TestTUIScenario41 is spec 06 §10 scenario 41 through the real session:
// "approve for this session" lets the next Write of the same rule run
// without a panel, a recursive delete is labelled, and Esc rejects with
// the text the model reads.
func TestTUIScenario41(t *testing.T) {
	c := newCLI(t)
	srv := c.fake("openai",
		llmtest.ToolCall("call_1", "Write", `{"path":"a.txt","content":"a\n"}`), llmtest.Text("Reply number one."),
		llmtest.ToolCall("call_2", "Write", `{"path":"a.txt","content":"again\n"}`), llmtest.Text("Reply number two."),
		llmtest.ToolCall("call_3", "Bash", `{"command":"sudo rm -rf ./build"}`), llmtest.Text("Reply number three."))
	p := c.inTmux("write a")
	p.waitFor("2 Approve for this session")
	p.keys("2")
	p.waitFor("Reply number one.")
	p.text("write a again")
	p.keys("Enter")
	p.waitFor("Reply number two.") // no key was pressed: no panel opened
	if b, err := os.ReadFile(filepath.Join(c.dir, "a.txt")); err != nil || string(b) != "again\n" {
		t.Errorf("a.txt = %q, %v", b, err)
	}
	p.text("clean up")
	p.keys("Enter")
	p.waitFor("recursive delete")
	p.keys("Escape")
	p.waitFor("Reply number three.")
	reqs := srv.Requests()
	if last := string(reqs[len(reqs)-1].Body); !strings.Contains(last, "rejected") {
		t.Errorf("the model was not told of the rejection:\n%.2000s", last)
	}
	p.leave("C-d")
	if code, _ := p.exited(); code != 0 {
		t.Errorf("exit %d", code)
	}
}

// TestTUICtrlCCancelsAStreamingTurn is the streaming half of spec 06 §10
// scenario 37 through the real session.
func TestTUICtrlCCancelsAStreamingTurn(t *testing.T) {
	c := newCLI(t)
	gate := llmtest.NewGate()
	c.fake("openai", llmtest.Text("never finished").WithFault(llmtest.Fault{Hold: gate}), llmtest.Text("after"))
	p := c.inTmux("start")
	<-gate.Reached()
	p.keys("C-c")
	p.waitFor("Interrupted.")
	gate.Release()
	p.text("again")
	p.keys("Enter")
	p.waitFor("after")
	p.leave("C-c")
	if code, _ := p.exited(); code != 0 {
		t.Errorf("exit %d", code)
	}
}

// A session that does not open ends the interface with the startup
// error, after the terminal is restored: an unknown id, and a session of
// another directory with the command that resumes it.
func TestTUIStartFailures(t *testing.T) {
	c := newCLI(t)
	c.fake("openai", llmtest.Text("hi"))
	id := resumeHint(t, c.mustRun("-p", "first").stderr)
	p := c.inTmux("-r", "session_nope")
	code, scr := p.exited()
	if code != 1 || !strings.Contains(scr, `Session "session_nope" not found.`) {
		t.Errorf("unknown id: exit %d\n%s", code, scr)
	}
	other := filepath.Join(c.root, "other")
	os.MkdirAll(other, 0o755)
	c.dir = other
	p = c.inTmux("-r", id)
	code, scr = p.exited()
	if code != 1 || !strings.Contains(scr, "was created under a different directory") || !strings.Contains(scr, "kimigo -r "+id) {
		t.Errorf("another directory: exit %d\n%s", code, scr)
	}
}

// -c opens the directory's latest session with its last turns shown
// again; -r without an id opens the session picker.
func TestTUIContinueAndPicker(t *testing.T) {
	c := newCLI(t)
	c.fake("openai", llmtest.Text("the first answer"), llmtest.Text("the second answer"))
	c.mustRun("-p", "the first question")
	p := c.inTmux("-c")
	scr := p.waitFor("── resumed ──")
	for _, want := range []string{"✨ the first question", "● the first answer"} {
		if !strings.Contains(scr, want) {
			t.Errorf("-c does not show %q:\n%s", want, scr)
		}
	}
	p.leave("C-c")
	p.exited()

	p = c.inTmux("-r")
	p.waitFor("Sessions")
	p.waitFor("the first question")
	p.keys("Enter")
	p.waitFor("── resumed ──")
	p.leave("C-d")
	if code, _ := p.exited(); code != 0 {
		t.Errorf("exit %d", code)
	}
}

// /compact runs a compaction and shows its block with the token counts.
func TestTUICompact(t *testing.T) {
	c := newCLI(t)
	c.fake("openai", llmtest.Text("an answer to compact"), llmtest.Text("The user asked a question and got an answer."))
	p := c.inTmux("a question")
	p.waitFor("an answer to compact")
	p.waitFor("Type a message · /")
	p.text("/compact")
	p.keys("Enter")
	p.waitFor("Compacted")
	p.leave("C-c")
	if code, _ := p.exited(); code != 0 {
		t.Errorf("exit %d", code)
	}
}

// TestTUIBtw: /btw while the main turn waits for the model. The side
// answer shows in its panel, the request behind it carries the main
// conversation, Esc dismisses it without interrupting the turn, and the
// main answer arrives afterwards.
func TestTUIBtw(t *testing.T) {
	c := newCLI(t)
	gate := llmtest.NewGate()
	srv := c.fake("openai",
		llmtest.Text("The main answer.").WithFault(llmtest.Fault{Hold: gate}),
		llmtest.Text("Aside: the project builds with make."))
	p := c.inTmux("plan the release")
	p.waitFor("✨ plan the release")
	<-gate.Reached()
	p.text("/btw how do we build?")
	p.keys("Enter")
	scr := p.waitFor("Aside: the project builds with make.")
	for _, want := range []string{"btw · side question", "? how do we build?", "esc dismisses"} {
		if !strings.Contains(scr, want) {
			t.Errorf("the side panel lacks %q:\n%s", want, scr)
		}
	}
	if side := string(srv.Request(1).Body); !strings.Contains(side, "plan the release") ||
		!strings.Contains(side, "side conversation") || !strings.Contains(side, "how do we build?") {
		t.Errorf("the side request lacks the conversation, the reminder or the question:\n%.3000s", side)
	}
	p.keys("Escape")
	for deadline := time.Now().Add(waitTimeout); strings.Contains(p.screen(), "btw · side question"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("Esc did not dismiss the side panel:\n%s", p.screen())
		}
	}
	gate.Release()
	scr = p.waitFor("The main answer.")
	if strings.Contains(scr, "Interrupted") || strings.Contains(scr, "Aside:") {
		t.Errorf("the main turn was interrupted, or the side answer reached the transcript:\n%s", scr)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests; want the main one and the side one", n)
	}
	p.leave("C-c")
	if code, _ := p.exited(); code != 0 {
		t.Errorf("exit %d", code)
	}
}

// /mcp and /hooks through the built binary show the session's MCP
// servers (a failed one with its reason, also announced at start and
// still failing when reconnected, a disabled one) and the hooks
// of config.toml; /reload reads a changed config.toml and reopens the
// session, whose /hooks then shows the new hook; /add-dir adds a
// directory and reopens the session again.
func TestTUIMCPHooksAndReload(t *testing.T) {
	c := newCLI(t)
	mcpJSON(t, filepath.Join(c.home, "mcp.json"), map[string]any{
		"gone": map[string]any{"command": filepath.Join(c.root, "no-such-server")},
		"off":  map[string]any{"command": "true", "enabled": false},
	})
	hook := "[[hooks]]\nevent = \"Stop\"\ncommand = \"true\"\n"
	c.write("../kimigo/config.toml", hook)
	c.fake("openai", llmtest.Text("Hello."))
	p := c.inTmux()
	p.waitFor("context:")
	p.waitFor("MCP server gone failed:")
	p.text("/mcp")
	p.keys("Enter")
	scr := p.waitFor("MCP servers (2)")
	for _, want := range []string{"gone  failed · stdio · user", "no-such-server", "off  disabled · stdio · user"} {
		if !strings.Contains(scr, want) {
			t.Errorf("/mcp lacks %q:\n%s", want, scr)
		}
	}
	p.text("/mcp reconnect gone")
	p.keys("Enter")
	p.waitFor("MCP server gone did not reconnect")
	p.text("/hooks")
	p.keys("Enter")
	scr = p.waitFor("Hooks (1)")
	if !strings.Contains(scr, "[*] 30s: true") {
		t.Errorf("/hooks:\n%s", scr)
	}

	c.write("../kimigo/config.toml", hook+"\n[[hooks]]\nevent = \"PreToolUse\"\nmatcher = \"Bash\"\ncommand = \"echo checked\"\n")
	p.text("/reload")
	p.keys("Enter")
	p.waitFor("Reloaded config.toml and tui.toml.")
	p.text("/hooks")
	p.keys("Enter")
	scr = p.waitFor("Hooks (2)")
	if !strings.Contains(scr, "[Bash] 30s: echo checked") {
		t.Errorf("/hooks after /reload:\n%s", scr)
	}
	extra := filepath.Join(c.root, "extra")
	if err := os.Mkdir(extra, 0o755); err != nil {
		t.Fatal(err)
	}
	p.text("/add-dir " + extra + "/") // an empty folder: nothing to complete
	p.keys("Enter")
	p.waitFor("Remember for this project")
	p.keys("1") // this session only
	p.waitFor("Added " + extra + ".")
	p.text("/add-dir list")
	p.keys("Enter")
	p.waitFor("Add one with /add-dir <path>.")
	p.text("hello")
	p.keys("Enter")
	p.waitFor("Hello.")
	p.leave("C-c")
	if code, scr := p.exited(); code != 0 || strings.Count(scr, "To resume this session") != 1 {
		t.Errorf("exit %d:\n%s", code, scr)
	}
}
