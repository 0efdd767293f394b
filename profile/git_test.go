package profile

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/osenv/osenvtest"
)

func TestGatherGit(t *testing.T) {
	env := newEnv(t, smallRepo())
	g := gatherGit(t.Context(), env, "/ws", "/ws", testProbe)
	want := GitState{
		Repo: true, WorkDir: "/ws", Branch: "main",
		Remote: "https://github.com/example/shop.git", Project: "example/shop",
		Dirty: []string{" M internal/cart/cart.go"}, DirtyCount: 1,
		Commits: []string{"a1b2c3d Add cart totals", "9f8e7d6 Initial commit"},
	}
	if diff := cmp.Diff(want, g); diff != "" {
		t.Errorf("GitState (-want +got):\n%s", diff)
	}
	for _, c := range env.Runner().Commands() {
		if c.Args[0] != "git" || c.Dir != "/ws" || !slices.Contains(c.Env, "GIT_OPTIONAL_LOCKS=0") {
			t.Errorf("git ran as %v in %q", c.Args, c.Dir)
		}
	}
}

// TestGitBlock is the <git-context> block of spec 05 §5.4 (scenario 55's
// shapes): inside a repository, outside one, and with nothing known.
func TestGitBlock(t *testing.T) {
	g := gatherGit(t.Context(), newEnv(t, smallRepo()), "/ws", "/ws", testProbe)
	want := `<git-context>
Working directory: /ws
Remote: https://github.com/example/shop.git
Project: example/shop
Branch: main
Dirty files (1):
   M internal/cart/cart.go
Recent commits:
  a1b2c3d Add cart totals
  9f8e7d6 Initial commit
</git-context>`
	if diff := cmp.Diff(want, g.Block()); diff != "" {
		t.Errorf("block (-want +got):\n%s", diff)
	}
	if got := (GitState{NotARepo: true}).Block(); got != `<git-context status="unavailable" reason="not-a-repo"/>` {
		t.Errorf("outside a repository: %q", got)
	}
	if got := (GitState{}).Block(); got != "" {
		t.Errorf("unknown state: %q, want no block", got)
	}
}

func TestGitManyDirtyFiles(t *testing.T) {
	var status strings.Builder
	status.WriteString("## HEAD (no branch)\n")
	for i := range 25 {
		fmt.Fprintf(&status, "?? f%02d\n", i)
	}
	env := osenvtest.New(osenvtest.Options{Files: map[string]string{"/ws/.git/HEAD": ""}, Run: func(cmd osenv.Cmd) osenvtest.Result {
		if slices.Contains(cmd.Args, "status") {
			return osenvtest.Result{Stdout: status.String()}
		}
		return osenvtest.Result{ExitCode: 128, Stderr: "fatal: no such thing"}
	}})
	g := gatherGit(t.Context(), env, "/ws", "/ws", testProbe)
	if g.Branch != "HEAD (detached)" || g.DirtyCount != 25 || len(g.Dirty) != 20 || g.Remote != "" || g.Commits != nil {
		t.Fatalf("state = %+v", g)
	}
	if b := g.Block(); !strings.Contains(b, "Dirty files (25):\n") || !strings.Contains(b, "  ?? f19\n  ... and 5 more\n") || strings.Contains(b, "Remote:") {
		t.Errorf("block:\n%s", b)
	}
}

