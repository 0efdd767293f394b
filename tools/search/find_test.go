package search

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/osenv"
)

// makeTree writes files (slash-separated path → content) below a new temp
// dir and returns it. Files get increasing modification times in the
// order of mtimes, then an old time for everything else.
func makeTree(t *testing.T, files map[string]string, mtimes ...string) string {
	t.Helper()
	root := t.TempDir()
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	for i, rel := range mtimes {
		at := time.Date(2024, 1, 1, 0, 0, i, 0, time.UTC)
		if err := os.Chtimes(filepath.Join(root, filepath.FromSlash(rel)), at, at); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func findRel(t *testing.T, e *Engine, q FindQuery) []string {
	t.Helper()
	res, err := e.Find(t.Context(), q)
	if err != nil {
		t.Fatalf("Find(%+v): %v", q, err)
	}
	var out []string
	for _, f := range res.Files {
		rel, _ := filepath.Rel(q.Root, f.Path)
		out = append(out, filepath.ToSlash(rel))
	}
	return out
}

func TestFindPatterns(t *testing.T) {
	root := makeTree(t, map[string]string{
		"a.ts": "", "src/b.ts": "", "src/c.tsx": "", "src/deep/d.ts": "", "test/e.ts": "",
		"docs/x.md": "", ".hidden/f.ts": "",
	})
	e := New(Options{})
	for _, tt := range []struct {
		pattern string
		want    []string
	}{
		{"*.ts", []string{".hidden/f.ts", "a.ts", "src/b.ts", "src/deep/d.ts", "test/e.ts"}},
		{"src/*.ts", []string{"src/b.ts"}},
		{"/src/*.ts", []string{"src/b.ts"}},
		{"./src/*.ts", []string{"src/b.ts"}},
		{"src/**/*.ts", []string{"src/b.ts", "src/deep/d.ts"}},
		{"**/*.ts", []string{".hidden/f.ts", "a.ts", "src/b.ts", "src/deep/d.ts", "test/e.ts"}},
		{"*.{ts,tsx}", []string{".hidden/f.ts", "a.ts", "src/b.ts", "src/c.tsx", "src/deep/d.ts", "test/e.ts"}},
		{"{src,test}/**/*.ts", []string{"src/b.ts", "src/deep/d.ts", "test/e.ts"}},
		{"*/*.ts", []string{".hidden/f.ts", "src/b.ts", "test/e.ts"}},
		{"src/deep", nil}, // files only
		{"", []string{".hidden/f.ts", "a.ts", "docs/x.md", "src/b.ts", "src/c.tsx", "src/deep/d.ts", "test/e.ts"}},
	} {
		got := findRel(t, e, FindQuery{Root: root, Pattern: tt.pattern})
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("pattern %q (-want +got):\n%s", tt.pattern, d)
		}
	}
}

func TestFindOrderNewestFirstThenPath(t *testing.T) {
	root := makeTree(t, map[string]string{"a.ts": "", "src/b.ts": "", "c.ts": "", "a-b/z.ts": "", "a/z.ts": ""}, "a.ts", "src/b.ts")
	got := findRel(t, New(Options{}), FindQuery{Root: root, Pattern: "*.ts"})
	// Equal times fall back to component order: "a/z.ts" before "a-b/z.ts".
	want := []string{"src/b.ts", "a.ts", "a/z.ts", "a-b/z.ts", "c.ts"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("order (-want +got):\n%s", d)
	}
}

func TestFindIgnoreRules(t *testing.T) {
	for _, tt := range []struct {
		name  string
		files map[string]string
		root  string // below the temp dir
		want  []string
	}{
		{"gitignore outside a work tree is not read",
			map[string]string{".gitignore": "*.log\n", "a.log": ""},
			"", []string{".gitignore", "a.log"}},
		{".ignore and .rgignore apply without git",
			map[string]string{".ignore": "*.log\n", "sub/.rgignore": "*.tmp\n", "a.log": "", "sub/b.tmp": "", "c.tmp": ""},
			"", []string{".ignore", "c.tmp", "sub/.rgignore"}},
		{".ignore outranks a deeper .gitignore negation",
			map[string]string{".git/HEAD": "", ".ignore": "*.gen\n", "sub/.gitignore": "!*.gen\n", "sub/a.gen": ""},
			"", []string{".ignore", "sub/.gitignore"}},
		{".rgignore negation outranks .ignore",
			map[string]string{".ignore": "*.gen\n", ".rgignore": "!keep.gen\n", "keep.gen": "", "drop.gen": ""},
			"", []string{".ignore", ".rgignore", "keep.gen"}},
		{"a nested repository does not inherit the outer .gitignore",
			map[string]string{".git/HEAD": "", ".gitignore": "*.log\n", ".ignore": "*.tmp\n", "inner/.git/HEAD": "", "inner/a.log": "", "inner/b.tmp": "", "c.log": ""},
			"", []string{".gitignore", ".ignore", "inner/a.log"}},
		{"ignore files of enclosing directories apply",
			map[string]string{".git/HEAD": "", ".gitignore": "*.log\nsub/skip/\n", "sub/a.log": "", "sub/b.txt": "", "sub/skip/c.txt": ""},
			"sub", []string{"b.txt"}},
		{"a .gitignore above the repository root does not apply",
			map[string]string{".gitignore": "*.log\n", "repo/.git/HEAD": "", "repo/a.log": ""},
			"repo", []string{"a.log"}},
		{"info/exclude applies to its repository",
			map[string]string{".git/info/exclude": "*.x\n", "a.x": "", "d/b.x": "", "c.y": ""},
			"", []string{"c.y"}},
		{"VCS directories are skipped, hidden files are not",
			map[string]string{".git/config": "", ".svn/e": "", "a/.hg/s": "", ".jj/x": "", ".bzr/y": "", ".sl/z": "", ".hidden": "", ".config/k": ""},
			"", []string{".config/k", ".hidden"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			base := makeTree(t, tt.files)
			root := filepath.Join(base, filepath.FromSlash(tt.root))
			got := findRel(t, New(Options{}), FindQuery{Root: root})
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestFindIncludeIgnoredAndExcludes(t *testing.T) {
	root := makeTree(t, map[string]string{
		".git/HEAD": "", ".gitignore": "node_modules\n", "node_modules/x.ts": "", "a.ts": "",
		".env": "", "sub/.env": "", ".aws/credentials/k": "", "keep.ts": "",
	})
	e := New(Options{})
	excludes := []string{"**/.env", "**/.aws/credentials", "**/.aws/credentials/**"}
	got := findRel(t, e, FindQuery{Root: root, Filter: Filter{Exclude: excludes}})
	if d := cmp.Diff([]string{".gitignore", "a.ts", "keep.ts"}, got); d != "" {
		t.Errorf("ignored (-want +got):\n%s", d)
	}
	got = findRel(t, e, FindQuery{Root: root, Pattern: "*.ts", Filter: Filter{IncludeIgnored: true, Exclude: excludes}})
	if d := cmp.Diff([]string{"a.ts", "keep.ts", "node_modules/x.ts"}, got); d != "" {
		t.Errorf("include ignored (-want +got):\n%s", d)
	}
	got = findRel(t, e, FindQuery{Root: root, Pattern: ".git/**"})
	if len(got) != 0 {
		t.Errorf(".git/** found %v; VCS directories must stay hidden", got)
	}
}

func TestFindSkipsSymlinks(t *testing.T) {
	root := makeTree(t, map[string]string{"real/a.txt": "", "b.txt": ""})
	for name, target := range map[string]string{"link.txt": "b.txt", "linkdir": "real", "loop": "loop", "dangling": "nope"} {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	got := findRel(t, New(Options{}), FindQuery{Root: root})
	if d := cmp.Diff([]string{"b.txt", "real/a.txt"}, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	// A symlinked root is followed: the caller named it.
	got = findRel(t, New(Options{}), FindQuery{Root: filepath.Join(root, "linkdir")})
	if d := cmp.Diff([]string{"a.txt"}, got); d != "" {
		t.Errorf("symlinked root (-want +got):\n%s", d)
	}
}

func TestFindBadInput(t *testing.T) {
	root := makeTree(t, map[string]string{"a.txt": ""})
	e := New(Options{})
	for _, tt := range []struct {
		name     string
		q        FindQuery
		arg, msg string
	}{
		{"invalid glob", FindQuery{Root: root, Pattern: "[abc"}, "pattern", `invalid pattern "[abc": syntax error in glob`},
		{"invalid exclude", FindQuery{Root: root, Filter: Filter{Exclude: []string{"{a"}}}, "exclude", `invalid exclude "{a": syntax error in glob`},
		{"missing root", FindQuery{Root: filepath.Join(root, "missing")}, "path", `path "` + filepath.Join(root, "missing") + `" does not exist`},
		{"file root", FindQuery{Root: filepath.Join(root, "a.txt")}, "path", `path "` + filepath.Join(root, "a.txt") + `" is not a directory`},
		{"relative root", FindQuery{Root: "rel/dir"}, "path", `path "rel/dir" is not absolute`},
		{"root below a file", FindQuery{Root: filepath.Join(root, "a.txt", "x")}, "path", `path "` + filepath.Join(root, "a.txt", "x") + `" does not exist`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.Find(t.Context(), tt.q)
			var ae *ArgError
			if !errors.As(err, &ae) || ae.Arg != tt.arg || ae.Error() != tt.msg {
				t.Fatalf("Find = %v, want an *ArgError for %s: %s", err, tt.arg, tt.msg)
			}
		})
	}
	_, err := e.Find(t.Context(), FindQuery{Root: filepath.Join(root, "missing")})
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing root error %v does not wrap fs.ErrNotExist", err)
	}
	_, err = e.Find(t.Context(), FindQuery{Root: filepath.Join(root, "a.txt")})
	if !errors.Is(err, ErrNotDir) {
		t.Errorf("file root error %v does not wrap ErrNotDir", err)
	}
}

// failingFS fails ReadDir and ReadFile for chosen paths.
type failingFS struct {
	osenv.LocalFS
	fail map[string]bool
}

var errInjected = errors.New("injected failure")

func (f failingFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if f.fail[name] {
		return nil, &fs.PathError{Op: "readdirent", Path: name, Err: errInjected}
	}
	return f.LocalFS.ReadDir(name)
}

func (f failingFS) ReadFile(name string) ([]byte, error) {
	if f.fail[name] {
		return nil, &fs.PathError{Op: "open", Path: name, Err: errInjected}
	}
	return f.LocalFS.ReadFile(name)
}

func TestFindUnreadableDirectoryIsAWarning(t *testing.T) {
	root := makeTree(t, map[string]string{"ok/a.txt": "", "bad/b.txt": "", ".ignore": "x\n"})
	bad := filepath.Join(root, "bad")
	ign := filepath.Join(root, ".ignore")
	e := New(Options{FS: failingFS{fail: map[string]bool{bad: true, ign: true}}})
	res, err := e.Find(t.Context(), FindQuery{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != 2 { // .ignore and ok/a.txt
		t.Errorf("files = %v, want the readable two", res.Files)
	}
	want := []string{bad + ": injected failure", "read ignore file " + ign + ": open " + ign + ": injected failure"}
	if d := cmp.Diff(want, res.Warnings); d != "" {
		t.Errorf("warnings (-want +got):\n%s", d)
	}
	e = New(Options{FS: failingFS{fail: map[string]bool{root: true}}})
	if _, err := e.Find(t.Context(), FindQuery{Root: root}); err == nil || !strings.Contains(err.Error(), "injected failure") {
		t.Errorf("unreadable root: err = %v, want the failure", err)
	}
}

func TestFindCancelled(t *testing.T) {
	files := map[string]string{}
	for i := range 200 {
		files[filepath.ToSlash(filepath.Join("d", string(rune('a'+i%26)), strings.Repeat("f", 1+i/26)))] = ""
	}
	root := makeTree(t, files)
	ctx, cancel := context.WithCancelCause(t.Context())
	cause := errors.New("stop now")
	cancel(cause)
	res, err := New(Options{}).Find(ctx, FindQuery{Root: root})
	if !errors.Is(err, cause) {
		t.Fatalf("Find on a cancelled context = %v, want the cause", err)
	}
	if len(res.Files) != 0 {
		t.Errorf("a walk cancelled before it started listed %d files", len(res.Files))
	}
}

func TestFindResultCap(t *testing.T) {
	files := map[string]string{}
	for i := range 50 {
		files[strings.Repeat("x", i+1)] = ""
	}
	root := makeTree(t, files)
	res, err := New(Options{MaxResultBytes: 400}).Find(t.Context(), FindQuery{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Truncated || len(res.Files) == 0 || len(res.Files) >= 50 {
		t.Errorf("truncated=%v with %d files; want a partial, truncated result", res.Truncated, len(res.Files))
	}
}

func TestDescenderPrunesOnlyWhatCannotMatch(t *testing.T) {
	for _, tt := range []struct {
		pattern string
		dirs    map[string]bool
	}{
		{"src/*.ts", map[string]bool{"src": true, "src/x": false, "lib": false}},
		{"src/**/*.ts", map[string]bool{"src": true, "src/x/y": true, "lib": false}},
		{"a/b/*/c.go", map[string]bool{"a": true, "a/b": true, "a/b/x": true, "a/b/x/y": false, "a/c": false}},
		{"*/foo.go", map[string]bool{"x": true, "x/y": false}},
		{"{a,b}/x.go", map[string]bool{"a": true, "c/d": true}},
	} {
		g, err := compileGlob("pattern", tt.pattern)
		if err != nil {
			t.Fatal(err)
		}
		d := g.descender()
		for dir, want := range tt.dirs {
			if got := d == nil || d(dir); got != want {
				t.Errorf("pattern %q: descend(%q) = %v, want %v", tt.pattern, dir, got, want)
			}
		}
	}
}
