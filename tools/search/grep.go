package search

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"time"
)

// Mode is what Grep collects per file.
type Mode uint8

// Grep modes.
const (
	// FilesWithMatches collects the files with at least one match.
	FilesWithMatches Mode = iota
	// CountMatches collects the number of matches per file.
	CountMatches
	// Content collects the matching lines with their context.
	Content
)

// GrepQuery searches file contents with a regular expression (the Grep
// tool).
type GrepQuery struct {
	// Root is an absolute directory to walk, or a file to search as is (no
	// ignore, exclude, glob or type filter applies to a named file).
	Root string
	// Pattern is a Go (RE2) regular expression. Outside multiline mode
	// `^` and `$` anchor at line boundaries and a match never spans lines.
	Pattern    string
	IgnoreCase bool
	// Multiline searches whole files with `.` matching newlines too.
	Multiline bool
	// Glob keeps only files matching it (same anchoring as
	// FindQuery.Pattern); a leading '!' turns it into an exclusion.
	Glob string
	// Type keeps only files of a known type (FileTypes).
	Type string
	Mode Mode
	// Before and After are context lines around matches (Content mode).
	Before, After int
	Filter
}

// Line is one line of Content output.
type Line struct {
	Num   int    // 1-based
	Text  string // without the line terminator
	Match bool   // false for a context line
}

// FileMatches is what Grep found in one file.
type FileMatches struct {
	Path string // absolute
	// ModTime is set in FilesWithMatches mode, where it orders results.
	ModTime time.Time
	// Count is the number of matches (CountMatches mode; multiline
	// matches count once each). In other modes it is at least 1.
	Count int
	// Blocks are runs of consecutive lines (Content mode). Without
	// context there is one block; with context, blocks are separated by
	// gaps.
	Blocks [][]Line
}

// GrepResult is what Grep collected.
type GrepResult struct {
	// Files are sorted newest first in FilesWithMatches mode, by path
	// otherwise.
	Files []FileMatches
	// Warnings name directories, files and ignore files that could not be
	// read.
	Warnings []string
	// Truncated says the result cap stopped the search early.
	Truncated bool
}

// binaryProbe is how much of a file is checked for a NUL byte before it is
// skipped as binary: ripgrep's first read buffer.
const binaryProbe = 64 << 10

// Grep searches the files below q.Root (or the file q.Root) for q.Pattern.
// Bad arguments yield an *ArgError. When ctx ends first, Grep returns what
// it found so far together with context.Cause(ctx). Safe for concurrent
// use.
func (e *Engine) Grep(ctx context.Context, q GrepQuery) (GrepResult, error) {
	s, err := e.newGrepSearch(q)
	if err != nil {
		return GrepResult{}, err
	}
	root, isDir, err := e.statRoot(q.Root)
	if err != nil {
		return GrepResult{}, err
	}
	var res GrepResult
	if !isDir {
		sc := scratch{}
		fm, ok, err := s.searchFile(&sc, root, true)
		switch {
		case err != nil:
			return res, rootError(root, err)
		case ok && s.admit(fm):
			res.Files = []FileMatches{fm}
		}
		res.Truncated = s.truncated.Load()
		return res, context.Cause(ctx)
	}
	perWorker := make([][]FileMatches, e.workers)
	scratches := make([]scratch, e.workers)
	w := &walker{fs: e.files}
	w.spec = walkSpec{
		root:           root,
		includeIgnored: q.IncludeIgnored,
		excludes:       s.excludes,
		queueFiles:     true,
		visit: func(wi int, c candidate) {
			if !s.wanted(c) {
				return
			}
			fm, ok, err := s.searchFile(&scratches[wi], c.path, false)
			switch {
			case err != nil:
				w.warn(err.Error())
			case !ok:
			case s.admit(fm):
				perWorker[wi] = append(perWorker[wi], fm)
			default:
				w.stop()
			}
		},
	}
	if len(s.include) == 1 {
		w.spec.descend = s.include[0].descender()
	}
	w.run(ctx, e.workers)
	warnings, fatal := w.result()
	for _, fms := range perWorker {
		res.Files = append(res.Files, fms...)
	}
	if q.Mode == FilesWithMatches {
		slices.SortFunc(res.Files, func(a, b FileMatches) int { return byNewest(a.ModTime, b.ModTime, a.Path, b.Path) })
	} else {
		slices.SortFunc(res.Files, func(a, b FileMatches) int { return comparePaths(a.Path, b.Path) })
	}
	res.Warnings = warnings
	res.Truncated = s.truncated.Load()
	if fatal != nil {
		return res, fatal
	}
	return res, context.Cause(ctx)
}

