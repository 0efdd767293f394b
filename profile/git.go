package profile

import (
	"context"
	"errors"
	"net/url"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kimigo/kimigo/internal/runes"
	"github.com/kimigo/kimigo/osenv"
)

// Git context limits (spec 05 §5.4).
const (
	// gitDeadline bounds the whole git probe of a prompt context: the
	// first request waits for it.
	gitDeadline = 15 * time.Millisecond
	// gitLargeIndex is an index size past which git status cannot finish
	// within gitDeadline: an entry is some 100 bytes, so this is some
	// 10,000 files, each of which the status stats (and their dirs it
	// reads for untracked files). Such a repository is slow from its first
	// start on, without the wait for a status that would be cut short.
	gitLargeIndex    = 1 << 20
	gitDirtyMax      = 20
	gitCommitsMax    = 3
	gitCommitMaxRune = 200
)

// GitState is the git state of a working directory when its prompt
// context was gathered. The zero value means unknown: git is missing,
// failed or timed out, and prompts say nothing about git.
type GitState struct {
	// Repo reports a work tree whose status git reported, or (with Slow)
	// did not report in time.
	Repo bool
	// Slow reports a status that took longer than the probe's deadline and
	// was stopped: Dirty and DirtyCount are unknown, Branch comes from
	// HEAD.
	Slow bool
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
	if !g.Repo || (g.Branch == "" && g.Remote == "" && g.DirtyCount == 0 && len(g.Commits) == 0 && !g.Slow) {
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
	if g.Slow {
		b.WriteString("Dirty files: not gathered (git status takes longer than " + strconv.Itoa(int(gitDeadline/time.Millisecond)) + " ms in this repository)\n")
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

// gitProbe says how gatherGit asks git.
type gitProbe struct {
	// deadline bounds the whole probe: what git has not answered by then
	// is left out, and a status that is not done makes the state Slow.
	deadline time.Duration
	// cacheDir holds the per-work-dir cache (git_cache.go); "" means no
	// cache.
	cacheDir string
	// now is the clock of the cache's slow verdicts; nil means time.Now.
	now func() time.Time
}

// gatherGit asks git about workDir, whose project root is root. Without a
// .git entry it does not run git at all. The three calls only read (no
// optional locks) and run at the same time, all stopped at the probe's
// deadline: the session waits for this before it opens, so a slow or
// huge repository must cost the first byte nothing. A status not done by
// then gives a Slow state (branch read from HEAD, no dirty files); a
// failing status (git missing, broken repository) leaves the whole state
// unknown; a failing log or remote only leaves its part out.
//
// What does not depend on the work tree (commits, remote, a slow verdict)
// is cached per work dir while HEAD, the index and the refs are unchanged
// (git_cache.go): a cached slow verdict runs no git at all (after a new
// HEAD or index, only log and remote, until the verdict expires), and a
// cached fast repository runs only git status. A repository whose index
// is gitLargeIndex or larger is slow from the start: its status is not
// run at all.
func gatherGit(ctx context.Context, env osenv.Env, workDir, root string, probe gitProbe) GitState {
	if _, err := env.Lstat(path.Join(root, ".git")); err != nil {
		return GitState{NotARepo: true, WorkDir: workDir}
	}
	now := time.Now
	if probe.now != nil {
		now = probe.now
	}
	repo := readGitRepo(env, root)
	cached, found := loadGitCache(env, probe.cacheDir, workDir, repo)
	hit := found && cached.Stamp == repo.stamp
	// A slow verdict is about the size of the work tree, which a commit, a
	// checkout or git add hardly changes: it holds until it expires, and
	// a new HEAD or index only asks for the commits and the remote again.
	slowCached := found && cached.Slow && now().Sub(cached.SlowAt) < gitSlowTTL
	// A large index makes a repository slow unless a status once finished
	// in time here.
	large := repo.indexSize >= gitLargeIndex && !(found && !cached.Slow)
	slowKnown := slowCached || large
	if hit && slowKnown {
		return cached.state(workDir, repo)
	}
	pctx, cancel := context.WithTimeout(ctx, probe.deadline)
	defer cancel()
	var (
		wg           sync.WaitGroup
		lg, rm       gitOutput
		lgErr, rmErr error
	)
	if !hit {
		wg.Go(func() {
			lg, lgErr = runGit(pctx, env, workDir, "log", "-"+strconv.Itoa(gitCommitsMax), "--format=%h %s")
		})
		if u, ok := originURL(env, repo.config); ok {
			rm = gitOutput{stdout: u}
			if u == "" {
				rm.code = 2 // as git remote get-url says of a missing remote
			}
		} else {
			wg.Go(func() { rm, rmErr = runGit(pctx, env, workDir, "remote", "get-url", "origin") })
		}
	}
	var (
		st  gitOutput
		err error
	)
	if !slowKnown {
		st, err = runGit(pctx, env, workDir, "status", "--porcelain=v1", "--branch")
	}
	wg.Wait()
	slow := slowKnown || (err != nil && ctx.Err() == nil && errors.Is(pctx.Err(), context.DeadlineExceeded))
	if !slow && (err != nil || st.code != 0) {
		if strings.Contains(st.stderr, "not a git repository") {
			return GitState{NotARepo: true, WorkDir: workDir}
		}
		return GitState{}
	}
	g := GitState{Repo: true, WorkDir: workDir}
	if hit {
		g.Remote, g.Project, g.Commits = cached.Remote, cached.Project, cached.Commits
	} else {
		if lgErr == nil && lg.code == 0 {
			for _, l := range lg.lines() {
				g.Commits = append(g.Commits, runes.Prefix(l, gitCommitMaxRune))
			}
		}
		if rmErr == nil && rm.code == 0 {
			g.Remote, g.Project = parseRemote(strings.TrimSpace(rm.stdout))
		}
	}
	if slow {
		g.Slow, g.Branch = true, repo.branch
	} else {
		g.parseStatus(st)
	}
	// A log or remote cut short by the deadline is not worth keeping
	// (a failing one, no remote or no commits yet, is an answer), unless
	// the point is the slow verdict: it spares the next start the wait.
	// A slow verdict is written again to restart its time to live.
	// A verdict carried over to a new HEAD keeps its time: the status is
	// tried again when it expires, however often HEAD moved meanwhile.
	complete := hit || slow || (lgErr == nil && rmErr == nil)
	if complete && (!hit || slow || cached.Slow) {
		at := now()
		if slowCached {
			at = cached.SlowAt
		}
		storeGitCache(env, probe.cacheDir, workDir, repo, g, at)
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

// gitContextDeadline bounds the git calls of an explore subagent's
// <git-context> block (spec 05 §5.4 step 2): unlike the prompt's probe,
// the spawn may wait for them.
const gitContextDeadline = 5 * time.Second

// GitContext gathers the git state of workDir for an explore subagent's
// <git-context> block (GitState.Block), fresh at each spawn and without
// the prompt probe's cache; each git call is bounded by five seconds and
// a failure only leaves its part out.
func GitContext(ctx context.Context, env osenv.Env, workDir string) GitState {
	return gatherGit(ctx, env, workDir, ProjectRoot(env, workDir), gitProbe{deadline: gitContextDeadline})
}
