package tools_test

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/loop/looptest"
	"github.com/kimigo/kimigo/osenv/osenvtest"
	"github.com/kimigo/kimigo/tools"
)

// TestS2MissingArgumentOrBrokenJSON: missing arguments get both schema
// errors; arguments that do not parse get the parse problem (issue 13
// item 6 supersedes the scenario's "validation runs against {}"). Neither
// writes anything.
func TestS2MissingArgumentOrBrokenJSON(t *testing.T) {
	w := newWorkspace(t)
	got := runTurn(t, []loop.ExecutableTool{tools.NewWriteFile(w.base)}, looptest.Call("c1", "Write", `{}`))
	msg := text(got[0])
	if !got[0].IsError || !strings.Contains(msg, "must have required property 'path'; must have required property 'content'") &&
		!strings.Contains(msg, "must have required property 'content'; must have required property 'path'") {
		t.Errorf("result = %q; want both required properties joined by '; '", msg)
	}
	got = runTurn(t, []loop.ExecutableTool{tools.NewWriteFile(w.base)}, looptest.Call("c1", "Write", `{"path":`))
	if msg := text(got[0]); !got[0].IsError || !strings.Contains(msg, "not valid JSON: they end early") {
		t.Errorf("result = %q; want the parse problem", msg)
	}
	if entries, _ := os.ReadDir(w.dir); len(entries) != 0 {
		t.Errorf("a rejected Write created %d entries", len(entries))
	}
}

func TestS18WriteCreatesParents(t *testing.T) {
	w := newWorkspace(t)
	write := tools.NewWriteFile(w.base)
	p := w.path("new/dir/f.txt")
	wantOK(t, call(t, write, mustJSON(t, map[string]any{"path": p, "content": "你好"})), "Wrote 6 bytes to "+p)
	wantOK(t, call(t, write, mustJSON(t, map[string]any{"path": p, "content": "!", "mode": "append"})), "Appended 1 bytes to "+p)
	if got := w.read(t, p); got != "你好!" {
		t.Errorf("file = %q; want 你好!", got)
	}
	// Appending to a missing file creates it; empty content makes an empty file.
	wantOK(t, call(t, write, `{"path":"fresh.txt","content":"x","mode":"append"}`), "Appended 1 bytes to fresh.txt")
	wantOK(t, call(t, write, `{"path":"empty.txt","content":""}`), "Wrote 0 bytes to empty.txt")
	if got := w.read(t, "empty.txt"); got != "" {
		t.Errorf("empty.txt = %q", got)
	}
	// Line endings are written as given.
	wantOK(t, call(t, write, mustJSON(t, map[string]any{"path": "crlf.txt", "content": "a\r\nb"})), "Wrote 4 bytes to crlf.txt")
	if got := w.read(t, "crlf.txt"); got != "a\r\nb" {
		t.Errorf("crlf.txt = %q", got)
	}
}

func TestS19WriteBadParentOrSensitive(t *testing.T) {
	w := newWorkspace(t)
	write := tools.NewWriteFile(w.base)
	w.write(t, "file.txt", "keep")
	wantError(t, call(t, write, mustJSON(t, map[string]any{"path": w.path("file.txt/f.txt"), "content": "x"})),
		"Parent path is not a directory: "+w.path("file.txt")+".")
	wantError(t, call(t, write, mustJSON(t, map[string]any{"path": w.path(".env"), "content": "x"})),
		fmt.Sprintf("%q matches a sensitive-file pattern (env / credential / SSH key). Access is blocked to protect secrets.", w.path(".env")))
	if _, err := os.Stat(w.path(".env")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf(".env was written: %v", err)
	}
	wantError(t, call(t, write, `{"path":"../x.txt","content":"x"}`),
		`"../x.txt" is not an absolute path. You must provide an absolute path to write or edit a file outside the working directory.`)
	wantError(t, call(t, write, `{"path":"a.txt","content":"x","mode":"prepend"}`), `mode must be "overwrite" or "append"; got "prepend".`)
	wantError(t, call(t, write, `{"path":"a.txt","content":7}`), `Invalid args for tool "Write": /content must be string`)
}

func TestWriteFailureLeavesNoPartialFile(t *testing.T) {
	env := osenvtest.New(osenvtest.Options{Files: map[string]string{"/ws/a.txt": "old"}})
	deny := osenvtest.DenyOver(env)
	write := tools.NewWriteFile(tools.Base{Env: deny})
	r := call(t, write, `{"path":"a.txt","content":"new content"}`)
	if !r.IsError || !strings.HasPrefix(text(r), "Failed to write a.txt: ") {
		t.Errorf("denied write = %q; want a Failed to write error", text(r))
	}
	if b, _ := env.ReadFile("/ws/a.txt"); string(b) != "old" {
		t.Errorf("a.txt = %q after a failed write", b)
	}
	entries, _ := env.ReadDir("/ws")
	if len(entries) != 1 {
		t.Errorf("a failed write left %d entries in /ws", len(entries))
	}
	if len(deny.Attempts()) == 0 {
		t.Error("the deny env recorded no attempt")
	}
}

func TestWriteIntoDirectory(t *testing.T) {
	w := newWorkspace(t)
	w.write(t, "sub/x.txt", "")
	r := call(t, tools.NewWriteFile(w.base), `{"path":"sub","content":"x"}`)
	if !r.IsError || !strings.HasPrefix(text(r), "Failed to write sub: ") {
		t.Errorf("write onto a directory = %q", text(r))
	}
}
