package profile

import (
	"cmp"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/kimigo/kimigo/osenv"
)

// hiddenDirs says whether a listing expands directories whose name starts
// with a dot.
type hiddenDirs int

const (
	collapseHidden hiddenDirs = iota // the system prompt's own directory
	expandHidden                     // additional directories
)

// Listing limits (spec 05 §8.5).
const (
	listRootMax  = 30
	listChildMax = 10
)

// dirEntry is one listed name.
type dirEntry struct {
	name string
	dir  bool
}

func (e dirEntry) label() string {
	if e.dir {
		return e.name + "/"
	}
	return e.name
}

// listDirectory renders the two-level tree of dir (spec 05 §8.5): at most
// 30 root entries and 10 per child directory, directories first, then by
// case-folded name (spec 05 §11.2).
func listDirectory(fsys osenv.FS, dir string, hidden hiddenDirs) string {
	entries, err := readSorted(fsys, dir)
	if err != nil {
		return "[not readable]"
	}
	if len(entries) == 0 {
		return "(empty directory)"
	}
	shown, omitted := limit(entries, listRootMax)
	var lines []string
	for i, e := range shown {
		last := i == len(shown)-1 && omitted == 0
		lines = append(lines, connector(last)+e.label())
		if !e.dir || (hidden == collapseHidden && strings.HasPrefix(e.name, ".")) {
			continue
		}
		prefix := "│   "
		if last {
			prefix = "    "
		}
		lines = append(lines, childLines(fsys, path.Join(dir, e.name), prefix)...)
	}
	if omitted > 0 {
		lines = append(lines, fmt.Sprintf("└── ... and %d more entries", omitted))
	}
	return strings.Join(lines, "\n")
}

// childLines lists one child directory under prefix.
func childLines(fsys osenv.FS, dir, prefix string) []string {
	entries, err := readSorted(fsys, dir)
	if err != nil {
		return []string{prefix + "└── [not readable]"}
	}
	shown, omitted := limit(entries, listChildMax)
	lines := make([]string, 0, len(shown)+1)
	for i, e := range shown {
		lines = append(lines, prefix+connector(i == len(shown)-1 && omitted == 0)+e.label())
	}
	if omitted > 0 {
		lines = append(lines, fmt.Sprintf("%s└── ... and %d more", prefix, omitted))
	}
	return lines
}

func connector(last bool) string {
	if last {
		return "└── "
	}
	return "├── "
}

func limit(entries []dirEntry, n int) ([]dirEntry, int) {
	if len(entries) <= n {
		return entries, 0
	}
	return entries[:n], len(entries) - n
}

// readSorted reads dir's entries, directories first, then by lower-cased
// name, ties by bytes. A symbolic link counts as what it points to; one
// that cannot be followed is listed as a file.
func readSorted(fsys osenv.FS, dir string) ([]dirEntry, error) {
	des, err := fsys.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	entries := make([]dirEntry, 0, len(des))
	for _, de := range des {
		e := dirEntry{name: de.Name(), dir: de.IsDir()}
		if de.Type()&fs.ModeSymlink != 0 {
			fi, err := fsys.Stat(path.Join(dir, de.Name()))
			e.dir = err == nil && fi.IsDir()
		}
		entries = append(entries, e)
	}
	slices.SortFunc(entries, func(a, b dirEntry) int {
		if a.dir != b.dir {
			if a.dir {
				return -1
			}
			return 1
		}
		return cmp.Or(strings.Compare(strings.ToLower(a.name), strings.ToLower(b.name)), strings.Compare(a.name, b.name))
	})
	return entries, nil
}
