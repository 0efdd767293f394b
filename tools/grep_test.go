package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/tools"
)

func TestS28GrepDefaultMode(t *testing.T) {
	w := gitWorkspace(t)
	w.write(t, "src/old.ts", "a hit\n")
	w.write(t, "src/new.ts", "hit again\n")
	w.write(t, "src/none.ts", "nothing\n")
	w.write(t, "src/deep/mid.ts", "hit\n")
	touch(t, w, "src/old.ts", "src/deep/mid.ts", "src/new.ts")
	wantOK(t, call(t, tools.NewGrep(w.base), `{"pattern":"hit"}`), "src/new.ts\nsrc/deep/mid.ts\nsrc/old.ts")
	wantOK(t, call(t, tools.NewGrep(w.base), `{"pattern":"hit","path":"src/deep"}`), "src/deep/mid.ts")
}

func TestS29GrepContentAndContext(t *testing.T) {
	w := gitWorkspace(t)
	var lines []string
	for i := 1; i <= 20; i++ {
		switch i {
		case 9:
			lines = append(lines, "before")
		case 10, 15:
			lines = append(lines, "hit")
		case 11:
			lines = append(lines, "after")
		default:
			lines = append(lines, fmt.Sprintf("line %d", i))
		}
	}
	w.write(t, "src/a.ts", strings.Join(lines, "\n")+"\n")
	w.write(t, "src/b.ts", "hit\n")
	g := tools.NewGrep(w.base)
	wantOK(t, call(t, g, `{"pattern":"hit","output_mode":"content","-C":1}`), strings.Join([]string{
		"src/a.ts-9-before", "src/a.ts:10:hit", "src/a.ts-11-after", "--",
		"src/a.ts-14-line 14", "src/a.ts:15:hit", "src/a.ts-16-line 16", "--",
		"src/b.ts:1:hit"}, "\n"))
	wantOK(t, call(t, g, `{"pattern":"hit","output_mode":"content","-n":false}`), "src/a.ts:hit\nsrc/a.ts:hit\nsrc/b.ts:hit")
	wantOK(t, call(t, g, `{"pattern":"hit","output_mode":"content","-n":false,"-B":1,"path":"src/a.ts"}`),
		"src/a.ts:before\nsrc/a.ts:hit\n--\nsrc/a.ts:line 14\nsrc/a.ts:hit")
	// -C overrides -A and -B.
	wantOK(t, call(t, g, `{"pattern":"hit","output_mode":"content","-A":5,"-B":5,"-C":0,"path":"src/a.ts"}`), "src/a.ts:10:hit\nsrc/a.ts:15:hit")
}

func TestS30GrepCountsAndPagination(t *testing.T) {
	w := gitWorkspace(t)
	for i := range 10 {
		w.write(t, fmt.Sprintf("c/f%d.txt", i), "x x\nx\n")
	}
	wantOK(t, call(t, tools.NewGrep(w.base), `{"pattern":"x","output_mode":"count_matches","head_limit":3}`), strings.Join([]string{
		"Found 30 total occurrences across 10 files.",
		"Results truncated to 3 lines (total: 10). Use offset=3 to see more.",
		"c/f0.txt:3", "c/f1.txt:3", "c/f2.txt:3"}, "\n"))
	wantOK(t, call(t, tools.NewGrep(w.base), `{"pattern":"x","output_mode":"count_matches","path":"c/f9.txt"}`),
		"Found 3 total occurrences across 1 file.\nc/f9.txt:3")
	wantOK(t, call(t, tools.NewGrep(w.base), `{"pattern":"^x$","output_mode":"count_matches","path":"c/f9.txt"}`),
		"Found 1 total occurrence across 1 file.\nc/f9.txt:1")

	var names []string
	for i := range 251 {
		names = append(names, fmt.Sprintf("m/f%03d.txt", i))
		w.write(t, names[i], "needle\n")
	}
	sameTime(t, w, names)
	r := call(t, tools.NewGrep(w.base), `{"pattern":"needle"}`)
	lines := strings.Split(text(r), "\n")
	if r.IsError || len(lines) != 251 || lines[0] != "m/f000.txt" || lines[249] != "m/f249.txt" ||
		lines[250] != "Results truncated to 250 lines (total: 251). Use offset=250 to see more." {
		t.Errorf("default mode: %d lines, first %q, last %q", len(lines), lines[0], lines[len(lines)-1])
	}
	wantOK(t, call(t, tools.NewGrep(w.base), `{"pattern":"needle","offset":250}`), "m/f250.txt")
	if r := call(t, tools.NewGrep(w.base), `{"pattern":"needle","head_limit":0}`); strings.Count(text(r), "\n") != 250 {
		t.Errorf("head_limit 0 returned %d lines; want all 251", strings.Count(text(r), "\n")+1)
	}
}

