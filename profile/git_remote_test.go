package profile

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/osenv"
)

// TestOriginURLAgreesWithGit writes config files into a real repository
// and compares originURL with what `git remote get-url origin` says:
// wherever originURL answers, git answers the same; where it declines
// (rewrites, includes, values it does not read plainly), git is asked.
func TestOriginURLAgreesWithGit(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skipf("no git: %v", err)
	}
	const base = "[core]\n\trepositoryformatversion = 0\n\tbare = false\n"
	for _, c := range []struct {
		name, config, global string
		decline              bool
	}{
		{name: "plain", config: base + "[remote \"origin\"]\n\turl = https://example.com/a/b.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n"},
		{name: "scp form", config: base + "[remote \"origin\"]\n\turl = git@example.com:a/b.git\n"},
		{name: "two urls", config: base + "[remote \"origin\"]\n\turl = https://one.example/x\n\turl = https://two.example/x\n"},
		{name: "other remote only", config: base + "[remote \"upstream\"]\n\turl = https://example.com/up.git\n"},
		{name: "no remote", config: base},
		{name: "case of the section and key", config: base + "[Remote \"origin\"]\n\tURL = https://example.com/c.git\n"},
		{name: "remote named Origin", config: base + "[remote \"Origin\"]\n\turl = https://example.com/o.git\n"},
		{name: "old dotted form", config: base + "[remote.origin]\n\turl = https://example.com/d.git\n"},
		{name: "comments", config: base + "# a comment\n[remote \"origin\"] ; here too\n\t; url = https://not.example/\n\turl = https://example.com/e.git\n"},
		{name: "quoted value", config: base + "[remote \"origin\"]\n\turl = \"https://example.com/q.git\"\n", decline: true},
		{name: "comment after the value", config: base + "[remote \"origin\"]\n\turl = https://example.com/f.git # mirror\n", decline: true},
		{name: "insteadOf in the repository", config: base + "[remote \"origin\"]\n\turl = gh:a/b\n[url \"https://github.com/\"]\n\tinsteadOf = gh:\n", decline: true},
		{name: "insteadOf in the global config", config: base + "[remote \"origin\"]\n\turl = gh:a/b\n",
			global: "[url \"https://github.com/\"]\n\tinsteadOf = gh:\n", decline: true},
		{name: "include", config: base + "[include]\n\tpath = other\n[remote \"origin\"]\n\turl = https://example.com/i.git\n", decline: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			repo, home := filepath.Join(dir, "repo"), filepath.Join(dir, "home")
			if err := os.MkdirAll(home, 0o755); err != nil {
				t.Fatal(err)
			}
			environ := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GIT_CONFIG_NOSYSTEM=1"}
			run := func(args ...string) (string, error) {
				cmd := exec.Command(git, args...)
				cmd.Dir, cmd.Env = repo, environ
				out, err := cmd.Output()
				return strings.TrimSpace(string(out)), err
			}
			if out, err := exec.Command(git, "init", "-q", repo).CombinedOutput(); err != nil {
				t.Fatalf("git init: %v\n%s", err, out)
			}
			write := func(name, text string) {
				if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write(filepath.Join(repo, ".git", "config"), c.config)
			if c.global != "" {
				write(filepath.Join(home, ".gitconfig"), c.global)
			}
			want, gitErr := run("remote", "get-url", "origin")
			env := osenv.NewLocal(osenv.LocalOptions{Cwd: repo, Home: home, Environ: environ})
			got, ok := originURL(env, filepath.Join(repo, ".git", "config"))
			if ok == c.decline {
				t.Fatalf("originURL = %q, ok %v; want it to decline: %v", got, ok, c.decline)
			}
			if !ok {
				return
			}
			if gitErr != nil {
				want = "" // no such remote
			}
			if got != want {
				t.Errorf("originURL = %q, git says %q (%v)", got, want, gitErr)
			}
		})
	}
}
