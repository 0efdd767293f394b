package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/tools"
)

// touch sets the modification times of workspace files: later names are
// newer.
func touch(t *testing.T, w *workspace, names ...string) {
	t.Helper()
	for i, n := range names {
		at := time.Date(2024, 1, 1, 0, 0, i, 0, time.UTC)
		if err := os.Chtimes(w.path(n), at, at); err != nil {
			t.Fatal(err)
		}
	}
}

// gitWorkspace is a workspace that is a git work tree, like /ws in the
// spec's scenarios.
func gitWorkspace(t *testing.T) *workspace {
	t.Helper()
	w := newWorkspace(t)
	w.write(t, ".git/HEAD", "ref: refs/heads/main\n")
	return w
}

func TestS25GlobOrderAndForm(t *testing.T) {
	w := gitWorkspace(t)
	w.write(t, ".gitignore", "node_modules\n")
	w.write(t, "a.ts", "")
	w.write(t, "src/b.ts", "")
	w.write(t, "node_modules/x.ts", "")
	touch(t, w, "node_modules/x.ts", "a.ts", "src/b.ts")
	g := tools.NewGlob(w.base)
	wantOK(t, call(t, g, `{"pattern":"*.ts"}`), "src/b.ts\na.ts")
	wantOK(t, call(t, g, `{"pattern":"*.ts","include_ignored":true}`), "src/b.ts\na.ts\nnode_modules/x.ts")
	wantOK(t, call(t, g, `{"pattern":".git/**"}`), "No matches found")
}

// sameTime gives files one modification time, so they sort by path.
func sameTime(t *testing.T, w *workspace, names []string) {
	t.Helper()
	at := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, n := range names {
		if err := os.Chtimes(w.path(n), at, at); err != nil {
			t.Fatal(err)
		}
	}
}

func numberedFiles(t *testing.T, w *workspace, n int) {
	t.Helper()
	var names []string
	for i := range n {
		names = append(names, fmt.Sprintf("f%03d.txt", i))
		w.write(t, names[i], "")
	}
	sameTime(t, w, names)
}

func TestS26GlobTruncation(t *testing.T) {
	w := newWorkspace(t)
	numberedFiles(t, w, 150)
	r := call(t, tools.NewGlob(w.base), `{"pattern":"*.txt"}`)
	lines := strings.Split(text(r), "\n")
	if r.IsError || len(lines) != 102 || !r.Truncated {
		t.Fatalf("got %d lines (isError %v, truncated %v):\n%s", len(lines), r.IsError, r.Truncated, text(r))
	}
	if d := cmp.Diff([]string{"[Truncated at 100 matches — use a more specific pattern]", "Only the first 100 matches are returned."}, lines[:2]); d != "" {
		t.Errorf("header (-want +got):\n%s", d)
	}
	// Equal times: path order.
	if lines[2] != "f000.txt" || lines[101] != "f099.txt" {
		t.Errorf("paths run %q … %q; want f000.txt … f099.txt", lines[2], lines[101])
	}
}

func TestGlobExactlyOneHundred(t *testing.T) {
	w := newWorkspace(t)
	numberedFiles(t, w, 100)
	r := call(t, tools.NewGlob(w.base), `{"pattern":"*.txt"}`)
	if !strings.HasSuffix(text(r), "f099.txt\nFound 100 matches") || r.Truncated {
		t.Errorf("result ends %q (truncated %v); want the 100-matches note", text(r)[max(0, len(text(r))-40):], r.Truncated)
	}
}

func TestS27GlobRootErrorsAndSensitive(t *testing.T) {
	w := newWorkspace(t)
	w.write(t, "a.ts", "")
	g := tools.NewGlob(w.base)
	wantError(t, call(t, g, mustJSON(t, map[string]string{"pattern": "*", "path": w.path("a.ts")})), w.path("a.ts")+" is not a directory")
	wantError(t, call(t, g, mustJSON(t, map[string]string{"pattern": "*", "path": w.path("missing")})), w.path("missing")+" does not exist")
	w.write(t, ".env", "SECRET=1\n")
	wantOK(t, call(t, g, `{"pattern":".env*"}`), "No matches found")
	if err := os.Remove(w.path(".env")); err != nil {
		t.Fatal(err)
	}
	w.write(t, ".env.local", "SECRET=1\n")
	wantOK(t, call(t, g, `{"pattern":".env*"}`), "No non-sensitive matches found (1 sensitive file(s) filtered).")
	w.write(t, "b.env.ts", "")
	wantOK(t, call(t, g, `{"pattern":"*env*"}`), "b.env.ts\nFiltered 1 sensitive file(s).")
}

