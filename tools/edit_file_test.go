package tools_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/osenv/osenvtest"
	"github.com/kimigo/kimigo/tools"
)

func edit(path, old, new string, all bool) string {
	return fmt.Sprintf(`{"path":%q,"old_string":%q,"new_string":%q,"replace_all":%v}`, path, old, new, all)
}

func TestS20EditUnique(t *testing.T) {
	w := newWorkspace(t)
	p := w.write(t, "a.py", "a = 1\nb = 2\n")
	wantOK(t, call(t, tools.NewEditFile(w.base), edit(p, "a = 1", "a = 10", false)), "Replaced 1 occurrence in "+p)
	if got := w.read(t, p); got != "a = 10\nb = 2\n" {
		t.Errorf("file = %q", got)
	}
}

func TestS21EditNotUniqueAndReplaceAll(t *testing.T) {
	w := newWorkspace(t)
	ed := tools.NewEditFile(w.base)
	p := w.write(t, "x.txt", "x x x")
	r := call(t, ed, edit(p, "x", "y", false))
	if !r.IsError || !strings.Contains(text(r), "found 3 occurrences") || !strings.Contains(text(r), "replace_all=true") {
		t.Errorf("ambiguous edit = %q", text(r))
	}
	if got := w.read(t, p); got != "x x x" {
		t.Errorf("file changed after a refused edit: %q", got)
	}
	wantOK(t, call(t, ed, edit(p, "x", "y", true)), "Replaced 3 occurrences in "+p)
	if got := w.read(t, p); got != "y y y" {
		t.Errorf("file = %q", got)
	}
	q := w.write(t, "aaa.txt", "aaa")
	wantOK(t, call(t, ed, edit(q, "aa", "b", false)), "Replaced 1 occurrence in "+q)
	if got := w.read(t, q); got != "ba" {
		t.Errorf("non-overlapping count: file = %q", got)
	}
	r2 := w.write(t, "one.txt", "one")
	wantOK(t, call(t, ed, edit(r2, "one", "two", true)), "Replaced 1 occurrences in "+r2)
}

func TestS22EditNotFoundOrNoOp(t *testing.T) {
	w := newWorkspace(t)
	p := w.write(t, "a.txt", "hello\n")
	ed := tools.NewEditFile(w.base)
	r := call(t, ed, edit(p, "absent", "x", false))
	if !r.IsError || !strings.HasPrefix(text(r), "old_string not found in "+p+", the file contents may be out of date.") {
		t.Errorf("not found = %q", text(r))
	}
	if got := w.read(t, p); got != "hello\n" {
		t.Errorf("file = %q", got)
	}
	// old == new is refused without any file-system access.
	env := &countingEnv{Env: w.env}
	wantError(t, call(t, tools.NewEditFile(tools.Base{Env: env}), edit(p, "same", "same", false)),
		"No changes to make: old_string and new_string are exactly the same.")
	if n := env.opens.Load(); n != 0 {
		t.Errorf("a no-op edit touched the file system %d times", n)
	}
}

func TestS23EditCRLFAndLiterals(t *testing.T) {
	w := newWorkspace(t)
	ed := tools.NewEditFile(w.base)
	p := w.write(t, "crlf.txt", "one\r\ntwo\r\n")
	wantOK(t, call(t, ed, edit(p, "one\ntwo", "1\n2", false)), "Replaced 1 occurrence in "+p)
	if got := w.read(t, p); got != "1\r\n2\r\n" {
		t.Errorf("file = %q; want CRLF kept without doubled CR", got)
	}
	wantOK(t, call(t, ed, edit(p, "1", "a\r\nb", false)), "Replaced 1 occurrence in "+p)
	if got := w.read(t, p); got != "a\r\nb\r\n2\r\n" {
		t.Errorf("file = %q; want no \\r\\r", got)
	}
	q := w.write(t, "lit.txt", "price\n")
	wantOK(t, call(t, ed, edit(q, "price", "$&x", false)), "Replaced 1 occurrence in "+q)
	if got := w.read(t, q); got != "$&x\n" {
		t.Errorf("file = %q; want the replacement inserted literally", got)
	}
	// Mixed endings: the model view is raw, CRs must be spelled out.
	m := w.write(t, "mixed.txt", "a\r\nb\nc")
	wantOK(t, call(t, ed, edit(m, "a\r\nb", "z", false)), "Replaced 1 occurrence in "+m)
	if got := w.read(t, m); got != "z\nc" {
		t.Errorf("mixed file = %q", got)
	}
}

func TestS24NoStalenessTracking(t *testing.T) {
	w := newWorkspace(t)
	p := w.write(t, "a.txt", "first line\nsecond\n")
	if r := call(t, tools.NewReadFile(w.base), fmt.Sprintf(`{"path":%q}`, p)); r.IsError {
		t.Fatal(text(r))
	}
	w.write(t, "a.txt", "first LINE changed\nsecond\n") // an external change
	r := call(t, tools.NewEditFile(w.base), edit(p, "first line", "x", false))
	if !r.IsError || !strings.HasPrefix(text(r), "old_string not found in ") {
		t.Errorf("edit with stale text = %q; want the not-found error", text(r))
	}
}

func TestEditBadInput(t *testing.T) {
	w := newWorkspace(t)
	ed := tools.NewEditFile(w.base)
	w.write(t, "dir/x", "")
	w.write(t, "latin1.txt", "caf\xe9")
	for _, tt := range []struct{ name, args, want string }{
		{"missing file", edit("nope.txt", "a", "b", false), `"nope.txt" does not exist.`},
		{"directory", edit("dir", "a", "b", false), `"dir" is not a file.`},
		{"not UTF-8", edit("latin1.txt", "caf", "b", false), `"latin1.txt" is not valid UTF-8 text; Edit only changes UTF-8 text files.`},
		{"sensitive", edit("id_rsa", "a", "b", false), `"id_rsa" matches a sensitive-file pattern (env / credential / SSH key). Access is blocked to protect secrets.`},
		{"wrong type", `{"path":"x","old_string":"a","new_string":"b","replace_all":"yes"}`, `Invalid args for tool "Edit": /replace_all must be bool`},
	} {
		t.Run(tt.name, func(t *testing.T) { wantError(t, call(t, ed, tt.args), tt.want) })
	}
}

func TestEditFailureLeavesFileIntact(t *testing.T) {
	env := osenvtest.New(osenvtest.Options{Files: map[string]string{"/ws/a.txt": "keep me\n"}})
	deny := osenvtest.DenyOver(env)
	r := call(t, tools.NewEditFile(tools.Base{Env: deny}), edit("a.txt", "keep", "lose", false))
	if !r.IsError || !strings.HasPrefix(text(r), "Failed to edit a.txt: ") {
		t.Errorf("denied edit = %q", text(r))
	}
	if b, _ := env.ReadFile("/ws/a.txt"); string(b) != "keep me\n" {
		t.Errorf("a.txt = %q", b)
	}
}

func TestEditKeepsFileMode(t *testing.T) {
	w := newWorkspace(t)
	p := w.write(t, "run.sh", "echo a\n")
	if err := os.Chmod(p, 0o755); err != nil {
		t.Fatal(err)
	}
	wantOK(t, call(t, tools.NewEditFile(w.base), edit(p, "a", "b", false)), "Replaced 1 occurrence in "+p)
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o755 {
		t.Errorf("mode = %v after edit; want 0755", fi.Mode().Perm())
	}
}
