package search

import (
	"context"
	"sync/atomic"
	"time"
)

// FindQuery lists the files below a directory whose paths match a glob
// (the Glob tool).
type FindQuery struct {
	// Root is the absolute directory to search.
	Root string
	// Pattern is a doublestar glob; "" matches every file. Without '/' it
	// matches base names at any depth; with '/' it is anchored at Root.
	Pattern string
	Filter
}

// File is one file Find returns.
type File struct {
	Path    string // absolute
	ModTime time.Time
}

// FindResult is what Find collected.
type FindResult struct {
	// Files are sorted newest first, then by path.
	Files []File
	// Warnings name directories and ignore files that could not be read.
	Warnings []string
	// Truncated says the result cap stopped the walk early.
	Truncated bool
}

// Find lists the files below q.Root that match q.Pattern. Bad arguments
// yield an *ArgError. When ctx ends first, Find returns what it found so
// far together with context.Cause(ctx). Safe for concurrent use.
func (e *Engine) Find(ctx context.Context, q FindQuery) (FindResult, error) {
	var glob *pathGlob
	if q.Pattern != "" {
		g, err := compileGlob("pattern", q.Pattern)
		if err != nil {
			return FindResult{}, err
		}
		glob = &g
	}
	excludes, err := compileGlobs("exclude", q.Exclude)
	if err != nil {
		return FindResult{}, err
	}
	root, isDir, err := e.statRoot(q.Root)
	if err != nil {
		return FindResult{}, err
	}
	if !isDir {
		return FindResult{}, rootError(root, ErrNotDir)
	}
	perWorker := make([][]File, e.workers)
	var used atomic.Int64
	var truncated atomic.Bool
	w := &walker{fs: e.files}
	w.spec = walkSpec{
		root:           root,
		includeIgnored: q.IncludeIgnored,
		excludes:       excludes,
		visit: func(wi int, c candidate) {
			if glob != nil && !glob.match(c.rel, c.name) {
				return
			}
			if used.Add(int64(len(c.path)+1)) > e.maxBytes {
				truncated.Store(true)
				w.stop()
				return
			}
			f := File{Path: c.path}
			if mt, err := e.files.modTime(c.path); err == nil {
				f.ModTime = mt
			} // else: removed since the listing; it still sorts, as the oldest
			perWorker[wi] = append(perWorker[wi], f)
		},
	}
	if glob != nil {
		w.spec.descend = glob.descender()
	}
	w.run(ctx, e.workers)
	warnings, fatal := w.result()
	var res FindResult
	for _, fs := range perWorker {
		res.Files = append(res.Files, fs...)
	}
	sortFiles(res.Files)
	res.Warnings = warnings
	res.Truncated = truncated.Load()
	if fatal != nil {
		return res, fatal
	}
	return res, context.Cause(ctx)
}
