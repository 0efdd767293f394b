package profile

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/osenv/osenvtest"
)

// TestGitSlowStatus: a status that is not done by the deadline is killed,
// and the state says so instead of waiting: the branch comes from HEAD,
// the changed files are unknown, and the prompt tells the model why.
func TestGitSlowStatus(t *testing.T) {
	env := osenvtest.New(osenvtest.Options{Cwd: "/ws", Files: smallRepo(), Run: func(cmd osenv.Cmd) osenvtest.Result {
		if slices.Contains(cmd.Args, "status") {
			return osenvtest.Result{Block: true}
		}
		return gitScript(cmd)
	}})
	g := gatherGit(t.Context(), env, "/ws", "/ws", gitProbe{deadline: 10 * time.Millisecond})
	if !g.Repo || !g.Slow || g.Branch != "main" || g.Dirty != nil || g.DirtyCount != 0 {
		t.Fatalf("state = %+v, want a slow repository on main", g)
	}
	if len(env.Runner().Signals()) == 0 {
		t.Error("the slow git status was not killed")
	}
	if b := g.Block(); !strings.Contains(b, "Branch: main\nDirty files: not gathered (git status takes longer than 15 ms in this repository)\n") {
		t.Errorf("block:\n%s", b)
	}
	pc, _ := prepare(t, newEnv(t, smallRepo()), "/ws")
	pc.Git = g
	want := "It is a git repository on branch `main`; its changed files were not gathered at session start, " +
		"because `git status` takes too long in this repository (run it yourself when they matter). Its top"
	if got := render(t, builtin(t), "", pc); !strings.Contains(got, want) {
		t.Errorf("the prompt does not say the status was not gathered:\n%s", got)
	}
}

// gitFixture is a real repository whose git is a logging wrapper around
// the real one, found first on PATH; while the file slow exists, its git
// status hangs.
type gitFixture struct {
	t                *testing.T
	repo, cache, log string
	slow             string
	env              osenv.Env
	realGit          string
	clock            time.Time
	deadline         time.Duration
	seen             int // log lines already returned by calls
}

func newGitFixture(t *testing.T) *gitFixture {
	t.Helper()
	realGit, err := exec.LookPath("git")
	if err != nil {
		t.Skipf("no git: %v", err)
	}
	dir := t.TempDir()
	f := &gitFixture{t: t, repo: filepath.Join(dir, "repo"), cache: filepath.Join(dir, "cache"),
		log: filepath.Join(dir, "git.log"), slow: filepath.Join(dir, "slow"), realGit: realGit,
		clock: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), deadline: testGitDeadline}
	bin := filepath.Join(dir, "bin")
	script := "#!/bin/sh\necho \"$1 $2 $3 $4 $5\" >> '" + f.log + "'\n" +
		"case \" $* \" in *\" status \"*) if [ -e '" + f.slow + "' ]; then exec sleep 60; fi;; esac\n" +
		"exec '" + realGit + "' \"$@\"\n"
	for _, d := range []string{bin, f.repo} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	f.env = osenv.NewLocal(osenv.LocalOptions{Cwd: f.repo, Home: dir,
		Environ: []string{"PATH=" + bin + ":/usr/local/bin:/usr/bin:/bin", "HOME=" + dir}})
	f.git("init", "-q", "-b", "trunk")
	f.write("a.txt", "a\n")
	f.git("add", "a.txt")
	f.git("commit", "-q", "-m", "first")
	f.write("a.txt", "changed\n")
	return f
}

