// Package search is kimigo's native file search engine behind the Grep and
// Glob tools (spec 05 §11.3): no ripgrep binary at run time, but ripgrep's
// observable rules for which files a search sees.
//
// It owns: the parallel walk (walk.go: a bounded pool of workers sharing a
// stack of directories and files; symlinks are not followed, hidden files
// are included, VCS directories are skipped); ignore-file semantics
// (ignore.go, wildmatch.go, dirframe.go: .gitignore and .git/info/exclude
// inside git work trees, .ignore and .rgignore everywhere, nested files
// scoped to their directory, enclosing directories' files too, negation,
// anchoring, directory-only rules, and ripgrep's precedence of kinds);
// exclusion and match globs via doublestar (glob.go); file types
// (types.go); the regular-expression matcher with its literal fast path
// (matcher.go, literal.go); context blocks (blocks.go); result ordering
// (order.go). Files are reached through osenv.FS (dirent.go); when that is
// the local file system, Linux system-call fast paths list directories and
// read files without the os package's per-file bookkeeping
// (localfs_linux.go), with the same results.
//
// It does not own tool arguments, path policy, sensitive-file rules,
// output formatting, pagination or time limits: the tools in package tools
// pass exclusion globs and a context deadline, and format the results.
//
// Invariants, and the tests that guard them:
//   - The local fast paths list, stat and read exactly what osenv.FS would
//     (localfs_linux_test.go; the parity test runs on them).
//   - Results do not depend on scheduling: the walk collects per worker
//     and sorts afterwards, newest first then by path for file lists, by
//     path for counts and content (find_test.go, grep_test.go).
//   - Ignore rules match git's for single files (ignore_test.go, checked
//     against `git check-ignore`) and the walk yields ripgrep's file sets
//     (parity_test.go, against `rg --files --hidden` and `rg -l --hidden`;
//     it fails under CI=true when rg is missing).
//   - Outside multiline mode every reported line matches on its own, and
//     the literal fast path finds exactly what the regular expression
//     finds (matcher_test.go).
//   - Bad input (invalid regex or glob, unknown type, missing or relative
//     root) is an *ArgError naming the argument, never a panic; every
//     worker goroutine has exited when Find or Grep returns, also on
//     cancellation (grep_test.go, find_test.go).
//
// Performance against ripgrep is measured by
// `go run ./tools/search/internal/benchcmp` (Go's source tree and a
// generated 100k-file tree; medians and ratios).
package search
