package permission

import (
	"bytes"
	"path"
	"strings"
)

// maxMarkerLevels bounds the walk up from the work dir.
const maxMarkerLevels = 256

// gitMarker is the .git entry of the work tree a directory is in: the
// entry itself and the control directory it stands for (the same, unless
// .git is a file naming a gitdir).
type gitMarker struct {
	dotGit, controlDir string
}

// gitMarker looks for the git work tree that contains dir, walking up
// (spec 04 §2.6.2 step 3). A .git that is neither a directory nor a valid
// "gitdir:" file ends the search with no marker.
func (m *Manager) gitMarker(dir string) (gitMarker, bool) {
	if m.env == nil || dir == "" || !path.IsAbs(slash(dir)) {
		return gitMarker{}, false
	}
	dir = path.Clean(slash(dir))
	for range maxMarkerLevels {
		dotGit := path.Join(dir, ".git")
		if info, err := m.env.Stat(dotGit); err == nil {
			switch {
			case info.IsDir():
				return gitMarker{dotGit: dotGit, controlDir: dotGit}, true
			case info.Mode().IsRegular():
				return m.gitFileMarker(dir, dotGit)
			default:
				return gitMarker{}, false
			}
		}
		parent := path.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return gitMarker{}, false
}

// gitFileMarker reads a .git file: its first line must be "gitdir: <dir>",
// relative to the directory holding the file.
func (m *Manager) gitFileMarker(dir, dotGit string) (gitMarker, bool) {
	data, err := m.env.ReadFile(dotGit)
	if err != nil {
		return gitMarker{}, false
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	line, _, _ := strings.Cut(strings.TrimLeft(string(data), " \t\r\n"), "\n")
	rest, ok := strings.CutPrefix(line, "gitdir:")
	rest = strings.TrimSpace(rest)
	if !ok || rest == "" {
		return gitMarker{}, false
	}
	if !path.IsAbs(slash(rest)) {
		rest = path.Join(dir, rest)
	}
	return gitMarker{dotGit: dotGit, controlDir: path.Clean(slash(rest))}, true
}

// relativePath is the path from base to target, both absolute; it may
// start with "..". Windows paths compare without case.
func relativePath(base, target string, win bool) string {
	b, t := splitPath(base), splitPath(target)
	i := 0
	for i < len(b) && i < len(t) && sameName(b[i], t[i], win) {
		i++
	}
	parts := make([]string, 0, len(b)-i+len(t)-i)
	for range b[i:] {
		parts = append(parts, "..")
	}
	return strings.Join(append(parts, t[i:]...), "/")
}

// within reports whether p is root or below it, by whole components.
func within(p, root string, win bool) bool {
	if root == "" {
		return false
	}
	r, q := splitPath(root), splitPath(p)
	if len(q) < len(r) {
		return false
	}
	for i := range r {
		if !sameName(r[i], q[i], win) {
			return false
		}
	}
	return true
}

func splitPath(p string) []string {
	return strings.FieldsFunc(slash(p), func(r rune) bool { return r == '/' })
}

func sameName(a, b string, win bool) bool {
	if win {
		return strings.EqualFold(a, b)
	}
	return a == b
}

func slash(p string) string { return strings.ReplaceAll(p, `\`, "/") }
