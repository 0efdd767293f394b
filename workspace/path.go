package workspace

import (
	"fmt"
	"path"
	"strings"

	"github.com/kimigo/kimigo/osenv"
)

// Dirs are the workspace: where relative paths resolve and what counts as
// inside. Dir is the agent's working directory, AdditionalDirs the --add-dir
// directories (spec 05 §1.4). Paths are absolute and clean.
type Dirs struct {
	Dir            string
	AdditionalDirs []string
}

// Contains reports whether the absolute, clean path p lies in the workspace
// dir or an additional dir (whole path components: /ws-evil is not in /ws).
func (w Dirs) Contains(p string) bool {
	if osenv.Within(p, w.Dir) {
		return true
	}
	for _, d := range w.AdditionalDirs {
		if osenv.Within(p, d) {
			return true
		}
	}
	return false
}

// PathIntent is what a tool will do with a path; it picks the wording of
// the outside-workspace error and whether sensitive files are refused.
type PathIntent string

// Path intents. Read and write refuse sensitive files; search does not
// (Grep and Glob filter their results instead).
const (
	IntentRead   PathIntent = "read a file"
	IntentWrite  PathIntent = "write or edit a file"
	IntentSearch PathIntent = "search"
)

// ResolvedPath is a path argument after the access policy accepted it.
type ResolvedPath struct {
	// Raw is the argument as the model wrote it (error messages echo it).
	Raw string
	// Path is the canonical absolute path: "~" expanded, relative paths
	// joined to the workspace dir, cleaned. Symlinks are not resolved.
	Path string
	// Outside is true when Path is in neither the workspace dir nor an
	// additional dir.
	Outside bool
}

// PathError is a refusal of the path access policy. Its message reaches
// the model verbatim (it implements loop.VerbatimError).
type PathError struct {
	Msg string
}

func (e *PathError) Error() string { return e.Msg }

// Verbatim marks the message as model-facing.
func (e *PathError) Verbatim() bool { return true }

// ResolvePath applies the path access policy of spec 05 §3.1 to a
// user-supplied path, lexically and without I/O, so it can run in
// ResolveExecution: "~" expands with the environment's home, a relative
// path resolves against ws.Dir, an empty path is refused, a sensitive file
// is refused unless intent is IntentSearch, and a relative path that
// leaves the workspace is refused (absolute paths outside are allowed; the
// permission layer decides about them). Errors are *PathError.
func ResolvePath(env osenv.Env, ws Dirs, raw string, intent PathIntent) (ResolvedPath, error) {
	p := raw
	if p == "~" || strings.HasPrefix(p, "~/") {
		home := env.Home()
		if home == "" {
			return ResolvedPath{}, &PathError{Msg: fmt.Sprintf("%q cannot be resolved: the home directory is unknown.", raw)}
		}
		p = home + p[1:]
	}
	if p == "" {
		return ResolvedPath{}, &PathError{Msg: "Path cannot be empty"}
	}
	relative := !path.IsAbs(p)
	if relative {
		dir := ws.Dir
		if dir == "" {
			dir = env.Cwd()
		}
		p = path.Join(dir, p)
	}
	p = env.Normpath(p)
	r := ResolvedPath{Raw: raw, Path: p, Outside: !ws.Contains(p)}
	if intent != IntentSearch && IsSensitive(p) {
		return ResolvedPath{}, &PathError{Msg: fmt.Sprintf("%q matches a sensitive-file pattern (env / credential / SSH key). Access is blocked to protect secrets.", raw)}
	}
	if r.Outside && relative {
		return ResolvedPath{}, &PathError{Msg: fmt.Sprintf("%q is not an absolute path. You must provide an absolute path to %s outside the working directory.", raw, intent)}
	}
	return r, nil
}
