package tools_test

import (
	"fmt"
	"io/fs"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/loop/looptest"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/tools"
)

// countingEnv counts file opens, to prove a call read nothing.
type countingEnv struct {
	osenv.Env
	opens atomic.Int32
}

func (c *countingEnv) OpenFile(name string, flag int, perm fs.FileMode) (osenv.File, error) {
	c.opens.Add(1)
	return c.Env.OpenFile(name, flag, perm)
}

func (c *countingEnv) Stat(name string) (fs.FileInfo, error) {
	c.opens.Add(1)
	return c.Env.Stat(name)
}

func TestS1UnknownArgument(t *testing.T) {
	w := newWorkspace(t)
	w.write(t, "a.txt", "hello\n")
	env := &countingEnv{Env: w.env}
	read := tools.NewReadFile(tools.Base{Env: env})
	got := runTurn(t, []loop.ExecutableTool{read},
		looptest.Call("c1", "Read", mustJSON(t, map[string]any{"path": w.path("a.txt"), "foo": 1})))
	wantError(t, got[0], `Invalid args for tool "Read": must NOT have additional property 'foo'`)
	if n := env.opens.Load(); n != 0 {
		t.Errorf("the rejected call touched the file system %d times", n)
	}
}

func TestS10ReadHappyPath(t *testing.T) {
	w := newWorkspace(t)
	p := w.write(t, "a.txt", "alpha\nbeta\n")
	r := call(t, tools.NewReadFile(w.base), mustJSON(t, map[string]any{"path": p}))
	wantOK(t, r, "1\talpha\n2\tbeta")
	if want := "<system>2 lines read from file starting from line 1. Total lines in file: 2. End of file reached.</system>"; r.Note != want {
		t.Errorf("note = %q; want %q", r.Note, want)
	}
}

func TestS11ReadPaging(t *testing.T) {
	w := newWorkspace(t)
	p := w.write(t, "a.txt", "a\nb\nc\nd\ne")
	read := tools.NewReadFile(w.base)
	for _, tt := range []struct {
		name, args, out, note string
	}{
		{"middle page", `{"path":%q,"line_offset":2,"n_lines":2}`, "2\tb\n3\tc",
			"<system>2 lines read from file starting from line 2. Total lines in file: 5.</system>"},
		{"past the end", `{"path":%q,"line_offset":9}`, "",
			"<system>No lines read from file. Total lines in file: 5. End of file reached.</system>"},
		{"last line without newline", `{"path":%q,"line_offset":5}`, "5\te",
			"<system>1 line read from file starting from line 5. Total lines in file: 5. End of file reached.</system>"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := call(t, read, fmt.Sprintf(tt.args, p))
			wantOK(t, r, tt.out)
			if r.Note != tt.note {
				t.Errorf("note = %q; want %q", r.Note, tt.note)
			}
		})
	}
}

func TestS12ReadTail(t *testing.T) {
	w := newWorkspace(t)
	p := w.write(t, "a.txt", "a\nb\nc\nd\ne")
	read := tools.NewReadFile(w.base)
	wantOK(t, call(t, read, fmt.Sprintf(`{"path":%q,"line_offset":-3}`, p)), "3\tc\n4\td\n5\te")
	wantOK(t, call(t, read, fmt.Sprintf(`{"path":%q,"line_offset":-5,"n_lines":2}`, p)), "1\ta\n2\tb")
	wantOK(t, call(t, read, fmt.Sprintf(`{"path":%q,"line_offset":-50}`, p)), "1\ta\n2\tb\n3\tc\n4\td\n5\te")
	got := runTurn(t, []loop.ExecutableTool{read}, looptest.Call("c1", "Read", fmt.Sprintf(`{"path":%q,"line_offset":-1001}`, p)))
	if !got[0].IsError || !strings.HasPrefix(text(got[0]), `Invalid args for tool "Read": `) {
		t.Errorf("line_offset -1001 = %q; want a validation error", text(got[0]))
	}
}