// git runs the real git in the repository, unlogged.
func (f *gitFixture) git(args ...string) {
	f.t.Helper()
	cmd := exec.Command(f.realGit, args...)
	cmd.Dir = f.repo
	cmd.Env = []string{"HOME=" + filepath.Dir(f.repo), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_NOSYSTEM=1"}
	if out, err := cmd.CombinedOutput(); err != nil {
		f.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func (f *gitFixture) write(name, content string) {
	f.t.Helper()
	if err := os.WriteFile(filepath.Join(f.repo, name), []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

// gather probes the repository and returns the state and the git
// subcommands it ran.
func (f *gitFixture) gather() (GitState, []string) {
	f.t.Helper()
	g := gatherGit(f.t.Context(), f.env, f.repo, f.repo,
		gitProbe{deadline: f.deadline, cacheDir: f.cache, now: func() time.Time { return f.clock }})
	b, err := os.ReadFile(f.log)
	if err != nil && !os.IsNotExist(err) {
		f.t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(b) == 0 {
		lines = nil
	}
	var ran []string
	for _, l := range lines[f.seen:] {
		// "--no-pager -c core.quotepath=false <subcommand> …"
		ran = append(ran, strings.Fields(l)[3])
	}
	f.seen = len(lines)
	slices.Sort(ran)
	return g, ran
}

// TestGitCache runs the real git in a real repository: the first start
// asks git everything (the remote comes from the config file, which
// rewrites nothing) and caches what does not depend on the work tree;
// the next asks only git status while HEAD, the index and the refs are
// unchanged; a commit is a miss; a slow status is cached as a verdict that
// runs no git at all until it expires; a broken or unwritable cache is
// ignored.
func TestGitCache(t *testing.T) {
	f := newGitFixture(t)
	first, ran := f.gather()
	if len(first.Commits) != 1 || !strings.HasSuffix(first.Commits[0], " first") {
		t.Fatalf("commits = %q", first.Commits)
	}
	want := GitState{Repo: true, WorkDir: f.repo, Branch: "trunk", Dirty: []string{" M a.txt"}, DirtyCount: 1, Commits: first.Commits}
	if diff := cmp.Diff(want, first); diff != "" {
		t.Fatalf("first state (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"log", "status"}, ran); diff != "" {
		t.Errorf("a miss runs (-want +got):\n%s", diff)
	}

	f.write("b.txt", "new\n") // the work tree changes, HEAD and the index do not
	second, ran := f.gather()
	want.Dirty, want.DirtyCount = []string{" M a.txt", "?? b.txt"}, 2
	if diff := cmp.Diff(want, second); diff != "" {
		t.Errorf("hit state (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"status"}, ran); diff != "" {
		t.Errorf("a hit runs (-want +got):\n%s", diff)
	}

	f.git("commit", "-q", "-am", "second")
	third, ran := f.gather()
	if len(third.Commits) != 2 || !strings.HasSuffix(third.Commits[0], " second") || third.DirtyCount != 1 {
		t.Errorf("after a commit: %+v", third)
	}
	if diff := cmp.Diff([]string{"log", "status"}, ran); diff != "" {
		t.Errorf("a commit makes a miss that runs (-want +got):\n%s", diff)
	}

	if err := os.WriteFile(f.slow, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	f.deadline = slowGitDeadline
	slow, ran := f.gather()
	want = GitState{Repo: true, Slow: true, WorkDir: f.repo, Branch: "trunk", Commits: third.Commits}
	if diff := cmp.Diff(want, slow); diff != "" {
		t.Errorf("slow state (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"status"}, ran); diff != "" {
		t.Errorf("the slow probe runs (-want +got):\n%s", diff)
	}
	again, ran := f.gather()
	if diff := cmp.Diff(want, again); diff != "" {
		t.Errorf("cached slow state (-want +got):\n%s", diff)
	}
	if len(ran) != 0 {
		t.Errorf("a cached slow verdict ran git %v", ran)
	}
	f.clock = f.clock.Add(gitSlowTTL + time.Minute)
	if _, ran = f.gather(); !slices.Equal(ran, []string{"status"}) {
		t.Errorf("an expired slow verdict runs %v, want status", ran)
	}
	if _, ran = f.gather(); len(ran) != 0 {
		t.Errorf("the renewed slow verdict ran git %v", ran)
	}

	if err := os.Remove(f.slow); err != nil {
		t.Fatal(err)
	}
	f.deadline = testGitDeadline
	entries, err := os.ReadDir(f.cache)
	if err != nil || len(entries) != 1 {
		t.Fatalf("cache dir: %v %v", entries, err)
	}
	if err := os.WriteFile(filepath.Join(f.cache, entries[0].Name()), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	fixed, ran := f.gather()
	if diff := cmp.Diff(third, fixed); diff != "" {
		t.Errorf("state after a broken cache (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"log", "status"}, ran); diff != "" {
		t.Errorf("a broken cache is a miss that runs (-want +got):\n%s", diff)
	}

	f.cache = filepath.Join(f.repo, "a.txt", "cache") // under a file: cannot be created
	if g, _ := f.gather(); !cmp.Equal(third, g) {
		t.Errorf("state with an unwritable cache = %+v", g)
	}
}

// TestGitSlowVerdictOutlivesANewHead runs the real git: a repository
// found slow stays slow across a commit (the work tree is as large as
// before), so the start after a commit runs only log and remote, for the
// new commits, and no status; the verdict keeps its time and expires as
// if HEAD had not moved.
func TestGitSlowVerdictOutlivesANewHead(t *testing.T) {
	f := newGitFixture(t)
	if err := os.WriteFile(f.slow, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	f.deadline = slowGitDeadline
	slow, ran := f.gather()
	if !slow.Slow || len(slow.Commits) != 1 {
		t.Fatalf("first state = %+v; want a slow repository with one commit", slow)
	}
	if diff := cmp.Diff([]string{"log", "status"}, ran); diff != "" {
		t.Errorf("the first probe runs (-want +got):\n%s", diff)
	}

	f.clock = f.clock.Add(gitSlowTTL / 2)
	f.git("commit", "-q", "-am", "second")
	after, ran := f.gather()
	want := GitState{Repo: true, Slow: true, WorkDir: f.repo, Branch: "trunk", Commits: after.Commits}
	if diff := cmp.Diff(want, after); diff != "" || len(after.Commits) != 2 || !strings.HasSuffix(after.Commits[0], " second") {
		t.Errorf("state after a commit (-want +got):\n%s\ncommits %q", diff, after.Commits)
	}
	if diff := cmp.Diff([]string{"log"}, ran); diff != "" {
		t.Errorf("after a commit the probe runs (-want +got):\n%s", diff)
	}
	if _, ran = f.gather(); len(ran) != 0 {
		t.Errorf("the carried verdict ran git %v", ran)
	}

	// An hour after the first probe, not after the commit, status runs again.
	f.clock = f.clock.Add(gitSlowTTL/2 + time.Minute)
	if _, ran = f.gather(); !slices.Equal(ran, []string{"status"}) {
		t.Errorf("the expired verdict runs %v, want status", ran)
	}
}

// TestReadGitRepoWorktree: in a linked worktree the branch comes from the
// worktree's own HEAD and the stamp covers the shared config and refs.
func TestReadGitRepoWorktree(t *testing.T) {
	f := newGitFixture(t)
	wt := filepath.Join(filepath.Dir(f.repo), "wt")
	f.git("worktree", "add", "-q", "-b", "side", wt)
	r := readGitRepo(f.env, wt)
	if r.branch != "side" {
		t.Errorf("branch = %q, want side", r.branch)
	}
	for _, p := range []string{"/.git/worktrees/wt/HEAD ", "/.git/worktrees/wt/index ", "/repo/.git/config ", "/repo/.git/refs/heads/side "} {
		if !strings.Contains(r.stamp, p) {
			t.Errorf("stamp lacks %s:\n%s", p, r.stamp)
		}
	}
	if main := readGitRepo(f.env, f.repo); main.branch != "trunk" || main.stamp == r.stamp {
		t.Errorf("main tree: %+v", main)
	}
}

// TestGitLargeIndexIsSlowWithoutStatus: an index of gitLargeIndex bytes
// makes the repository slow at its first start without running git
// status (which could not finish in time); the commits still come, and
// the verdict is cached, so the next start runs no git at all.
func TestGitLargeIndexIsSlowWithoutStatus(t *testing.T) {
	files := smallRepo()
	files["/ws/.git/index"] = strings.Repeat("x", gitLargeIndex)
	env := osenvtest.New(osenvtest.Options{Cwd: "/ws", Files: files, Run: gitScript})
	probe := gitProbe{deadline: 10 * time.Second, cacheDir: "/cache"}
	g := gatherGit(t.Context(), env, "/ws", "/ws", probe)
	if !g.Repo || !g.Slow || g.Branch != "main" || g.DirtyCount != 0 || len(g.Commits) != 2 {
		t.Fatalf("state = %+v, want a slow repository on main with its two commits", g)
	}
	for _, c := range env.Runner().Commands() {
		if slices.Contains(c.Args, "status") {
			t.Errorf("git status ran on a large index: %q", c.Args)
		}
	}
	n := len(env.Runner().Commands())
	if again := gatherGit(t.Context(), env, "/ws", "/ws", probe); !again.Slow || len(again.Commits) != 2 {
		t.Errorf("second start = %+v, want the cached slow state", again)
	}
	if ran := env.Runner().Commands()[n:]; len(ran) != 0 {
		t.Errorf("the second start ran git: %v", ran)
	}

	// Just under the size, the status runs.
	files["/ws/.git/index"] = strings.Repeat("x", gitLargeIndex-1)
	env = osenvtest.New(osenvtest.Options{Cwd: "/ws", Files: files, Run: gitScript})
	if g := gatherGit(t.Context(), env, "/ws", "/ws", probe); g.Slow || g.DirtyCount != 1 {
		t.Errorf("state under the size = %+v, want the status's one dirty file", g)
	}
}
