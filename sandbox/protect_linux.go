package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// bindMount is one bind mount the trampoline makes in its mount namespace.
type bindMount struct {
	path string
	// readOnly bind-mounts path read-only. Otherwise path is only pinned:
	// bound onto itself, still writable, so that as a mount point it can
	// be neither renamed nor removed. Every directory between a writable
	// dir and a read-only entry is pinned; without that, `mv .git x;
	// mkdir .git` would make a fresh, writable .git/hooks.
	readOnly bool
}

// protectEntry is a path to keep read-only; dir ones are created empty
// when missing.
type protectEntry struct {
	path string
	dir  bool
}

// protectEntries lists the read-only entries of sp, built-in ones first:
// in every writable dir, .git/hooks (made when missing) and .git/config
// when .git is a directory, the .git file itself when it is a file (it
// names the git directory; rewritten, it would point git at other hooks),
// and KimigoDir; then the policy's own entries.
func protectEntries(sp spec) []protectEntry {
	var out []protectEntry
	for _, root := range sp.Write {
		git := filepath.Join(root, ".git")
		if fi, err := os.Stat(git); err == nil {
			if fi.IsDir() {
				out = append(out, protectEntry{filepath.Join(git, "hooks"), true}, protectEntry{filepath.Join(git, "config"), false})
			} else {
				out = append(out, protectEntry{git, false})
			}
		}
		out = append(out, protectEntry{filepath.Join(root, KimigoDir), true})
		for _, e := range sp.ReadOnly {
			if !filepath.IsAbs(e) {
				out = append(out, protectEntry{filepath.Join(root, e), strings.HasSuffix(e, "/")})
			}
		}
	}
	for _, e := range sp.ReadOnly {
		if filepath.IsAbs(e) {
			out = append(out, protectEntry{filepath.Clean(e), strings.HasSuffix(e, "/")})
		}
	}
	return out
}

// planMounts resolves sp's read-only entries and returns the bind mounts
// that protect them, parents first, and the entries it skipped because
// they do not exist. A missing directory entry whose parent exists is
// created empty first, so that it can be protected too. Entries that
// resolve outside every writable dir need no mount: Landlock keeps them
// read-only already.
func planMounts(sp spec) (ms []bindMount, missing []string, err error) {
	byPath := map[string]bool{} // path → read-only (else pinned)
	for _, e := range protectEntries(sp) {
		if _, err := os.Lstat(e.path); errors.Is(err, fs.ErrNotExist) {
			if !e.dir {
				missing = append(missing, e.path)
				continue
			}
			// The parent may be a link a command planted (.git -> /etc):
			// make nothing outside the writable dirs.
			parent, err := filepath.EvalSymlinks(filepath.Dir(e.path))
			if err != nil {
				missing = append(missing, e.path)
				continue
			}
			if fi, err := os.Stat(parent); err != nil || !fi.IsDir() {
				missing = append(missing, e.path)
				continue
			}
			if _, ok := topmostRoot(sp.Write, parent); !ok {
				missing = append(missing, e.path)
				continue
			}
			if err := os.Mkdir(filepath.Join(parent, filepath.Base(e.path)), 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return nil, nil, fmt.Errorf("create %s to keep it read-only: %w", e.path, err)
			}
		} else if err != nil {
			return nil, nil, fmt.Errorf("keep %s read-only: %w", e.path, err)
		}
		// A link that leads nowhere could lead into a writable dir later:
		// refuse rather than guess.
		resolved, err := filepath.EvalSymlinks(e.path)
		if err != nil {
			return nil, nil, fmt.Errorf("keep %s read-only: %w", e.path, err)
		}
		top, ok := topmostRoot(sp.Write, resolved)
		if !ok {
			continue
		}
		byPath[resolved] = true
		for d := filepath.Dir(resolved); d != top && within(d, top); d = filepath.Dir(d) {
			if _, seen := byPath[d]; !seen {
				byPath[d] = false
			}
		}
	}
	out := make([]bindMount, 0, len(byPath))
	for p, ro := range byPath {
		out = append(out, bindMount{path: p, readOnly: ro})
	}
	// Parents first: binding a directory later would hide the mounts
	// already made below it.
	slices.SortFunc(out, func(a, b bindMount) int {
		if c := strings.Count(a.path, "/") - strings.Count(b.path, "/"); c != 0 {
			return c
		}
		return strings.Compare(a.path, b.path)
	})
	return out, missing, nil
}

// topmostRoot is the outermost writable dir holding p.
func topmostRoot(roots []string, p string) (string, bool) {
	best, found := "", false
	for _, r := range roots {
		if within(p, r) && (!found || len(r) < len(best)) {
			best, found = r, true
		}
	}
	return best, found
}

// within reports whether p is dir or below it (both clean and absolute).
func within(p, dir string) bool {
	if dir == "/" {
		return strings.HasPrefix(p, "/")
	}
	return p == dir || strings.HasPrefix(p, dir+"/")
}

// mountAll makes the bind mounts, in order.
func mountAll(ms []bindMount) error {
	for _, m := range ms {
		if err := unix.Mount(m.path, m.path, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("bind-mount %s: %w", m.path, err)
		}
		if !m.readOnly {
			continue
		}
		// A remount must repeat the flags the kernel locked on the
		// original mount (nosuid, nodev, …) or a user namespace is
		// refused it.
		var st unix.Statfs_t
		if err := unix.Statfs(m.path, &st); err != nil {
			return fmt.Errorf("keep %s read-only: statfs: %w", m.path, err)
		}
		flags := uintptr(unix.MS_BIND | unix.MS_REMOUNT | unix.MS_RDONLY)
		for _, f := range [...]struct{ st, ms uintptr }{
			{unix.ST_NOSUID, unix.MS_NOSUID},
			{unix.ST_NODEV, unix.MS_NODEV},
			{unix.ST_NOEXEC, unix.MS_NOEXEC},
			{unix.ST_NOATIME, unix.MS_NOATIME},
			{unix.ST_NODIRATIME, unix.MS_NODIRATIME},
			{unix.ST_RELATIME, unix.MS_RELATIME},
		} {
			if uintptr(st.Flags)&f.st != 0 {
				flags |= f.ms
			}
		}
		if err := unix.Mount("", m.path, "", flags, ""); err != nil {
			return fmt.Errorf("keep %s read-only: remount: %w", m.path, err)
		}
	}
	return nil
}