func TestGlobBadInput(t *testing.T) {
	w := newWorkspace(t)
	w.write(t, "a.ts", "")
	g := tools.NewGlob(w.base)
	wantError(t, call(t, g, `{"pattern":"[abc"}`), `Glob failed: invalid pattern "[abc": syntax error in glob`)
	wantError(t, call(t, g, `{"pattern":"{a,b"}`), `Glob failed: invalid pattern "{a,b": syntax error in glob`)
	wantError(t, call(t, g, `{"pattern":""}`), `Glob failed: invalid pattern "": it must not be empty`)
	wantError(t, call(t, g, `{"pattern":"*","path":"../x"}`), `"../x" is not an absolute path. You must provide an absolute path to search outside the working directory.`)
	wantError(t, call(t, g, `{"pattern":"*","path":""}`), `Path cannot be empty`)
}

func TestGlobOutsideWorkspaceShowsAbsolutePaths(t *testing.T) {
	w := newWorkspace(t)
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "o.md"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	wantOK(t, call(t, tools.NewGlob(w.base), mustJSON(t, map[string]string{"pattern": "*.md", "path": other})), filepath.Join(other, "o.md"))
	// Inside the workspace, relative to the search directory.
	w.write(t, "docs/sub/r.md", "")
	wantOK(t, call(t, tools.NewGlob(w.base), `{"pattern":"*.md","path":"docs","include_dirs":true}`), "sub/r.md")
}

func TestGlobResolve(t *testing.T) {
	w := newWorkspace(t)
	g := tools.NewGlob(w.base)
	exec, res, err := g.ResolveExecution(json.RawMessage(`{"pattern":"src/*.ts","path":"src","include_ignored":true}`))
	if err != nil || res != nil {
		t.Fatalf("ResolveExecution = %v, %v", res, err)
	}
	root := w.path("src")
	got := struct {
		Accesses     []loop.Access
		Description  string
		Display      loop.Display
		ApprovalRule string
	}{exec.Accesses, exec.Description, exec.Display, exec.ApprovalRule}
	want := struct {
		Accesses     []loop.Access
		Description  string
		Display      loop.Display
		ApprovalRule string
	}{loop.SearchTree(root), "Searching src/*.ts",
		&loop.FileIODisplay{Operation: "glob", Path: root, Detail: "pattern: src/*.ts, path: src, include_ignored: true"}, `Glob(src/\*.ts)`}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("execution (-want +got):\n%s", d)
	}
	if !exec.MatchesRule("src/*") || exec.MatchesRule("lib/*") {
		t.Errorf("MatchesRule does not match on the pattern")
	}
}

// slowEnv blocks listings of one directory for an hour, so a search of it
// runs into its deadline (in a synctest bubble the hour passes at once).
type slowEnv struct {
	*osenv.Local
	slow string
}

func (s slowEnv) ReadDir(name string) ([]fs.DirEntry, error) {
	if name == s.slow {
		time.Sleep(time.Hour)
	}
	return s.Local.ReadDir(name)
}

func TestGlobTimeoutKeepsPartialResults(t *testing.T) {
	w := newWorkspace(t)
	w.write(t, "a.ts", "")
	w.write(t, "slow/b.ts", "")
	synctest.Test(t, func(t *testing.T) {
		env := slowEnv{Local: w.env.(*osenv.Local), slow: w.path("slow")}
		r := call(t, tools.NewGlob(tools.Base{Env: env}), `{"pattern":"*.ts"}`)
		wantOK(t, r, "Glob timed out after 20s; partial results returned.\na.ts")
	})
}

func TestGlobAborted(t *testing.T) {
	w := newWorkspace(t)
	w.write(t, "a.ts", "")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	wantError(t, callCtx(t, ctx, tools.NewGlob(w.base), `{"pattern":"*.ts"}`), "Glob aborted")
}
