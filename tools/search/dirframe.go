package search

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/kimigo/kimigo/osenv"
)

// ignoreKind is a source of ignore rules. The order is the precedence: a
// match in a higher kind decides even when a lower kind, in a deeper
// directory, says otherwise (ripgrep's rule).
type ignoreKind uint8

const (
	kindRgignore  ignoreKind = iota // .rgignore, everywhere
	kindIgnore                      // .ignore, everywhere
	kindGitignore                   // .gitignore, only inside a git work tree
	kindExclude                     // .git/info/exclude of a repository root
	numKinds
)

var ignoreFileNames = [numKinds]string{
	kindRgignore:  ".rgignore",
	kindIgnore:    ".ignore",
	kindGitignore: ".gitignore",
	kindExclude:   filepath.Join(".git", "info", "exclude"),
}

// dirFrame is what a walk knows about one directory: the ignore rules it
// holds and whether it is the root of a git work tree. Frames are
// immutable once built and shared by every file below the directory.
type dirFrame struct {
	dir    string // absolute and clean
	hasGit bool   // the directory contains ".git"
	anyGit bool   // this directory or an ancestor contains ".git"
	rules  [numKinds]ignoreRules
	// chain is this frame and its ancestors that hold rules or ".git",
	// deepest first.
	chain []*dirFrame
}

// newDirFrame builds the frame of dir below parent (nil for the file-system
// root). entries are the directory's entries when the caller listed it;
// nil means probe the ignore files by name. Unreadable ignore files are
// reported through warn and otherwise skipped.
func newDirFrame(fsys osenv.FS, parent *dirFrame, dir string, entries []dirent, warn func(string)) *dirFrame {
	f := &dirFrame{dir: dir}
	var present [numKinds]bool
	if entries != nil {
		for _, e := range entries {
			switch e.name {
			case ".git":
				f.hasGit = true
				present[kindExclude] = e.typ.IsDir()
			case ".rgignore":
				present[kindRgignore] = true
			case ".ignore":
				present[kindIgnore] = true
			case ".gitignore":
				present[kindGitignore] = true
			}
		}
	} else {
		if _, err := fsys.Lstat(filepath.Join(dir, ".git")); err == nil {
			f.hasGit = true
		}
		present = [numKinds]bool{true, true, true, f.hasGit}
	}
	f.anyGit = f.hasGit || (parent != nil && parent.anyGit)
	present[kindGitignore] = present[kindGitignore] && f.anyGit // never consulted outside a work tree
	for k := range numKinds {
		if present[k] {
			f.rules[k] = readIgnoreFile(fsys, filepath.Join(dir, ignoreFileNames[k]), warn)
		}
	}
	relevant := f.hasGit
	for _, r := range f.rules {
		relevant = relevant || len(r) > 0
	}
	var inherited []*dirFrame
	if parent != nil {
		inherited = parent.chain
	}
	f.chain = inherited
	if relevant {
		f.chain = append(make([]*dirFrame, 0, len(inherited)+1), f)
		f.chain = append(f.chain, inherited...)
	}
	return f
}

func readIgnoreFile(fsys osenv.FS, name string, warn func(string)) ignoreRules {
	data, err := fsys.ReadFile(name)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, errNotDirectory) {
			warn(fmt.Sprintf("read ignore file %s: %v", name, err))
		}
		return nil
	}
	return parseIgnore(data)
}

// ancestorFrames builds the frames of every directory above root, from the
// file-system root down, so ignore files of enclosing directories apply
// (ripgrep reads them too). It returns the frame of root's parent, or nil
// when root is the file-system root.
func ancestorFrames(fsys osenv.FS, root string, warn func(string)) *dirFrame {
	var dirs []string
	for d := root; ; {
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		dirs = append(dirs, parent)
		d = parent
	}
	var f *dirFrame
	for i := len(dirs) - 1; i >= 0; i-- {
		f = newDirFrame(fsys, f, dirs[i], nil, warn)
	}
	return f
}

// isIgnored applies the ignore files to abs, an entry of the frame's
// directory. Per kind, the deepest directory with a matching rule decides;
// .gitignore and info/exclude stop at the nearest enclosing work-tree root
// and apply only inside a work tree. A whitelist match means not ignored.
func (f *dirFrame) isIgnored(abs string, isDir bool) bool {
	for k := range numKinds {
		git := k == kindGitignore || k == kindExclude
		if git && !f.anyGit {
			continue
		}
		for _, fr := range f.chain {
			if rs := fr.rules[k]; len(rs) > 0 {
				switch rs.match(fr.rel(abs), isDir) {
				case ignored:
					return true
				case whitelist:
					return false
				}
			}
			if git && fr.hasGit {
				break
			}
		}
	}
	return false
}

// rel is abs relative to the frame's directory, slash-separated.
func (f *dirFrame) rel(abs string) string {
	if len(f.dir) > 0 && f.dir[len(f.dir)-1] == filepath.Separator {
		return filepath.ToSlash(abs[len(f.dir):])
	}
	return filepath.ToSlash(abs[len(f.dir)+1:])
}