func TestS31GrepNothingBadInputAndSensitive(t *testing.T) {
	w := gitWorkspace(t)
	w.write(t, "a.ts", "const token = 1\n")
	g := tools.NewGrep(w.base)
	wantOK(t, call(t, g, `{"pattern":"absent"}`), "No non-sensitive matches found")
	if r := call(t, g, `{"pattern":"("}`); !r.IsError || !strings.HasPrefix(text(r), "Failed to grep:") {
		t.Errorf("bad regex: %q (isError %v)", text(r), r.IsError)
	}
	w.write(t, ".env.production", "token=abc\n")
	w.write(t, ".env", "token=abc\n")
	r := call(t, g, `{"pattern":"token","output_mode":"content"}`)
	wantOK(t, r, "a.ts:1:const token = 1\nFiltered 1 sensitive file(s): .env.production")
	wantOK(t, call(t, g, `{"pattern":"abc"}`), "No non-sensitive matches found\nFiltered 1 sensitive file(s): .env.production")
	wantOK(t, call(t, g, `{"pattern":"token","output_mode":"count_matches"}`),
		"Found 1 total non-sensitive occurrence across 1 file.\na.ts:1\nFiltered 1 sensitive file(s): .env.production")
	wantError(t, call(t, g, `{"pattern":"x","path":"../x"}`), `"../x" is not an absolute path. You must provide an absolute path to search outside the working directory.`)
}

func TestGrepBadInputNamesArgument(t *testing.T) {
	w := newWorkspace(t)
	w.write(t, "a.go", "x\n")
	g := tools.NewGrep(w.base)
	missing := w.path("missing")
	for _, tt := range []struct{ args, want string }{
		{`{"pattern":"("}`, "Failed to grep: invalid pattern \"(\": missing closing ): `(`"},
		{`{"pattern":"a\\nb"}`, `Failed to grep: invalid pattern "a\\nb": a literal "\n" can only match in multiline mode`},
		{`{"pattern":"x","glob":"[x"}`, `Failed to grep: invalid glob "[x": syntax error in glob`},
		{`{"pattern":"x","type":"nope"}`, "Failed to grep: unrecognized file type: nope"},
		{mustJSON(t, map[string]string{"pattern": "x", "path": missing}), `Failed to grep: path "` + missing + `" does not exist`},
		{`{"pattern":""}`, `Failed to grep: invalid pattern "": empty pattern`},
		{`{"pattern":"x","output_mode":"lines"}`, `output_mode must be one of content, files_with_matches, count_matches; got "lines".`},
		{`{"pattern":"x","-A":-1}`, `-A must not be negative; got -1.`},
	} {
		wantError(t, call(t, g, tt.args), tt.want)
	}
}

func TestGrepFiltersAndFlags(t *testing.T) {
	w := newWorkspace(t)
	w.write(t, "a.go", "Hello\n")
	w.write(t, "b.ts", "hello\n")
	w.write(t, "sub/c.go", "say hello\nand\ngoodbye\n")
	w.write(t, "bin.dat", "hello\x00\n")
	w.write(t, ".hidden/d.txt", "hello\n")
	w.write(t, ".ignore", "*.txt\n")
	g := tools.NewGrep(w.base)
	for _, tt := range []struct{ args, want string }{
		{`{"pattern":"hello","output_mode":"count_matches"}`, "Found 2 total occurrences across 2 files.\nb.ts:1\nsub/c.go:1"},
		{`{"pattern":"hello","-i":true,"type":"go","output_mode":"count_matches"}`, "Found 2 total occurrences across 2 files.\na.go:1\nsub/c.go:1"},
		{`{"pattern":"hello","glob":"!*.go","output_mode":"count_matches"}`, "Found 1 total occurrence across 1 file.\nb.ts:1"},
		{`{"pattern":"hello","include_ignored":true,"output_mode":"count_matches"}`, "Found 3 total occurrences across 3 files.\n.hidden/d.txt:1\nb.ts:1\nsub/c.go:1"},
		{`{"pattern":"hello.*?goodbye","multiline":true,"output_mode":"content"}`, "sub/c.go:1:say hello\nsub/c.go:2:and\nsub/c.go:3:goodbye"},
	} {
		wantOK(t, call(t, g, tt.args), tt.want)
	}
}

