package agentfile

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/profile"
)

// Discovery limits (spec 05 §8.8).
const (
	maxDepth        = 8
	maxSkipWarnings = 5
	maxSuppressed   = 3
)

// WarningAgentFile classifies warnings about agent files: a file that does
// not parse, a directory that cannot be read, a file that loses to a
// built-in, a tool pattern that can never match.
const WarningAgentFile profile.WarningCode = "agent-file"

// Root is a directory whose agent files share one source.
type Root struct {
	Dir    string
	Source Source
}

// Discover walks each root (at most 8 levels, entries in name order,
// skipping dot-entries and node_modules) and parses every .md file in it.
// Within one source the first definition of a name wins. Files that do not
// parse and directories that cannot be read become warnings; at most five
// unreadable directories are named, then one summary.
func Discover(fsys osenv.FS, roots []Root) ([]Definition, []profile.Warning) {
	w := &walker{fsys: fsys, seen: map[Source]map[string]bool{}}
	for _, r := range roots {
		w.root = r
		if w.seen[r.Source] == nil {
			w.seen[r.Source] = map[string]bool{}
		}
		w.walk(r.Dir, 0)
	}
	if n := len(w.suppressed); n > 0 {
		shown := w.suppressed[:min(n, maxSuppressed)]
		w.warn(fmt.Sprintf("skipped %d more unreadable agent directories, among them %s", n, strings.Join(shown, ", ")))
	}
	return w.defs, w.warnings
}

type walker struct {
	fsys       osenv.FS
	root       Root
	seen       map[Source]map[string]bool // names already defined, per source
	defs       []Definition
	warnings   []profile.Warning
	skips      int      // unreadable directories reported
	suppressed []string // unreadable directories past the limit
}

func (w *walker) warn(msg string) {
	w.warnings = append(w.warnings, profile.Warning{Code: WarningAgentFile, Message: msg})
}

func (w *walker) walk(dir string, depth int) {
	entries, err := w.fsys.ReadDir(dir)
	if err != nil {
		if depth == 0 {
			return // a root that vanished since Roots looked is just empty
		}
		if w.skips < maxSkipWarnings {
			w.skips++
			w.warn(fmt.Sprintf("skipped unreadable agent directory %s: %v", dir, err))
		} else {
			w.suppressed = append(w.suppressed, dir)
		}
		return
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || name == "node_modules" {
			continue
		}
		p := path.Join(dir, name)
		if isDir(w.fsys, e, p) {
			if depth < maxDepth {
				w.walk(p, depth+1)
			}
			continue
		}
		if strings.HasSuffix(name, ".md") {
			w.parse(p)
		}
	}
}

func (w *walker) parse(p string) {
	data, err := w.fsys.ReadFile(p)
	if err != nil {
		w.warn(fmt.Sprintf("skipped agent file %s: %v", p, err))
		return
	}
	d, err := Parse(p, w.root.Source, data)
	if err != nil {
		w.warn("skipped agent file: " + err.Error())
		return
	}
	if w.seen[d.Source][d.Name] {
		return
	}
	w.seen[d.Source][d.Name] = true
	w.defs = append(w.defs, d)
}

// isDir follows a symbolic link to tell whether the entry is a directory.
func isDir(fsys osenv.FS, e fs.DirEntry, p string) bool {
	if e.Type()&fs.ModeSymlink == 0 {
		return e.IsDir()
	}
	fi, err := fsys.Stat(p)
	return err == nil && fi.IsDir()
}

// Roots returns the existing directories agent files are read from, each
// once, in the order user, extra, project, plugin (spec 05 §8.8); their
// Source, not this order, decides priority. Directories are compared after
// lexical cleaning; symbolic links are not resolved.
func Roots(env osenv.Env, opts Options) []Root {
	var roots []Root
	add := func(dir string, src Source) {
		dir = env.Normpath(dir)
		if fi, err := env.Stat(dir); err != nil || !fi.IsDir() {
			return
		}
		if slices.ContainsFunc(roots, func(r Root) bool { return r.Dir == dir }) {
			return
		}
		roots = append(roots, Root{Dir: dir, Source: src})
	}
	if opts.DataHome != "" {
		add(path.Join(opts.DataHome, "agents"), SourceUser)
	}
	if home := env.Home(); home != "" {
		add(path.Join(home, ".agents", "agents"), SourceUser)
	}
	workDir := resolvePath(env, opts.WorkDir, env.Cwd())
	root := profile.ProjectRoot(env, workDir)
	for _, d := range opts.ExtraDirs {
		add(resolvePath(env, d, root), SourceExtra)
	}
	add(path.Join(root, ".kimi-code", "agents"), SourceProject)
	add(path.Join(root, ".agents", "agents"), SourceProject)
	for _, d := range opts.PluginDirs {
		add(resolvePath(env, d, root), SourcePlugin)
	}
	return roots
}

// resolvePath expands a leading "~" to the home directory and resolves a
// relative path against base.
func resolvePath(env osenv.Env, p, base string) string {
	switch {
	case p == "":
		return base
	case p == "~":
		p = env.Home()
	case strings.HasPrefix(p, "~/"):
		p = path.Join(env.Home(), p[2:])
	case !path.IsAbs(p):
		p = path.Join(base, p)
	}
	return env.Normpath(p)
}