func TestS13ReadCRLFAndMixed(t *testing.T) {
	w := newWorkspace(t)
	read := tools.NewReadFile(w.base)
	r := call(t, read, mustJSON(t, map[string]any{"path": w.write(t, "crlf.txt", "alpha\r\nbeta\r\n")}))
	wantOK(t, r, "1\talpha\n2\tbeta")
	if strings.Contains(r.Note, `\r`) {
		t.Errorf("pure CRLF note mentions CR: %q", r.Note)
	}
	r = call(t, read, mustJSON(t, map[string]any{"path": w.write(t, "mixed.txt", "alpha\r\nbeta\ngamma\rdone")}))
	wantOK(t, r, "1\talpha\\r\n2\tbeta\n3\tgamma\\rdone")
	if !strings.Contains(r.Note, `shown as \r`) {
		t.Errorf("mixed note lacks the line-ending sentence: %q", r.Note)
	}
}

func TestS14ReadMissingOrDirectory(t *testing.T) {
	w := newWorkspace(t)
	w.write(t, "src/x.go", "package x\n")
	read := tools.NewReadFile(w.base)
	wantError(t, call(t, read, mustJSON(t, map[string]any{"path": w.path("nope.txt")})),
		fmt.Sprintf("%q does not exist.", w.path("nope.txt")))
	wantError(t, call(t, read, mustJSON(t, map[string]any{"path": w.path("src")})),
		fmt.Sprintf("%q is not a file.", w.path("src")))
	wantError(t, call(t, read, mustJSON(t, map[string]any{"path": w.path("src/x.go/y")})),
		fmt.Sprintf("%q does not exist.", w.path("src/x.go/y")))
}

func TestS15ReadBinaryAndEncodings(t *testing.T) {
	w := newWorkspace(t)
	read := tools.NewReadFile(w.base)
	notReadable := func(p string) string {
		return fmt.Sprintf("%q is not readable as UTF-8 text. If it is an image or video, use ReadMediaFile. For other binary formats, use Bash or an MCP tool if available.", p)
	}
	lateNUL := strings.Repeat("text line\n", 1000) + "\x00" + "more\n"
	for _, tt := range []struct {
		name, file, content, want string
	}{
		{"NUL after the first 512 bytes", "late.txt", lateNUL, notReadable(w.path("late.txt"))},
		{"real PNG", "logo.png", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", fmt.Sprintf("%q is a image file. Use ReadMediaFile to read image or video files.", w.path("logo.png"))},
		{"text named .png", "fake.png", "just text\n", notReadable(w.path("fake.png"))},
		{"archive suffix", "a.zip", "PK", notReadable(w.path("a.zip"))},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := w.write(t, tt.file, tt.content)
			wantError(t, call(t, read, mustJSON(t, map[string]any{"path": p})), tt.want)
		})
	}
	// Text with bytes that are not UTF-8 is read with U+FFFD in their
	// place, and the note says so (issue 15 item 11).
	for _, tt := range []struct{ name, content, want string }{
		{"Latin-1 byte", "caf\xe9\nnext\n", "1\tcaf\uFFFD\n2\tnext"},
		{"invalid UTF-8 at the end", "abc\xe2\x82", "1\tabc\uFFFD"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := call(t, read, mustJSON(t, map[string]any{"path": w.write(t, "lossy.txt", tt.content)}))
			wantOK(t, r, tt.want)
			if !strings.Contains(r.Note, "not valid UTF-8") {
				t.Errorf("note = %q; want it to say the text was not UTF-8", r.Note)
			}
		})
	}
	// A multi-byte rune split across the 64 KiB chunk boundary is valid.
	p := w.write(t, "split.txt", strings.Repeat("a", 64<<10-1)+"€\n")
	if r := call(t, read, mustJSON(t, map[string]any{"path": p})); r.IsError {
		t.Errorf("valid UTF-8 across a chunk edge refused: %q", text(r))
	}
}

