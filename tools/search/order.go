package search

import (
	"path/filepath"
	"slices"
	"strconv"
	"time"
)

// comparePaths orders paths component by component: a separator sorts
// before every other byte, so "a/x" comes before "a-b/x" and a directory's
// files stay together.
func comparePaths(a, b string) int {
	n := min(len(a), len(b))
	for i := range n {
		ca, cb := a[i], b[i]
		if ca == cb {
			continue
		}
		switch {
		case ca == filepath.Separator:
			return -1
		case cb == filepath.Separator:
			return 1
		case ca < cb:
			return -1
		default:
			return 1
		}
	}
	return len(a) - len(b)
}

// byNewest orders by modification time, newest first, then by path.
func byNewest(ta, tb time.Time, pa, pb string) int {
	if c := tb.Compare(ta); c != 0 {
		return c
	}
	return comparePaths(pa, pb)
}

func sortFiles(files []File) {
	slices.SortFunc(files, func(a, b File) int { return byNewest(a.ModTime, b.ModTime, a.Path, b.Path) })
}

func quote(s string) string { return strconv.Quote(s) }
