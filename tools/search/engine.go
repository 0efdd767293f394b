package search

import (
	"errors"
	"io/fs"
	"path/filepath"
	"runtime"

	"github.com/kimigo/kimigo/osenv"
)

// DefaultMaxResultBytes caps the text a query collects (paths plus matched
// lines): 10 MiB, the cap upstream puts on ripgrep's output.
const DefaultMaxResultBytes = 10 << 20

// Options configure an Engine. The zero value searches the local file
// system with one worker per CPU (at least two).
type Options struct {
	// FS is the file system searched; nil means osenv.LocalFS{}. For
	// osenv.LocalFS and *osenv.Local, Linux builds take system-call fast
	// paths that bypass the os package but not the FS's semantics.
	FS osenv.FS
	// Workers bounds the goroutines of one query; 0 means
	// max(2, GOMAXPROCS).
	Workers int
	// MaxResultBytes caps what one query collects; 0 means
	// DefaultMaxResultBytes. Past it the query stops and reports
	// Truncated.
	MaxResultBytes int
}

// Engine runs Find and Grep queries. It holds no per-query state, so one
// Engine may serve concurrent queries.
type Engine struct {
	files    files
	workers  int
	maxBytes int64
}

// New returns an Engine for opts.
func New(opts Options) *Engine {
	fsys := opts.FS
	if fsys == nil {
		fsys = osenv.LocalFS{}
	}
	e := &Engine{files: newFiles(fsys), workers: opts.Workers, maxBytes: int64(opts.MaxResultBytes)}
	if e.workers <= 0 {
		e.workers = max(2, runtime.GOMAXPROCS(0))
	}
	if e.maxBytes <= 0 {
		e.maxBytes = DefaultMaxResultBytes
	}
	return e
}

// Filter is what Find and Grep share about which files a walk yields.
// Hidden files are always included; symlinks are never followed; the
// VCSDirs are always skipped.
type Filter struct {
	// IncludeIgnored also yields files that .gitignore, .ignore, .rgignore
	// or .git/info/exclude exclude.
	IncludeIgnored bool
	// Exclude are globs of files and directories to skip silently
	// (ripgrep's "--glob !x"): a glob without '/' matches a base name at
	// any depth, one with '/' the path relative to the root. They do not
	// apply to the root itself.
	Exclude []string
}

// statRoot cleans root and checks that it exists; it reports whether it is
// a directory.
func (e *Engine) statRoot(root string) (string, bool, error) {
	if !filepath.IsAbs(root) {
		return root, false, &ArgError{Arg: "path", Value: root, Err: errRelativeRoot, msg: "path " + quote(root) + " is not absolute"}
	}
	root = filepath.Clean(root)
	info, err := e.files.fs.Stat(root)
	if err != nil {
		return root, false, rootError(root, err)
	}
	if !info.IsDir() && !info.Mode().IsRegular() {
		return root, false, rootError(root, &fs.PathError{Op: "stat", Path: root, Err: errors.New("not a file or directory")})
	}
	return root, info.IsDir(), nil
}

var errRelativeRoot = errors.New("search root is not absolute")
