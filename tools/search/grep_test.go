package search

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/osenv"
)

func grep(t *testing.T, e *Engine, q GrepQuery) GrepResult {
	t.Helper()
	res, err := e.Grep(t.Context(), q)
	if err != nil {
		t.Fatalf("Grep(%+v): %v", q, err)
	}
	return res
}

func relFiles(root string, res GrepResult) []string {
	var out []string
	for _, f := range res.Files {
		rel, _ := filepath.Rel(root, f.Path)
		out = append(out, filepath.ToSlash(rel))
	}
	return out
}

func numbered(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestGrepContentBlocks(t *testing.T) {
	// hit on lines 10 and 14 of 15
	text := strings.Replace(strings.Replace(numbered(1, 15), "line 10\n", "hit 10\n", 1), "line 14\n", "hit 14\n", 1)
	root := makeTree(t, map[string]string{"a.txt": text})
	e := New(Options{})
	ctx := func(n int) Line { return Line{Num: n, Text: fmt.Sprintf("line %d", n)} }
	match := func(n int) Line { return Line{Num: n, Text: fmt.Sprintf("hit %d", n), Match: true} }
	for _, tt := range []struct {
		name          string
		before, after int
		want          [][]Line
	}{
		{"no context: one block", 0, 0, [][]Line{{match(10), match(14)}}},
		{"one line around: two blocks", 1, 1, [][]Line{{ctx(9), match(10), ctx(11)}, {ctx(13), match(14), ctx(15)}}},
		{"touching context merges", 1, 2, [][]Line{{ctx(9), match(10), ctx(11), ctx(12), ctx(13), match(14), ctx(15)}}},
		{"overlapping context merges, stops at EOF", 2, 2, [][]Line{{ctx(8), ctx(9), match(10), ctx(11), ctx(12), ctx(13), match(14), ctx(15)}}},
		{"before only", 3, 0, [][]Line{{ctx(7), ctx(8), ctx(9), match(10), ctx(11), ctx(12), ctx(13), match(14)}}},
		{"after only", 0, 1, [][]Line{{match(10), ctx(11)}, {match(14), ctx(15)}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := grep(t, e, GrepQuery{Root: root, Pattern: "hit", Mode: Content, Before: tt.before, After: tt.after})
			if len(res.Files) != 1 {
				t.Fatalf("files = %v", res.Files)
			}
			if d := cmp.Diff(tt.want, res.Files[0].Blocks); d != "" {
				t.Errorf("blocks (-want +got):\n%s", d)
			}
		})
	}
}

func TestGrepContextAtFileStart(t *testing.T) {
	root := makeTree(t, map[string]string{"a.txt": "hit\nx\ny", "b.txt": "a\r\nhit\r\n"})
	res := grep(t, New(Options{}), GrepQuery{Root: root, Pattern: "hit", Mode: Content, Before: 5, After: 5})
	want := []FileMatches{
		{Path: filepath.Join(root, "a.txt"), Count: 1, Blocks: [][]Line{{{1, "hit", true}, {2, "x", false}, {3, "y", false}}}},
		{Path: filepath.Join(root, "b.txt"), Count: 1, Blocks: [][]Line{{{1, "a\r", false}, {2, "hit\r", true}}}},
	}
	if d := cmp.Diff(want, res.Files, cmpIgnoreModTime); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

var cmpIgnoreModTime = cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".ModTime" }, cmp.Ignore())

func TestGrepCountsAndOrder(t *testing.T) {
	root := makeTree(t, map[string]string{
		"b.go": "foo foo\nfoo\n", "a/z.go": "foo\n", "a-b/y.go": "xfoox\n", "c.go": "bar\n",
	}, "b.go", "a-b/y.go")
	e := New(Options{})
	res := grep(t, e, GrepQuery{Root: root, Pattern: "foo", Mode: CountMatches})
	var got []string
	for _, f := range res.Files {
		rel, _ := filepath.Rel(root, f.Path)
		got = append(got, fmt.Sprintf("%s:%d", filepath.ToSlash(rel), f.Count))
	}
	if d := cmp.Diff([]string{"a/z.go:1", "a-b/y.go:1", "b.go:3"}, got); d != "" {
		t.Errorf("counts by path (-want +got):\n%s", d)
	}
	files := relFiles(root, grep(t, e, GrepQuery{Root: root, Pattern: "foo"}))
	if d := cmp.Diff([]string{"a-b/y.go", "b.go", "a/z.go"}, files); d != "" {
		t.Errorf("files newest first (-want +got):\n%s", d)
	}
}