func TestS16ReadCaps(t *testing.T) {
	w := newWorkspace(t)
	read := tools.NewReadFile(w.base)
	var b strings.Builder
	for i := 1; i <= 1500; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	r := call(t, read, mustJSON(t, map[string]any{"path": w.write(t, "long.txt", b.String())}))
	if n := strings.Count(text(r), "\n") + 1; n != 1000 || !strings.Contains(r.Note, "Max 1000 lines reached.") {
		t.Errorf("1500-line file: %d lines, note %q", n, r.Note)
	}

	r = call(t, read, mustJSON(t, map[string]any{"path": w.write(t, "wide.txt", strings.Repeat("x", 2500)+"\n")}))
	wantOK(t, r, "1\t"+strings.Repeat("x", 1997)+"...")
	if !strings.Contains(r.Note, "Lines [1] were truncated.") {
		t.Errorf("note = %q; want the truncated-lines sentence", r.Note)
	}

	big := strings.Repeat(strings.Repeat("y", 1000)+"\n", 200)
	r = call(t, read, mustJSON(t, map[string]any{"path": w.write(t, "big.txt", big)}))
	if len(text(r)) > tools.ReadMaxBytes || !strings.Contains(r.Note, "Max 102400 bytes reached.") {
		t.Errorf("200×1000 chars: %d bytes, note %q", len(text(r)), r.Note)
	}
	// A tail read under the byte cap keeps the newest lines.
	r = call(t, read, mustJSON(t, map[string]any{"path": w.path("big.txt"), "line_offset": -200}))
	if !strings.HasSuffix(text(r), "200\t"+strings.Repeat("y", 1000)) || len(text(r)) > tools.ReadMaxBytes ||
		!strings.Contains(r.Note, "Max 102400 bytes reached.") {
		t.Errorf("tail under the byte cap: %d bytes, ends %q, note %q", len(text(r)), text(r)[len(text(r))-20:], r.Note)
	}
}

func TestS17ReadPathPolicy(t *testing.T) {
	w := newWorkspace(t)
	env := &countingEnv{Env: w.env}
	read := tools.NewReadFile(tools.Base{Env: env})
	wantError(t, call(t, read, `{"path":"../secret.txt"}`),
		`"../secret.txt" is not an absolute path. You must provide an absolute path to read a file outside the working directory.`)
	if n := env.opens.Load(); n != 0 {
		t.Errorf("a refused path touched the file system %d times", n)
	}
	outside := w.write(t, "../outside.txt", "out\n") // an absolute path outside the workspace reads normally
	wantOK(t, call(t, read, mustJSON(t, map[string]any{"path": outside})), "1\tout")

	w.write(t, ".env", "TOKEN=1\n")
	wantError(t, call(t, read, mustJSON(t, map[string]any{"path": w.path(".env")})),
		fmt.Sprintf("%q matches a sensitive-file pattern (env / credential / SSH key). Access is blocked to protect secrets.", w.path(".env")))
	w.write(t, ".env.example", "TOKEN=\n")
	wantOK(t, call(t, read, `{"path":".env.example"}`), "1\tTOKEN=")

	w.write(t, w.home+"/notes.txt", "remember\n")
	wantOK(t, call(t, read, `{"path":"~/notes.txt"}`), "1\tremember")
	wantError(t, call(t, read, `{"path":""}`), "Path cannot be empty")
}

func TestReadEmptyFile(t *testing.T) {
	w := newWorkspace(t)
	r := call(t, tools.NewReadFile(w.base), mustJSON(t, map[string]any{"path": w.write(t, "empty.txt", "")}))
	wantOK(t, r, "")
	if want := "<system>No lines read from file. Total lines in file: 0. End of file reached.</system>"; r.Note != want {
		t.Errorf("note = %q; want %q", r.Note, want)
	}
}

func TestReadDeclaresItsAccess(t *testing.T) {
	w := newWorkspace(t)
	exec, _, err := tools.NewReadFile(w.base).ResolveExecution([]byte(`{"path":"a.txt"}`))
	if err != nil {
		t.Fatal(err)
	}
	if exec.ApprovalRule != "Read("+w.path("a.txt")+")" || exec.Description != "Reading a.txt" {
		t.Errorf("rule %q, description %q", exec.ApprovalRule, exec.Description)
	}
	if !exec.MatchesRule("./a.txt") || !exec.MatchesRule(w.dir+"/*.txt") || exec.MatchesRule("b.txt") {
		t.Error("path rule matching is wrong")
	}
}
