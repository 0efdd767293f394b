package editor

import (
	"crypto/md5"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/google/go-cmp/cmp"
)

func key(s string) tea.KeyPressMsg {
	switch s {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "delete":
		return tea.KeyPressMsg{Code: tea.KeyDelete}
	case "left":
		return tea.KeyPressMsg{Code: tea.KeyLeft}
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "home":
		return tea.KeyPressMsg{Code: tea.KeyHome}
	case "end":
		return tea.KeyPressMsg{Code: tea.KeyEnd}
	}
	if m, ok := strings.CutPrefix(s, "ctrl+"); ok {
		return tea.KeyPressMsg{Code: []rune(m)[0], Mod: tea.ModCtrl}
	}
	if m, ok := strings.CutPrefix(s, "alt+"); ok {
		if m == "enter" {
			return tea.KeyPressMsg{Code: tea.KeyEnter, Mod: tea.ModAlt}
		}
		if m == "backspace" {
			return tea.KeyPressMsg{Code: tea.KeyBackspace, Mod: tea.ModAlt}
		}
		return tea.KeyPressMsg{Code: []rune(m)[0], Mod: tea.ModAlt}
	}
	return tea.KeyPressMsg{Code: []rune(s)[0], Text: s}
}

func typeIn(e *Editor, keys ...string) {
	for _, k := range keys {
		e.HandleKey(key(k))
	}
}

func TestTypingAndNewlines(t *testing.T) {
	e := New()
	typeIn(e, "a", "ctrl+j", "b")
	if e.Value() != "a\nb" {
		t.Fatalf("value %q", e.Value())
	}
	typeIn(e, "alt+enter", "c")
	if e.Value() != "a\nb\nc" {
		t.Fatalf("value %q", e.Value())
	}
	typeIn(e, "home", "backspace")
	if e.Value() != "a\nbc" {
		t.Errorf("backspace at line start: %q", e.Value())
	}
	e.Insert("x\r\ny\tz\x1b")
	if e.Value() != "a\nbx\ny\tzc" {
		t.Errorf("paste: %q", e.Value())
	}
	if e.HandleKey(key("enter")) {
		t.Error("the editor took Enter")
	}
}

func TestWordEditsAndUndo(t *testing.T) {
	e := New()
	e.Insert("hello brave ")
	typeIn(e, "n", "e", "w", " ", "w", "o", "r", "l", "d")
	typeIn(e, "ctrl+w")
	if e.Value() != "hello brave new " {
		t.Fatalf("ctrl+w: %q", e.Value())
	}
	typeIn(e, "alt+b", "alt+b", "ctrl+k")
	if e.Value() != "hello " {
		t.Fatalf("ctrl+k: %q", e.Value())
	}
	typeIn(e, "ctrl+_")
	if e.Value() != "hello brave new " {
		t.Errorf("undo ctrl+k: %q", e.Value())
	}
	typeIn(e, "ctrl+_")
	if e.Value() != "hello brave new world" {
		t.Errorf("undo ctrl+w: %q", e.Value())
	}
	typeIn(e, "ctrl+_")
	if e.Value() != "hello brave new " {
		t.Errorf("undo typing of a word: %q", e.Value())
	}
	typeIn(e, "ctrl+u")
	if e.Value() != "" {
		t.Errorf("ctrl+u: %q", e.Value())
	}
}

func TestWideCharacters(t *testing.T) {
	e := New()
	e.Insert("日本語👩‍💻x")
	rows, x, y := e.View(4, 10)
	if d := cmp.Diff([]string{"日本", "語👩‍💻", "x"}, rows); d != "" {
		t.Fatalf("rows (-want +got):\n%s", d)
	}
	if x != 1 || y != 2 {
		t.Errorf("cursor at %d,%d; want 1,2", x, y)
	}
	typeIn(e, "left", "left")
	if _, x, y := e.View(4, 10); x != 2 || y != 1 {
		t.Errorf("after two lefts the cursor is at %d,%d; want 2,1 (the ZWJ sequence is one character)", x, y)
	}
	typeIn(e, "backspace")
	if e.Value() != "日本👩‍💻x" {
		t.Errorf("backspace removed the wrong character: %q", e.Value())
	}
	typeIn(e, "right", "up")
	if _, x, y := e.View(4, 10); x != 2 || y != 0 {
		t.Errorf("up: cursor at %d,%d; want 2,0", x, y)
	}
}

