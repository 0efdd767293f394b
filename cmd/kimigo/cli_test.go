package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kimigo/kimigo/llm/llmtest"
)

// binary is the kimigo executable the end-to-end tests run, built once by
// TestMain into a temporary directory.
var binary string

func TestMain(m *testing.M) {
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	dir, err := os.MkdirTemp("", "kimigo-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	binary = filepath.Join(dir, "kimigo")
	args := []string{"build", "-o", binary}
	if raceBuild {
		args = append(args, "-race")
	}
	cmd := exec.Command("go", append(args, ".")...)
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: go build: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}

// cli runs the kimigo binary in a work dir with a data root of its own and
// an environment built from nothing: no developer KIMI_* variables, no real
// HOME. PATH is kept so Bash commands find their tools.
type cli struct {
	t    *testing.T
	root string // parent of home, work and the user home
	home string // KIMIGO_HOME
	dir  string // the work dir
	env  map[string]string
}

func newCLI(t *testing.T) *cli {
	t.Helper()
	root := t.TempDir()
	c := &cli{t: t, root: root, home: filepath.Join(root, "kimigo"), dir: filepath.Join(root, "work"),
		env: map[string]string{"PATH": os.Getenv("PATH"), "HOME": filepath.Join(root, "user"),
			// A race-enabled child reports races with exit code 66, and
			// exits without the detector's default one-second pause.
			"GORACE": "atexit_sleep_ms=0 exitcode=66"}}
	c.env["KIMIGO_HOME"] = c.home
	for _, d := range []string{c.dir, c.env["HOME"]} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// providerKinds are the provider types the end-to-end tests cover, as
// KIMI_MODEL_PROVIDER_TYPE names them.
func providerKinds() []string { return []string{"kimi", "openai", "anthropic"} }

// fake starts the loopback fake service that speaks kind's wire and points
// the KIMI_MODEL_* variables at it.
func (c *cli) fake(kind string, replies ...llmtest.Reply) *llmtest.Server {
	c.t.Helper()
	var srv *llmtest.Server
	base := ""
	switch kind {
	case "kimi":
		srv = llmtest.FakeChatCompletionsWith(c.t, llmtest.ChatOptions{Flavour: llmtest.ChatKimi}, replies...)
		base = llmtest.ChatBaseURL(srv)
	case "openai":
		srv = llmtest.FakeChatCompletions(c.t, replies...)
		base = llmtest.ChatBaseURL(srv)
	case "anthropic":
		srv = llmtest.FakeAnthropic(c.t, replies...)
		base = srv.URL
	default:
		c.t.Fatalf("unknown provider kind %q", kind)
	}
	c.env["KIMI_MODEL_NAME"] = "fake-model"
	c.env["KIMI_MODEL_API_KEY"] = "test-key"
	c.env["KIMI_MODEL_PROVIDER_TYPE"] = kind
	c.env["KIMI_MODEL_BASE_URL"] = base
	c.env["KIMI_MODEL_MAX_CONTEXT_SIZE"] = "131072"
	return srv
}

// result is how one run ended.
type result struct {
	stdout, stderr string
	code           int
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\n--- stdout\n%s--- stderr\n%s", r.code, r.stdout, r.stderr)
}

func (c *cli) environ() []string {
	var out []string
	for k, v := range c.env {
		out = append(out, k+"="+v)
	}
	return out
}

func (c *cli) command(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command(binary, args...)
	cmd.Dir, cmd.Env = dir, c.environ()
	// A grandchild that keeps the output pipes open (a shell's background
	// job) must not hold Wait forever once kimigo itself has exited.
	cmd.WaitDelay = 10 * time.Second
	return cmd
}

// runLimit bounds one end-to-end run; past it the run gets SIGQUIT, so
// the failure shows kimigo's goroutines instead of a package timeout.
const runLimit = 3 * time.Minute

// wait waits for a started run, at most runLimit.
func (c *cli) wait(cmd *exec.Cmd, args []string, stdout, stderr *bytes.Buffer) error {
	c.t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(runLimit):
		cmd.Process.Signal(syscall.SIGQUIT)
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		c.t.Fatalf("kimigo %q still ran after %v; its stdout:\n%s\nits stderr:\n%s", args, runLimit, stdout.String(), stderr.String())
		return nil
	}
}

// run runs kimigo with args in the work dir and waits for it.
func (c *cli) run(args ...string) result {
	c.t.Helper()
	return c.runIn(c.dir, "", args...)
}

// runIn runs kimigo in dir with stdin.
func (c *cli) runIn(dir, stdin string, args ...string) result {
	c.t.Helper()
	cmd := c.command(dir, args...)
	var out, errw bytes.Buffer
	cmd.Stdout, cmd.Stderr, cmd.Stdin = &out, &errw, strings.NewReader(stdin)
	if err := cmd.Start(); err != nil {
		c.t.Fatalf("run kimigo %q: %v", args, err)
	}
	err := c.wait(cmd, args, &out, &errw)
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		c.t.Fatalf("run kimigo %q: %v", args, err)
	}
	return result{stdout: out.String(), stderr: errw.String(), code: cmd.ProcessState.ExitCode()}
}

// mustRun runs kimigo and fails the test unless it exits 0.
func (c *cli) mustRun(args ...string) result {
	c.t.Helper()
	r := c.run(args...)
	if r.code != 0 {
		c.t.Fatalf("kimigo %q failed:\n%v", args, r)
	}
	return r
}

// interrupt starts kimigo, waits until ready reports true, sends sig and
// returns how the process ended.
func (c *cli) interrupt(sig syscall.Signal, ready func() bool, args ...string) result {
	c.t.Helper()
	cmd := c.command(c.dir, args...)
	var out, errw bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errw
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for !ready() {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			c.t.Fatalf("kimigo %q never got ready:\n%s%s", args, out.String(), errw.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := cmd.Process.Signal(sig); err != nil {
		c.t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		<-done
		c.t.Fatalf("kimigo %q did not exit after %v", args, sig)
	}
	return result{stdout: out.String(), stderr: errw.String(), code: cmd.ProcessState.ExitCode()}
}

// write creates a file in the work dir.
func (c *cli) write(name, content string) {
	c.t.Helper()
	p := filepath.Join(c.dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		c.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		c.t.Fatal(err)
	}
}

// resumeHint is the session id in a text run's resume hint.
func resumeHint(t *testing.T, stderr string) string {
	t.Helper()
	const prefix = "To resume this session: kimigo -r "
	for line := range strings.SplitSeq(stderr, "\n") {
		if rest, ok := strings.CutPrefix(line, prefix); ok {
			id, _, _ := strings.Cut(rest, " ")
			return id
		}
	}
	t.Fatalf("no resume hint in stderr:\n%s", stderr)
	return ""
}

// tree lists every file below dir with its content, to prove a run
// changed nothing.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out[p] = string(b)
		return err
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return out
}
