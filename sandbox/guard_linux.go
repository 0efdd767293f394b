package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// guard is what a server's protection rests on, taken when it set up and
// checked before each command. The server's mount namespace keeps the
// mounts it made; the work dirs may change under it:
//   - a path it mounted is removed or renamed outside the sandbox: the
//     kernel takes the mount away with it (mounts on a path unlinked in
//     another namespace are detached), and a new, unprotected file of
//     that name takes its place;
//   - an entry that did not exist appears (git init, a .git file, a
//     policy entry created later);
//   - a writable dir or the temporary directory is replaced: the
//     Landlock rules name the old one.
//
// The client then starts the command in a new server, whose mounts and
// rules fit. A check costs a few stat calls.
type guard struct {
	mounts  []heldMount
	missing []string   // entries that did not exist
	gits    []gitState // each writable dir's .git
	dirs    []dirState // writable dirs and the temporary directory
}

// heldMount is a bind mount the server made, and the mount's id.
type heldMount struct {
	path  string
	mntID uint64
}

// gitState is what a writable dir's .git was (os.Stat's view: a link
// counts as what it leads to).
type gitState struct {
	path string
	kind uint32 // S_IFDIR, S_IFREG, …; 0: none
}

// dirState identifies a directory beyond its name: device, inode and,
// where the file system tells it, its birth time (inode numbers are
// reused).
type dirState struct {
	path     string
	dev, ino uint64
	btime    unix.StatxTimestamp
}

func newGuard(sp spec, ms []bindMount, missing []string) (guard, error) {
	g := guard{missing: missing}
	for _, m := range ms {
		id, err := mountIDOf(m.path)
		if err != nil {
			return guard{}, fmt.Errorf("keep %s read-only: %w", m.path, err)
		}
		g.mounts = append(g.mounts, heldMount{m.path, id})
	}
	if sp.MountNS {
		for _, root := range sp.Write {
			git := filepath.Join(root, ".git")
			g.gits = append(g.gits, gitState{git, kindOf(git)})
		}
	}
	dirs := append([]string{}, sp.Write...)
	if sp.Temp != "" {
		dirs = append(dirs, sp.Temp)
	}
	for _, d := range dirs {
		st, err := dirStateOf(d)
		if err != nil {
			return guard{}, err
		}
		g.dirs = append(g.dirs, st)
	}
	return g, nil
}

// check returns an error naming what changed, if anything did.
func (g guard) check() error {
	for _, h := range g.mounts {
		id, err := mountIDOf(h.path)
		if err != nil {
			return fmt.Errorf("%s: %w", h.path, err)
		}
		if id != h.mntID {
			return fmt.Errorf("%s was replaced since the sandbox protected it", h.path)
		}
	}
	for _, m := range g.missing {
		if _, err := os.Lstat(m); !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s appeared since the sandbox started", m)
		}
	}
	for _, s := range g.gits {
		if kindOf(s.path) != s.kind {
			return fmt.Errorf("%s changed since the sandbox started", s.path)
		}
	}
	for _, d := range g.dirs {
		st, err := dirStateOf(d.path)
		if err != nil {
			return err
		}
		if st != d {
			return fmt.Errorf("%s was replaced since the sandbox started", d.path)
		}
	}
	return nil
}

// kindOf is the file type of path, following links; 0 when it does not
// lead anywhere.
func kindOf(path string) uint32 {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return 0
	}
	return st.Mode & unix.S_IFMT
}

func dirStateOf(path string) (dirState, error) {
	var st unix.Statx_t
	if err := unix.Statx(unix.AT_FDCWD, path, unix.AT_STATX_DONT_SYNC, unix.STATX_INO|unix.STATX_BTIME, &st); err != nil {
		return dirState{}, fmt.Errorf("writable dir %s: %w", path, err)
	}
	d := dirState{path: path, dev: unix.Mkdev(st.Dev_major, st.Dev_minor), ino: st.Ino}
	if st.Mask&unix.STATX_BTIME != 0 {
		d.btime = st.Btime
	}
	return d, nil
}

// mountIDOf is the id of the mount path is on (Linux 5.8; Landlock's
// ABI 3 needs 6.2).
func mountIDOf(path string) (uint64, error) {
	var st unix.Statx_t
	if err := unix.Statx(unix.AT_FDCWD, path, unix.AT_SYMLINK_NOFOLLOW|unix.AT_STATX_DONT_SYNC, unix.STATX_MNT_ID, &st); err != nil {
		return 0, err
	}
	if st.Mask&unix.STATX_MNT_ID == 0 {
		return 0, errors.New("this kernel does not tell mount ids")
	}
	return st.Mnt_id, nil
}