// grepSearch is one compiled Grep query.
type grepSearch struct {
	files     files
	q         GrepQuery
	m         *matcher
	excludes  globSet
	include   globSet // files must match one of these (Glob)
	types     globSet // files must match one of these (Type)
	maxBytes  int64
	used      atomic.Int64
	truncated atomic.Bool
}

func (e *Engine) newGrepSearch(q GrepQuery) (*grepSearch, error) {
	if q.Pattern == "" {
		return nil, invalidArg("pattern", q.Pattern, errors.New("empty pattern"))
	}
	m, err := compileMatcher(q.Pattern, q.IgnoreCase, q.Multiline)
	if err != nil {
		return nil, err
	}
	s := &grepSearch{files: e.files, q: q, m: m, maxBytes: e.maxBytes}
	if s.excludes, err = compileGlobs("exclude", q.Exclude); err != nil {
		return nil, err
	}
	if q.Glob != "" {
		pattern, neg := strings.CutPrefix(q.Glob, "!")
		g, err := compileGlob("glob", pattern)
		if err != nil {
			return nil, invalidArg("glob", q.Glob, errBadGlob)
		}
		if neg {
			s.excludes = append(s.excludes, g)
		} else {
			s.include = globSet{g}
		}
	}
	if q.Type != "" {
		if s.types, err = typeGlobs(q.Type); err != nil {
			return nil, err
		}
	}
	if q.Before < 0 || q.After < 0 {
		return nil, invalidArg("context", "", errors.New("context lines must not be negative"))
	}
	return s, nil
}

// wanted applies the glob and type filters to a walked file.
func (s *grepSearch) wanted(c candidate) bool {
	name := c.name
	return (s.include == nil || s.include.match(c.rel, name)) && (s.types == nil || s.types.match(c.rel, name))
}

// admit charges fm against the result cap; false means the cap is reached
// and fm is dropped.
func (s *grepSearch) admit(fm FileMatches) bool {
	size := int64(len(fm.Path) + 1)
	for _, b := range fm.Blocks {
		for _, l := range b {
			size += int64(len(fm.Path) + len(l.Text) + 8)
		}
	}
	if s.used.Add(size) > s.maxBytes {
		s.truncated.Store(true)
		return false
	}
	return true
}

// scratch is a worker's reusable read buffer.
type scratch struct{ buf []byte }

// searchFile reads and searches one file; ok says it has a match. A file
// with a NUL byte in its first 64 KiB is binary and has no matches; past
// that, the search stops at the line holding the first NUL. A named file
// (explicit) with a NUL anywhere has no matches.
func (s *grepSearch) searchFile(sc *scratch, path string, explicit bool) (FileMatches, bool, error) {
	probe := binaryProbe
	if explicit {
		probe = 0 // read it all: a NUL anywhere means no lines
	}
	buf, binary, err := s.read(sc, path, probe)
	if err != nil || binary {
		return FileMatches{}, false, err
	}
	if z := bytes.IndexByte(buf, 0); z >= 0 {
		if explicit {
			return FileMatches{}, false, nil
		}
		buf = buf[:lineStart(buf, z)]
	}
	fm := FileMatches{Path: path}
	var hits []hit
	line, lineAt := 1, 0 // line number of offset lineAt
	fn := func(start, end, n int) bool {
		fm.Count += n
		if s.q.Mode != Content {
			return s.q.Mode == CountMatches
		}
		line += bytes.Count(buf[lineAt:start], []byte{'\n'})
		lineAt = start
		hits = appendSpan(hits, buf, line, start, end)
		return true
	}
	if s.m.multiline {
		limit := 0
		if s.q.Mode == FilesWithMatches {
			limit = 1
		}
		s.m.scanMultiline(buf, limit, fn)
	} else {
		s.m.scanLines(buf, s.q.Mode == CountMatches, fn)
	}
	if fm.Count == 0 {
		return FileMatches{}, false, nil
	}
	switch s.q.Mode {
	case Content:
		fm.Blocks = buildBlocks(buf, hits, s.q.Before, s.q.After)
	case FilesWithMatches:
		// Only matches are sorted by time, so only they pay for a stat.
		if mt, err := s.files.modTime(path); err == nil {
			fm.ModTime = mt
		} // else: removed since it was read; it sorts as the oldest
	}
	return fm, true, nil
}

// read reads the whole file into the scratch buffer.
func (s *grepSearch) read(sc *scratch, path string, probe int) ([]byte, bool, error) {
	b, binary, err := s.files.readAll(path, sc.buf, probe)
	if b != nil {
		sc.buf = b
	}
	return b, binary, err
}