func TestGrepOutsideWorkspaceShowsAbsolutePaths(t *testing.T) {
	w := newWorkspace(t)
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "o.md"), []byte("needle\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantOK(t, call(t, tools.NewGrep(w.base), mustJSON(t, map[string]string{"pattern": "needle", "path": other})), filepath.Join(other, "o.md"))
}

func TestGrepLongLinesGoThroughTheResultBuilder(t *testing.T) {
	w := newWorkspace(t)
	w.write(t, "min.js", "needle"+strings.Repeat("x", 5000)+"\n")
	r := call(t, tools.NewGrep(w.base), `{"pattern":"needle","output_mode":"content"}`)
	if !r.Truncated || !strings.Contains(text(r), "[...truncated]") || len([]rune(text(r))) > 2200 {
		t.Errorf("long line not cut: truncated=%v, %d runes", r.Truncated, len([]rune(text(r))))
	}
}

func TestGrepResolve(t *testing.T) {
	w := newWorkspace(t)
	exec, res, err := tools.NewGrep(w.base).ResolveExecution(json.RawMessage(`{"pattern":"a(b)*","path":"src"}`))
	if err != nil || res != nil {
		t.Fatalf("ResolveExecution = %v, %v", res, err)
	}
	root := w.path("src")
	if d := cmp.Diff(loop.SearchTree(root), exec.Accesses); d != "" {
		t.Errorf("accesses (-want +got):\n%s", d)
	}
	if d := cmp.Diff(loop.Display(&loop.FileIODisplay{Operation: "grep", Path: root}), exec.Display); d != "" {
		t.Errorf("display (-want +got):\n%s", d)
	}
	if exec.Description != "Searching for 'a(b)*' in src" || exec.ApprovalRule != `Grep(a\(b\)\*)` {
		t.Errorf("description %q, rule %q", exec.Description, exec.ApprovalRule)
	}
	exec, _, _ = tools.NewGrep(w.base).ResolveExecution(json.RawMessage(`{"pattern":"x"}`))
	if exec.Description != "Searching for 'x' in "+w.dir || !exec.MatchesRule("x") || exec.MatchesRule("y") {
		t.Errorf("default path: description %q", exec.Description)
	}
}

func TestGrepTimeoutAndAbort(t *testing.T) {
	w := newWorkspace(t)
	w.write(t, "a.ts", "needle\n")
	w.write(t, "slow/b.ts", "needle\n")
	synctest.Test(t, func(t *testing.T) {
		env := slowEnv{Local: w.env.(*osenv.Local), slow: w.path("slow")}
		wantOK(t, call(t, tools.NewGrep(tools.Base{Env: env}), `{"pattern":"needle"}`), "a.ts\nGrep timed out after 20s; partial results returned")
		wantError(t, call(t, tools.NewGrep(tools.Base{Env: env}), `{"pattern":"absent"}`), "Grep timed out after 20s. Try a more specific path or pattern.")
	})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	wantError(t, callCtx(t, ctx, tools.NewGrep(w.base), `{"pattern":"needle"}`), "Aborted before search started")
}

func TestGrepAndGlobDefinitions(t *testing.T) {
	w := newWorkspace(t)
	for _, tool := range []loop.ExecutableTool{tools.NewGrep(w.base), tools.NewGlob(w.base)} {
		def := tool.Definition()
		var schema map[string]any
		if err := json.Unmarshal(def.Parameters, &schema); err != nil {
			t.Errorf("%s schema: %v", def.Name, err)
		}
		if strings.Contains(def.Description, "{{") || !strings.Contains(def.Description, "20 seconds") {
			t.Errorf("%s description not rendered: %q", def.Name, def.Description)
		}
	}
}
