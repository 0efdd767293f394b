package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/kimigo/kimigo/osenv"
)

// maxLinks bounds the symbolic links one resolution follows, as the
// kernel's ELOOP does.
const maxLinks = 40

// ErrProcPath is a /proc/<pid>/root, cwd or fd path whose target cannot
// be known ahead of the access: rules cannot judge it (ERRATA 37).
var ErrProcPath = errors.New("a /proc root, cwd or fd path")

// RealPath resolves the symbolic links of the existing prefix of the
// absolute, clean path p, as the kernel would when the tool opens it, and
// keeps the missing rest as written (ERRATA 37). /proc/self|thread-self|
// <pid>/root, cwd and fd/<n> are links the kernel resolves itself: they
// are followed where they can be read, and refused (ErrProcPath) where
// they cannot. Without an osenv.Linker the path is returned as is.
func RealPath(fsys osenv.FS, p string) (string, error) {
	l, ok := fsys.(osenv.Linker)
	if !ok || !path.IsAbs(p) {
		return p, nil
	}
	rest := strings.Split(strings.TrimPrefix(path.Clean(p), "/"), "/")
	cur := "/"
	for links := 0; len(rest) > 0; {
		name := rest[0]
		rest = rest[1:]
		if name == "" || name == "." {
			continue
		}
		next := path.Join(cur, name)
		if name == ".." {
			cur = path.Dir(cur)
			continue
		}
		fi, err := fsys.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) {
			return path.Join(append([]string{next}, rest...)...), nil
		}
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if links++; links > maxLinks {
			return "", fmt.Errorf("%s: too many symbolic links", p)
		}
		target, err := l.Readlink(next)
		if err != nil {
			if procLink(next) {
				return "", fmt.Errorf("%s: %w", p, ErrProcPath)
			}
			cur = next
			continue
		}
		if procLink(next) && !path.IsAbs(target) {
			// pipe:[…], socket:[…], anon_inode:…: nothing a rule names.
			return "", fmt.Errorf("%s: %w", p, ErrProcPath)
		}
		if path.IsAbs(target) {
			cur = "/"
		}
		rest = append(strings.Split(strings.Trim(target, "/"), "/"), rest...)
	}
	return cur, nil
}

// procLink reports a /proc/<pid>/root, cwd, exe or fd/<n> entry (and the
// same under task/<tid>).
func procLink(p string) bool {
	parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
	if len(parts) < 3 || parts[0] != "proc" {
		return false
	}
	parts = parts[2:]
	if len(parts) >= 3 && parts[0] == "task" {
		parts = parts[2:]
	}
	switch {
	case len(parts) == 1:
		return parts[0] == "root" || parts[0] == "cwd" || parts[0] == "exe"
	case len(parts) == 2:
		return parts[0] == "fd" || parts[0] == "map_files"
	}
	return false
}