func TestVerticalMovesAndHistoryEdges(t *testing.T) {
	e := New()
	e.Insert("first line\nsecond\nthird line here")
	if !e.OnLastRow() || e.OnFirstRow() {
		t.Fatal("cursor should be on the last row")
	}
	typeIn(e, "up")
	if p := e.Cursor(); p != (Pos{1, 6}) {
		t.Errorf("up from col 15 to a 6-character line: %+v", p)
	}
	typeIn(e, "up")
	if p := e.Cursor(); p != (Pos{0, 10}) {
		t.Errorf("up keeps the goal column: %+v", p)
	}
	if !e.OnFirstRow() || e.HandleKey(key("up")) {
		t.Error("up on the first row must be left to the history")
	}
}

func TestScrolling(t *testing.T) {
	e := New()
	e.Insert(strings.Repeat("line\n", 30) + "end")
	rows, _, y := e.View(20, 5)
	if len(rows) != 5 || rows[4] != "end" || y != 4 {
		t.Fatalf("rows %q cursor row %d", rows, y)
	}
	for range 28 {
		typeIn(e, "up")
	}
	rows, _, y = e.View(20, 5)
	if y != 0 || len(rows) != 5 {
		t.Errorf("scrolled up: rows %q cursor row %d", rows, y)
	}
}

func TestMegabytePaste(t *testing.T) {
	e := New()
	big := strings.Repeat("0123456789abcdef ", 64<<10) // ~1.1 MB on one line
	e.Insert(big)
	e.Newline()
	e.Insert(strings.Repeat("日本語のテキスト\n", 10000))
	rows, x, y := e.View(78, 10)
	if len(rows) != 10 || x != 0 || y != 9 {
		t.Fatalf("view after paste: %d rows, cursor %d,%d", len(rows), x, y)
	}
	if !strings.HasPrefix(e.Value(), big) {
		t.Error("the paste was not kept verbatim")
	}
}

func BenchmarkKeystrokeAfterMegabytePaste(b *testing.B) {
	e := New()
	e.Insert(strings.Repeat("0123456789abcdef ", 64<<10))
	e.Newline()
	e.Insert(strings.Repeat("日本語のテキスト\n", 10000))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e.HandleKey(key("x"))
		e.View(78, 10)
	}
}

func TestHistoryFile(t *testing.T) {
	root := t.TempDir()
	h, err := LoadHistory(root, "/work/dir")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []struct {
		text  string
		shell bool
	}{{"a\nb", false}, {"a\nb", false}, {"  ", false}, {"ls", true}, {" second ", false}} {
		if err := h.Add(s.text, s.shell); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(HistoryFile(root, "/work/dir"))
	if err != nil {
		t.Fatal(err)
	}
	want := "{\"content\":\"a\\nb\"}\n{\"content\":\"!ls\"}\n{\"content\":\"second\"}\n"
	if string(b) != want {
		t.Errorf("history file:\n%s\nwant\n%s", b, want)
	}
	sum := md5.Sum([]byte("/work/dir"))
	if filepath.Base(h.Path()) != hex.EncodeToString(sum[:])+".jsonl" || filepath.Dir(h.Path()) != filepath.Join(root, "user-history") {
		t.Errorf("history file name %s", filepath.Base(h.Path()))
	}
	// Corrupt lines are skipped; browsing keeps to the mode and the draft.
	f, _ := os.OpenFile(h.Path(), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("not json\n{\"content\":\"third\"}\n")
	f.Close()
	h, err = LoadHistory(root, "/work/dir")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for {
		s, ok := h.Prev("my draft", false)
		if !ok {
			break
		}
		got = append(got, s)
	}
	if d := cmp.Diff([]string{"third", "second", "a\nb"}, got); d != "" {
		t.Errorf("prompt history (-want +got):\n%s", d)
	}
	for range 2 {
		h.Next(false)
	}
	if s, ok := h.Next(false); !ok || s != "my draft" || h.Browsing() {
		t.Errorf("past the newest: %q, %v, browsing=%v", s, ok, h.Browsing())
	}
	if s, ok := h.Prev("", true); !ok || s != "ls" {
		t.Errorf("shell history: %q, %v", s, ok)
	}
}
