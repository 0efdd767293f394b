package profile

import (
	"context"
	"net/url"
	"path"
	"strconv"
	"strings"
	"sync"

	"github.com/kimigo/kimigo/internal/runes"
	"github.com/kimigo/kimigo/osenv"
)

// Git context limits (spec 05 §5.4).
const (
	gitDirtyMax      = 20
	gitCommitsMax    = 3
	gitCommitMaxRune = 200
)

// GitState is the git state of a working directory when its prompt
// context was gathered. The zero value means unknown: git is missing,
// failed or timed out, and prompts say nothing about git.
type GitState struct {
	// Repo reports a work tree whose status git reported.
	Repo bool
	// NotARepo reports a directory with no .git at or above it.
	NotARepo bool
	// WorkDir is the directory the state describes.
	WorkDir string
	// Branch is the current branch, or "HEAD (detached)".
	Branch string
	// Remote is origin's URL without credentials; "" when there is none.
	Remote string
	// Project is "owner/repo" when Remote is on a well-known forge.
	Project string
	// Dirty holds the first porcelain status lines (at most 20);
	// DirtyCount counts them all.
	Dirty      []string
	DirtyCount int
	// Commits are the latest commits as "<short hash> <subject>", at most 3.
	Commits []string
}

// Block renders the <git-context> block an explore subagent's first prompt
// starts with (spec 05 §5.4): "" when nothing useful is known, a
// self-closing "unavailable" element outside a repository.
func (g GitState) Block() string {
	if g.NotARepo {
		return `<git-context status="unavailable" reason="not-a-repo"/>`
	}
	if !g.Repo || (g.Branch == "" && g.Remote == "" && g.DirtyCount == 0 && len(g.Commits) == 0) {
		return ""
	}
	var b strings.Builder
	b.WriteString("<git-context>\nWorking directory: " + g.WorkDir + "\n")
	if g.Remote != "" {
		b.WriteString("Remote: " + g.Remote + "\n")
	}
	if g.Project != "" {
		b.WriteString("Project: " + g.Project + "\n")
	}
	if g.Branch != "" {
		b.WriteString("Branch: " + g.Branch + "\n")
	}
	if g.DirtyCount > 0 {
		b.WriteString("Dirty files (" + strconv.Itoa(g.DirtyCount) + "):\n")
		for _, l := range g.Dirty {
			b.WriteString("  " + l + "\n")
		}
		if more := g.DirtyCount - len(g.Dirty); more > 0 {
			b.WriteString("  ... and " + strconv.Itoa(more) + " more\n")
		}
	}
	if len(g.Commits) > 0 {
		b.WriteString("Recent commits:\n")
		for _, c := range g.Commits {
			b.WriteString("  " + c + "\n")
		}
	}
	b.WriteString("</git-context>")
	return b.String()
}

// gatherGit asks git about workDir, whose project root is root. Without a
// .git entry it does not run git at all. Each call has its own timeout; a
// failing call only leaves its part out, and a failing status (git
// missing, broken repository) leaves the whole state unknown. The three
// calls only read (no optional locks), so they run at the same time: the
// session waits for this before it opens, and a git start-up costs
// milliseconds.
func gatherGit(ctx context.Context, env osenv.Env, workDir, root string) GitState {
	if _, err := env.Lstat(path.Join(root, ".git")); err != nil {
		return GitState{NotARepo: true, WorkDir: workDir}
	}
	var (
		wg           sync.WaitGroup
		lg, rm       gitOutput
		lgErr, rmErr error
	)
	wg.Go(func() {
		lg, lgErr = runGit(ctx, env, workDir, "log", "-"+strconv.Itoa(gitCommitsMax), "--format=%h %s")
	})
	wg.Go(func() { rm, rmErr = runGit(ctx, env, workDir, "remote", "get-url", "origin") })
	st, err := runGit(ctx, env, workDir, "status", "--porcelain=v1", "--branch")
	wg.Wait()
	if err != nil || st.code != 0 {
		if strings.Contains(st.stderr, "not a git repository") {
			return GitState{NotARepo: true, WorkDir: workDir}
		}
		return GitState{}
	}
	g := GitState{Repo: true, WorkDir: workDir}
	g.parseStatus(st)
	if lgErr == nil && lg.code == 0 {
		for _, l := range lg.lines() {
			g.Commits = append(g.Commits, runes.Prefix(l, gitCommitMaxRune))
		}
	}
	if rmErr == nil && rm.code == 0 {
		g.Remote, g.Project = parseRemote(strings.TrimSpace(rm.stdout))
	}
	return g
}

// parseStatus reads `git status --porcelain=v1 --branch`: a "## " header
// naming the branch, then one line per changed path.
func (g *GitState) parseStatus(st gitOutput) {
	lines := st.lines()
	total := st.newlines
	if len(lines) > 0 && strings.HasPrefix(lines[0], "## ") {
		g.Branch = parseBranch(strings.TrimPrefix(lines[0], "## "))
		lines = lines[1:]
		total--
	}
	g.DirtyCount = max(total, len(lines))
	g.Dirty = lines[:min(len(lines), gitDirtyMax)]
}

func parseBranch(h string) string {
	for _, p := range []string{"No commits yet on ", "Initial commit on "} {
		if rest, ok := strings.CutPrefix(h, p); ok {
			return rest
		}
	}
	if strings.HasPrefix(h, "HEAD (no branch)") {
		return "HEAD (detached)"
	}
	h, _, _ = strings.Cut(h, "...")
	h, _, _ = strings.Cut(h, " [")
	return h
}

// isForge reports a host whose remote paths start with owner/repo.
func isForge(host string) bool {
	switch strings.ToLower(host) {
	case "github.com", "gitlab.com", "gitee.com", "bitbucket.org", "codeberg.org", "git.sr.ht":
		return true
	}
	return false
}

// parseRemote strips credentials from a remote URL and derives the
// owner/repo project of a well-known forge.
func parseRemote(raw string) (remote, project string) {
	if raw == "" {
		return "", ""
	}
	var host, p string
	if u, err := url.Parse(raw); err == nil && u.Scheme != "" && u.Host != "" {
		u.User = nil
		raw, host, p = u.String(), u.Hostname(), u.Path
	} else if at, rest, ok := strings.Cut(raw, "@"); ok && !strings.Contains(at, "/") {
		// scp-like "git@host:owner/repo.git"
		host, p, _ = strings.Cut(rest, ":")
	}
	if !isForge(host) {
		return raw, ""
	}
	parts := strings.Split(strings.Trim(strings.TrimSuffix(p, ".git"), "/"), "/")
	if len(parts) < 2 || parts[0] == "" || parts[1] == "" {
		return raw, ""
	}
	return raw, parts[0] + "/" + parts[1]
}