func TestGitAbsentOrFailing(t *testing.T) {
	t.Run("no .git runs no git", func(t *testing.T) {
		env := osenvtest.New(osenvtest.Options{Run: gitScript})
		g := gatherGit(t.Context(), env, "/ws", "/ws", testProbe)
		if !g.NotARepo || g.Repo || len(env.Runner().Commands()) != 0 {
			t.Errorf("state %+v after %d git calls", g, len(env.Runner().Commands()))
		}
	})
	t.Run("git missing", func(t *testing.T) {
		env := osenvtest.New(osenvtest.Options{Files: map[string]string{"/ws/.git/HEAD": ""},
			Run: func(osenv.Cmd) osenvtest.Result {
				return osenvtest.Result{StartErr: errors.New("exec: \"git\": not found")}
			}})
		g := gatherGit(t.Context(), env, "/ws", "/ws", testProbe)
		if diff := cmp.Diff(GitState{}, g); diff != "" {
			t.Errorf("state (-want +got):\n%s", diff)
		}
		pc, _ := prepare(t, env, "/ws")
		if got := render(t, builtin(t), "", pc); strings.Contains(got, "git repository") {
			t.Error("the prompt mentions git although git is missing")
		}
	})
	t.Run("not a repository", func(t *testing.T) {
		env := osenvtest.New(osenvtest.Options{Files: map[string]string{"/ws/.git": "gitdir: /gone"},
			Run: func(osenv.Cmd) osenvtest.Result {
				return osenvtest.Result{ExitCode: 128, Stderr: "fatal: not a git repository (or any of the parent directories): .git"}
			}})
		if g := gatherGit(t.Context(), env, "/ws", "/ws", testProbe); !g.NotARepo {
			t.Errorf("state = %+v, want NotARepo", g)
		}
	})
	t.Run("timeout kills git", func(t *testing.T) {
		env := osenvtest.New(osenvtest.Options{Files: map[string]string{"/ws/.git/HEAD": ""},
			Run: func(osenv.Cmd) osenvtest.Result { return osenvtest.Result{Block: true} }})
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
		defer cancel()
		if g := gatherGit(ctx, env, "/ws", "/ws", testProbe); g.Repo || g.NotARepo {
			t.Errorf("state = %+v, want unknown", g)
		}
		if len(env.Runner().Signals()) == 0 {
			t.Error("the hanging git was not killed")
		}
	})
}

// TestGitLocal runs the real git through osenv.Local in a fresh repository.
func TestGitLocal(t *testing.T) {
	dir := t.TempDir()
	env := osenv.NewLocal(osenv.LocalOptions{Cwd: dir, Home: dir, Environ: []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + dir}})
	if _, err := runGit(t.Context(), env, dir, "version"); err != nil {
		t.Skipf("no git: %v", err)
	}
	if out, err := runGit(t.Context(), env, dir, "init", "-q", "-b", "trunk"); err != nil || out.code != 0 {
		t.Fatalf("git init: %v %+v", err, out)
	}
	if err := osenv.WriteFileAtomic(env, dir+"/a.txt", []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pc, _, err := prepareContext(t.Context(), env, dir, nil, "", testProbe)
	if err != nil {
		t.Fatal(err)
	}
	want := GitState{Repo: true, WorkDir: dir, Branch: "trunk", Dirty: []string{"?? a.txt"}, DirtyCount: 1}
	if diff := cmp.Diff(want, pc.Git); diff != "" {
		t.Errorf("GitState (-want +got):\n%s", diff)
	}
	if !strings.Contains(pc.WorkDirListing, "└── a.txt") {
		t.Errorf("listing = %q", pc.WorkDirListing)
	}
}

func TestParseRemote(t *testing.T) {
	for _, tt := range []struct{ raw, remote, project string }{
		{"https://github.com/o/r.git", "https://github.com/o/r.git", "o/r"},
		{"https://user:tok@gitlab.com/group/proj", "https://gitlab.com/group/proj", "group/proj"},
		{"git@github.com:o/r.git", "git@github.com:o/r.git", "o/r"},
		{"ssh://git@codeberg.org/o/r.git", "ssh://codeberg.org/o/r.git", "o/r"},
		{"https://git.example.com/o/r.git", "https://git.example.com/o/r.git", ""},
		{"/srv/git/r.git", "/srv/git/r.git", ""},
		{"https://github.com/o", "https://github.com/o", ""},
	} {
		remote, project := parseRemote(tt.raw)
		if remote != tt.remote || project != tt.project {
			t.Errorf("parseRemote(%q) = %q, %q; want %q, %q", tt.raw, remote, project, tt.remote, tt.project)
		}
	}
}

func TestParseBranch(t *testing.T) {
	for h, want := range map[string]string{
		"main...origin/main [ahead 1]": "main",
		"feature/x":                    "feature/x",
		"No commits yet on trunk":      "trunk",
		"HEAD (no branch)":             "HEAD (detached)",
	} {
		if got := parseBranch(h); got != want {
			t.Errorf("parseBranch(%q) = %q, want %q", h, got, want)
		}
	}
}