func TestGrepFlagsAndFilters(t *testing.T) {
	root := makeTree(t, map[string]string{
		"a.go": "Hello\n", "b.ts": "hello\n", "c.tsx": "HELLO there\n", "sub/d.go": "say hello\n",
		"Makefile": "hello:\n", "e.txt": "he\nllo\n",
	})
	e := New(Options{})
	for _, tt := range []struct {
		name string
		q    GrepQuery
		want []string
	}{
		{"case-sensitive", GrepQuery{Pattern: "hello"}, []string{"Makefile", "b.ts", "sub/d.go"}},
		{"case-insensitive", GrepQuery{Pattern: "hello", IgnoreCase: true}, []string{"Makefile", "a.go", "b.ts", "c.tsx", "sub/d.go"}},
		{"inline flag", GrepQuery{Pattern: "(?i)HELLO$"}, []string{"a.go", "b.ts", "sub/d.go"}},
		{"type", GrepQuery{Pattern: "hello", IgnoreCase: true, Type: "ts"}, []string{"b.ts", "c.tsx"}},
		{"type by name", GrepQuery{Pattern: "hello", Type: "make"}, []string{"Makefile"}},
		{"glob base name", GrepQuery{Pattern: "hello", IgnoreCase: true, Glob: "*.go"}, []string{"a.go", "sub/d.go"}},
		{"glob anchored", GrepQuery{Pattern: "hello", Glob: "sub/*.go"}, []string{"sub/d.go"}},
		{"negated glob", GrepQuery{Pattern: "hello", IgnoreCase: true, Glob: "!*.go"}, []string{"Makefile", "b.ts", "c.tsx"}},
		{"multiline", GrepQuery{Pattern: `he\nllo`, Multiline: true}, []string{"e.txt"}},
		{"multiline dot spans lines", GrepQuery{Pattern: `he.llo`, Multiline: true}, []string{"e.txt"}},
		{"line mode never spans lines", GrepQuery{Pattern: `he\sllo`}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.q.Root = root
			tt.q.Mode = CountMatches // path order
			if d := cmp.Diff(tt.want, relFiles(root, grep(t, e, tt.q))); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestGrepMultilineContentAndCount(t *testing.T) {
	root := makeTree(t, map[string]string{"a.txt": "x\nbegin\nmid\nend\ny\nbegin end\n"})
	res := grep(t, New(Options{}), GrepQuery{Root: root, Pattern: `begin.*?end`, Multiline: true, Mode: Content})
	want := [][]Line{{{2, "begin", true}, {3, "mid", true}, {4, "end", true}, {6, "begin end", true}}}
	if d := cmp.Diff(want, res.Files[0].Blocks); d != "" {
		t.Errorf("blocks (-want +got):\n%s", d)
	}
	res = grep(t, New(Options{}), GrepQuery{Root: root, Pattern: `begin.*?end`, Multiline: true, Mode: CountMatches})
	if res.Files[0].Count != 2 {
		t.Errorf("count = %d, want 2 matches", res.Files[0].Count)
	}
}

func TestGrepBinaryFiles(t *testing.T) {
	late := append(append([]byte("needle early\n"), bytes.Repeat([]byte("filler\n"), 12<<10)...), []byte("bin\x00ary needle late\nneedle after\n")...)
	root := makeTree(t, map[string]string{
		"early.bin": "needle\n\x00", "text.txt": "needle\n", "late.dat": string(late),
	})
	// The local fast path and the generic osenv.FS path must agree.
	for name, e := range map[string]*Engine{"local": New(Options{}), "generic": New(Options{FS: failingFS{}})} {
		res := grep(t, e, GrepQuery{Root: root, Pattern: "needle", Mode: CountMatches})
		var got []string
		for _, f := range res.Files {
			got = append(got, fmt.Sprintf("%s:%d", filepath.Base(f.Path), f.Count))
		}
		// A NUL past the first 64 KiB ends the search at its line.
		if d := cmp.Diff([]string{"late.dat:1", "text.txt:1"}, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", name, d)
		}
		// A named file is searched whatever the filters say, but a NUL
		// anywhere means no lines.
		for file, want := range map[string]int{"early.bin": 0, "late.dat": 0, "text.txt": 1} {
			res := grep(t, e, GrepQuery{Root: filepath.Join(root, file), Pattern: "needle", Type: "go", Glob: "!*", Filter: Filter{Exclude: []string{file}}})
			if len(res.Files) != want {
				t.Errorf("%s: named %s: %d files, want %d", name, file, len(res.Files), want)
			}
		}
	}
}

func TestGrepNamedFileIgnoresIgnoreRules(t *testing.T) {
	root := makeTree(t, map[string]string{".ignore": "*.log\n", "a.log": "needle\n"})
	e := New(Options{})
	if got := relFiles(root, grep(t, e, GrepQuery{Root: root, Pattern: "needle"})); len(got) != 0 {
		t.Errorf("walk found ignored %v", got)
	}
	res := grep(t, e, GrepQuery{Root: filepath.Join(root, "a.log"), Pattern: "needle"})
	if len(res.Files) != 1 || res.Files[0].Path != filepath.Join(root, "a.log") {
		t.Errorf("named ignored file: %v", res.Files)
	}
}

func TestGrepBadInput(t *testing.T) {
	root := makeTree(t, map[string]string{"a.txt": "x\n"})
	missing := filepath.Join(root, "missing")
	e := New(Options{})
	for _, tt := range []struct {
		name     string
		q        GrepQuery
		arg, msg string
	}{
		{"invalid regex", GrepQuery{Root: root, Pattern: "("}, "pattern", "invalid pattern \"(\": missing closing ): `(`"},
		{"empty pattern", GrepQuery{Root: root}, "pattern", `invalid pattern "": empty pattern`},
		{"invalid glob", GrepQuery{Root: root, Pattern: "x", Glob: "[x"}, "glob", `invalid glob "[x": syntax error in glob`},
		{"invalid negated glob", GrepQuery{Root: root, Pattern: "x", Glob: "!{x"}, "glob", `invalid glob "!{x": syntax error in glob`},
		{"unknown type", GrepQuery{Root: root, Pattern: "x", Type: "nope"}, "type", "unrecognized file type: nope"},
		{"missing root", GrepQuery{Root: missing, Pattern: "x"}, "path", `path "` + missing + `" does not exist`},
		{"relative root", GrepQuery{Root: "a", Pattern: "x"}, "path", `path "a" is not absolute`},
		{"negative context", GrepQuery{Root: root, Pattern: "x", Before: -1}, "context", `invalid context "": context lines must not be negative`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.Grep(t.Context(), tt.q)
			var ae *ArgError
			if !errors.As(err, &ae) || ae.Arg != tt.arg || ae.Error() != tt.msg {
				t.Fatalf("Grep = %v, want an *ArgError for %s: %s", err, tt.arg, tt.msg)
			}
		})
	}
}

// cancellingFS cancels a context on the n-th directory listing.
type cancellingFS struct {
	osenv.LocalFS
	listings *atomic.Int32
	n        int32
	cancel   context.CancelCauseFunc
}

var errStopWalk = errors.New("stop the walk")

func (c cancellingFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if c.listings.Add(1) == c.n {
		c.cancel(errStopWalk)
	}
	return c.LocalFS.ReadDir(name)
}

func TestGrepCancelledMidWalk(t *testing.T) {
	files := map[string]string{}
	for i := range 60 {
		files[fmt.Sprintf("d%02d/f.txt", i)] = "needle\n"
	}
	root := makeTree(t, files)
	ctx, cancel := context.WithCancelCause(t.Context())
	defer cancel(nil)
	e := New(Options{Workers: 2, FS: cancellingFS{listings: new(atomic.Int32), n: 5, cancel: cancel}})
	res, err := e.Grep(ctx, GrepQuery{Root: root, Pattern: "needle"})
	if !errors.Is(err, errStopWalk) {
		t.Fatalf("Grep = %v, want the cancellation cause", err)
	}
	if len(res.Files) >= 60 {
		t.Errorf("the walk went on after cancellation: %d files", len(res.Files))
	}
}

func TestGrepResultCapAndWarnings(t *testing.T) {
	files := map[string]string{}
	for i := range 40 {
		files[fmt.Sprintf("f%02d.txt", i)] = strings.Repeat("needle\n", 20)
	}
	root := makeTree(t, files)
	res := grep(t, New(Options{MaxResultBytes: 2000}), GrepQuery{Root: root, Pattern: "needle", Mode: Content})
	if !res.Truncated || len(res.Files) == 0 || len(res.Files) >= 40 {
		t.Errorf("truncated=%v with %d files; want a partial, truncated result", res.Truncated, len(res.Files))
	}
	bad := filepath.Join(root, "f03.txt")
	if err := os.Chmod(bad, 0); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		return // root reads it anyway
	}
	res = grep(t, New(Options{}), GrepQuery{Root: root, Pattern: "needle"})
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], bad) {
		t.Errorf("warnings = %v, want one naming %s", res.Warnings, bad)
	}
}
