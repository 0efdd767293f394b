package profile

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/kimigo/kimigo/osenv"
)

const (
	// gitCacheVersion is the version of gitCacheEntry; an entry of another
	// version is a miss.
	gitCacheVersion = 1
	// gitSlowTTL is how long a slow verdict is trusted: a repository that
	// was slow under a burst of load gets its status back within the hour.
	gitSlowTTL = time.Hour
)

// gitRepo is what the files of a repository's git directory say, read
// without running git.
type gitRepo struct {
	// branch is HEAD's branch, "HEAD (detached)", or "" when HEAD is
	// unreadable.
	branch string
	// stamp is the modification time and size of HEAD, the index, the
	// config, HEAD's ref and packed-refs; "" when the git directory is not
	// found, which turns the cache off.
	stamp string
	// indexSize is the size of the index in bytes (0 without one).
	indexSize int64
	// config is the path of the repository's config file ("" when the
	// git directory is not found).
	config string
}

// readGitRepo reads the git directory of the work tree at root: .git
// itself, or the directory a "gitdir:" file names (worktrees, submodules),
// whose "commondir" holds the shared refs and config.
func readGitRepo(fsys osenv.FS, root string) gitRepo {
	gitDir := path.Join(root, ".git")
	fi, err := fsys.Lstat(gitDir)
	if err != nil {
		return gitRepo{}
	}
	if !fi.IsDir() {
		b, err := fsys.ReadFile(gitDir)
		rest, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
		if err != nil || !ok {
			return gitRepo{}
		}
		gitDir = joinRel(root, rest)
	}
	common := gitDir
	if b, err := fsys.ReadFile(path.Join(gitDir, "commondir")); err == nil {
		common = joinRel(gitDir, strings.TrimSpace(string(b)))
	}
	r := gitRepo{config: path.Join(common, "config")}
	head, err := fsys.ReadFile(path.Join(gitDir, "HEAD"))
	ref, isRef := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: ")
	switch {
	case err != nil:
	case isRef:
		r.branch = strings.TrimPrefix(ref, "refs/heads/")
	case len(head) > 0:
		r.branch = "HEAD (detached)"
	}
	files := []string{path.Join(gitDir, "HEAD"), path.Join(gitDir, "index"), path.Join(common, "config"),
		path.Join(common, "packed-refs")}
	if isRef {
		files = append(files, path.Join(common, path.Clean(ref)))
	}
	var b strings.Builder
	for _, f := range files {
		b.WriteString(f)
		if fi, err := fsys.Stat(f); err == nil {
			if f == files[1] {
				r.indexSize = fi.Size()
			}
			b.WriteString(" " + strconv.FormatInt(fi.ModTime().UnixNano(), 10) + " " + strconv.FormatInt(fi.Size(), 10) + "\n")
		} else {
			b.WriteString(" -\n")
		}
	}
	r.stamp = b.String()
	return r
}

// joinRel resolves p against dir unless it is absolute.
func joinRel(dir, p string) string {
	if path.IsAbs(p) {
		return path.Clean(p)
	}
	return path.Join(dir, p)
}

// gitCacheDir is where the git cache lives under the data root home; ""
// (no cache) without one.
func gitCacheDir(home string) string {
	if home == "" {
		return ""
	}
	return path.Join(home, "cache", "git")
}

// gitCacheEntry is one work dir's cached git state: what does not depend
// on the work tree, valid while the stamp is unchanged.
type gitCacheEntry struct {
	Version int    `json:"version"`
	WorkDir string `json:"work_dir"`
	Stamp   string `json:"stamp"`
	// Slow reports a status that missed the deadline at SlowAt.
	Slow    bool      `json:"slow,omitempty"`
	SlowAt  time.Time `json:"slow_at,omitzero"`
	Remote  string    `json:"remote,omitempty"`
	Project string    `json:"project,omitempty"`
	Commits []string  `json:"commits,omitempty"`
}

// state is the Slow state a cached slow verdict gives, the branch read
// afresh.
func (e gitCacheEntry) state(workDir string, r gitRepo) GitState {
	return GitState{Repo: true, Slow: true, WorkDir: workDir, Branch: r.branch, Remote: e.Remote, Project: e.Project,
		Commits: e.Commits}
}

// gitCacheFile is the cache file of workDir in dir.
func gitCacheFile(dir, workDir string) string {
	sum := sha256.Sum256([]byte(workDir))
	return path.Join(dir, hex.EncodeToString(sum[:16])+".json")
}

// loadGitCache returns workDir's cache entry when there is one for r's
// repository; its Stamp tells whether it is still valid for r (a slow
// verdict outlives a new HEAD, see gatherGit). A missing, unreadable or
// foreign file is a miss, never an error.
func loadGitCache(fsys osenv.FS, dir, workDir string, r gitRepo) (gitCacheEntry, bool) {
	if dir == "" || r.stamp == "" {
		return gitCacheEntry{}, false
	}
	b, err := fsys.ReadFile(gitCacheFile(dir, workDir))
	if err != nil {
		return gitCacheEntry{}, false
	}
	var e gitCacheEntry
	if json.Unmarshal(b, &e) != nil || e.Version != gitCacheVersion || e.WorkDir != workDir {
		return gitCacheEntry{}, false
	}
	return e, true
}

// storeGitCache writes workDir's entry for g. It is a cache: the write is
// not synced, and a failure only makes the next start ask git again.
func storeGitCache(fsys osenv.FS, dir, workDir string, r gitRepo, g GitState, now time.Time) {
	if dir == "" || r.stamp == "" {
		return
	}
	e := gitCacheEntry{Version: gitCacheVersion, WorkDir: workDir, Stamp: r.stamp, Slow: g.Slow,
		Remote: g.Remote, Project: g.Project, Commits: g.Commits}
	if g.Slow {
		e.SlowAt = now
	}
	b, err := json.Marshal(e)
	if err != nil || fsys.MkdirAll(dir, 0o700) != nil {
		return
	}
	name := gitCacheFile(dir, workDir)
	tmp := name + "." + rand.Text()[:10] + ".tmp"
	f, err := fsys.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fs.FileMode(0o600))
	if err != nil {
		return
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = fsys.Rename(tmp, name)
	}
	if err != nil {
		_ = fsys.Remove(tmp) // best effort: the cache is only a cache
	}
}
