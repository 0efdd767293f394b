package profile

import (
	"strings"
	"testing"
	"time"

	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/osenv/osenvtest"
)

// testGitDeadline replaces the git probe's deadline where a test needs
// git's whole answer: a loaded machine must not turn it into a slow
// repository.
const testGitDeadline = time.Minute

// slowGitDeadline is the deadline of the tests of a slow repository: the
// fixture's status sleeps a minute and always misses it, while log and
// remote must meet it on a loaded machine.
const slowGitDeadline = 2 * time.Second

// testProbe asks git with no cache and testGitDeadline.
var testProbe = gitProbe{deadline: testGitDeadline}

// fixedNow is the clock of every rendered fixture.
var fixedNow = time.Date(2025, 6, 2, 8, 5, 12, 345e6, time.UTC)

// smallRepo is a small Go repository in /ws with one AGENTS.md.
func smallRepo() map[string]string {
	return map[string]string{
		"/ws/.git/HEAD":                  "ref: refs/heads/main\n",
		"/ws/.github/workflows/ci.yml":   "on: push\n",
		"/ws/go.mod":                     "module example.com/shop\n",
		"/ws/main.go":                    "package main\n",
		"/ws/README.md":                  "# shop\n",
		"/ws/AGENTS.md":                  "Run `go test ./...` before you finish. Keep handlers thin.\n",
		"/ws/internal/cart/cart.go":      "package cart\n",
		"/ws/internal/cart/cart_test.go": "package cart\n",
		"/ws/internal/store/store.go":    "package store\n",
		"/ws/cmd/shop/main.go":           "package main\n",
		"/ws/docs/design.md":             "# design\n",
	}
}

// gitScript answers git calls like a repository on branch main with one
// modified file and two commits.
func gitScript(cmd osenv.Cmd) osenvtest.Result {
	args := strings.Join(cmd.Args, " ")
	switch {
	case strings.Contains(args, " status "):
		return osenvtest.Result{Stdout: "## main...origin/main\n M internal/cart/cart.go\n"}
	case strings.Contains(args, " log "):
		return osenvtest.Result{Stdout: "a1b2c3d Add cart totals\n9f8e7d6 Initial commit\n"}
	case strings.Contains(args, " remote "):
		return osenvtest.Result{Stdout: "https://token:secret@github.com/example/shop.git\n"}
	}
	return osenvtest.Result{ExitCode: 1, Stderr: "unexpected git call"}
}

// newEnv returns an in-memory environment with files and the git script.
func newEnv(t *testing.T, files map[string]string) *osenvtest.Env {
	t.Helper()
	return osenvtest.New(osenvtest.Options{Cwd: "/ws", Home: "/home/user", Files: files, Run: gitScript})
}

// prepare gathers a context in /ws with a fixed clock and OS.
func prepare(t *testing.T, env osenv.Env, workDir string, addDirs ...string) (PromptContext, []Warning) {
	t.Helper()
	home := "/home/user/.kimigo"
	pc, warns, err := prepareContext(t.Context(), env, workDir, addDirs, home, gitProbe{deadline: testGitDeadline, cacheDir: gitCacheDir(home)})
	if err != nil {
		t.Fatalf("PrepareContext: %v", err)
	}
	pc.Now, pc.OS = fixedNow, "Linux"
	return pc, warns
}

func builtin(t *testing.T) *Catalog {
	t.Helper()
	c, err := Builtin()
	if err != nil {
		t.Fatalf("Builtin: %v", err)
	}
	return c
}

func render(t *testing.T, c *Catalog, name string, pc PromptContext) string {
	t.Helper()
	p, err := c.Resolve(name)
	if err != nil {
		t.Fatalf("Resolve(%q): %v", name, err)
	}
	got, err := p.SystemPrompt(pc)
	if err != nil {
		t.Fatalf("SystemPrompt(%q): %v", name, err)
	}
	return got
}
