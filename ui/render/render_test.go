package render

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"
	"github.com/kimigo/kimigo/llm/llmtest"
)

const width = 80

// plain is what a block looks like without colour.
func plain(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(strings.TrimRight(ansi.Strip(l), " "))
		b.WriteByte('\n')
	}
	return b.String()
}

// golden checks a block against testdata/<name>.golden and that the
// plain theme lays it out the same.
func golden(t *testing.T, name string, render func(Theme) []string) string {
	t.Helper()
	got := plain(render(Dark()))
	llmtest.Golden(t, name+".golden", []byte(got))
	if p := plain(render(Plain())); p != got {
		t.Errorf("%s: the plain theme lays the block out differently:\n%s", name, cmp.Diff(got, p))
	}
	return got
}

func tenLines() string {
	var b strings.Builder
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

// TestScenario42Renderers is spec 06 §10 scenario 42.
func TestScenario42Renderers(t *testing.T) {
	const w = "/home/u/proj"
	t.Run("finished Read header", func(t *testing.T) {
		got := golden(t, "read_done", func(th Theme) []string {
			return ToolCall(th, &Tool{Name: "Read", Args: json.RawMessage(`{"path":"/home/u/proj/src/a.go"}`),
				WorkDir: w, State: ToolDone}, width, false)
		})
		if first, _, _ := strings.Cut(got, "\n"); first != "● Used Read (src/a.go)" {
			t.Errorf("header %q", first)
		}
	})
	t.Run("MCP tool", func(t *testing.T) {
		got := golden(t, "mcp_done", func(th Theme) []string {
			return ToolCall(th, &Tool{Name: "mcp__github__create_issue", Args: json.RawMessage(`{}`), State: ToolDone}, width, false)
		})
		if !strings.Contains(got, "Used create_issue · MCP/github") {
			t.Errorf("got %q", got)
		}
	})
	t.Run("ten lines of output", func(t *testing.T) {
		got := golden(t, "output_10_lines", func(th Theme) []string {
			return ToolCall(th, &Tool{Name: "Grep", Args: json.RawMessage(`{"pattern":"x"}`), State: ToolDone, Output: tenLines()}, width, false)
		})
		want := "● Used Grep (x)\n  line 1\n  line 2\n  line 3\n  ... (7 more lines, ctrl+o to expand)\n"
		if got != want {
			t.Errorf("got\n%s\nwant\n%s", got, want)
		}
	})
	t.Run("diff", func(t *testing.T) {
		got := golden(t, "diff_abc", func(th Theme) []string {
			return Diff(th, "a.txt", "a\nb\nc", "a\nB\nc", width, DiffOptions{})
		})
		want := "+1 -1 a.txt\n   1   a\n   2 - b\n   2 + B\n   3   c\n"
		if got != want {
			t.Errorf("got\n%s\nwant\n%s", got, want)
		}
	})
	t.Run("todo panel of eight", func(t *testing.T) {
		items := []Todo{{"first done", TodoDone}, {"second done", TodoDone}, {"third done", TodoDone},
			{"working", TodoInProgress}, {"p1", TodoPending}, {"p2", TodoPending}, {"p3", TodoPending}, {"p4", TodoPending}}
		got := golden(t, "todo_8", func(th Theme) []string { return TodoPanel(th, items, width, false) })
		lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
		want := []string{" Todo", "  ✓ third done", "  ● working", "  ○ p1", "  ○ p2", "  ○ p3",
			"  … +3 more (2 done · 1 pending) · ctrl+t to expand"}
		if d := cmp.Diff(want, lines[1:]); d != "" {
			t.Errorf("(-want +got):\n%s", d)
		}
		golden(t, "todo_8_expanded", func(th Theme) []string { return TodoPanel(th, items, width, true) })
	})
}

func TestToolHeaders(t *testing.T) {
	for _, tt := range []struct {
		name string
		tool Tool
		want string
	}{
		{"bash running", Tool{Name: "Bash", Args: json.RawMessage(`{"command":"make test"}`), State: ToolRunning}, "● Running a command"},
		{"bash done", Tool{Name: "Bash", Args: json.RawMessage(`{"command":"make"}`), State: ToolDone}, "● Ran a command"},
		{"failed", Tool{Name: "Read", Args: json.RawMessage(`{"path":"x"}`), State: ToolFailed}, "✗ Used Read (x)"},
		{"truncated", Tool{Name: "Write", Args: json.RawMessage(`{"path":"x"}`), State: ToolTruncated}, "✗ Truncated Write (x)"},
		{"streaming", Tool{Name: "Write", Partial: `{"path":"src/ma`, State: ToolStreaming}, "● Using Write (src/ma)"},
		{"glob", Tool{Name: "Glob", Args: json.RawMessage(`{"pattern":"*.go","path":"/w/sub","include_ignored":true}`), WorkDir: "/w", State: ToolDone},
			"● Used Glob (*.go · sub · include ignored)"},
		{"ask", Tool{Name: "AskUserQuestion", State: ToolRunning}, "● Waiting for your input"},
		{"long key arg", Tool{Name: "FetchURL", Args: json.RawMessage(`{"url":"https://example.com/` + strings.Repeat("a", 80) + `"}`), State: ToolDone},
			"● Used FetchURL (https://example.com/" + strings.Repeat("a", 40) + "…)"},
		{"first string arg", Tool{Name: "Custom", Args: json.RawMessage(`{"n":1,"title":"","name":"x\ny"}`), State: ToolDone}, "● Used Custom (x)"},
		{"cjk", Tool{Name: "Read", Args: json.RawMessage(`{"path":"文档/说明.md"}`), State: ToolDone}, "● Used Read (文档/说明.md)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := ansi.Strip(ToolHeader(Dark(), &tt.tool, width)); got != tt.want {
				t.Errorf("header %q; want %q", got, tt.want)
			}
		})
	}
}

func TestToolBodies(t *testing.T) {
	golden(t, "bash_running_output", func(th Theme) []string {
		return ToolCall(th, &Tool{Name: "Bash", Args: json.RawMessage(`{"command":"for i in $(seq 10); do echo line $i; done"}`),
			State: ToolRunning, Output: tenLines(), Running: 11e9, CanBackground: true}, width, false)
	})
	golden(t, "bash_failed", func(th Theme) []string {
		return ToolCall(th, &Tool{Name: "Bash", Args: json.RawMessage(`{"command":"false"}`),
			State: ToolFailed, Output: "exit status 1"}, width, false)
	})
	golden(t, "edit_diff", func(th Theme) []string {
		return ToolCall(th, &Tool{Name: "Edit", Args: json.RawMessage(`{"path":"/w/a.go","old_string":"x","new_string":"y"}`), WorkDir: "/w",
			State: ToolDone, HasChange: true, Before: "package a\n\nfunc f() int { return x }", After: "package a\n\nfunc f() int { return y }"}, width, false)
	})
	golden(t, "write_capped", func(th Theme) []string {
		var b strings.Builder
		for i := range 30 {
			fmt.Fprintf(&b, "row %d\n", i)
		}
		return ToolCall(th, &Tool{Name: "Write", Args: json.RawMessage(`{"path":"/w/new.txt"}`), WorkDir: "/w",
			State: ToolDone, HasChange: true, After: strings.TrimSuffix(b.String(), "\n")}, width, false)
	})
	golden(t, "todo_suppressed", func(th Theme) []string {
		return ToolCall(th, &Tool{Name: "TodoList", Args: json.RawMessage(`{"todos":[]}`), State: ToolDone, Output: "Todo list updated"}, width, false)
	})
	golden(t, "reminder_suppressed", func(th Theme) []string {
		return ToolCall(th, &Tool{Name: "Read", Args: json.RawMessage(`{"path":"x"}`), State: ToolDone, Output: "<system-reminder>x</system-reminder>"}, width, false)
	})
}

func TestDiffClusters(t *testing.T) {
	var before, after []string
	for i := 1; i <= 40; i++ {
		before = append(before, fmt.Sprintf("line %d", i))
	}
	after = append(after, before...)
	after[1] = "changed 2"
	after[4] = "changed 5"
	after[30] = "changed 31"
	golden(t, "diff_clusters", func(th Theme) []string {
		return Diff(th, "f.txt", strings.Join(before, "\n"), strings.Join(after, "\n"), width, DiffOptions{})
	})
	golden(t, "diff_capped", func(th Theme) []string {
		return Diff(th, "f.txt", strings.Join(before, "\n"), strings.Join(after, "\n"), width, DiffOptions{MaxRows: 6})
	})
	// Streaming: trailing deletions wait for the rest of the text.
	if got := Diff(Plain(), "f", "a\nb\nc", "a", width, DiffOptions{Streaming: true}); got != nil {
		t.Errorf("all-delete while streaming rendered %q", got)
	}
}

func TestLineDiffMatchesTheLCSOnLargeInputs(t *testing.T) {
	var a, b []string
	for i := range 3000 {
		a = append(a, fmt.Sprintf("l%d", i))
	}
	b = append(b, a...)
	b[1500] = "changed"
	ops := LineDiff(strings.Join(a, "\n"), strings.Join(b, "\n"))
	var adds, dels int
	for _, op := range ops {
		switch op.Kind {
		case Add:
			adds++
			if op.Line != 1501 || op.Text != "changed" {
				t.Errorf("add %+v", op)
			}
		case Delete:
			dels++
		}
	}
	if adds != 1 || dels != 1 || len(ops) != 3001 {
		t.Errorf("%d adds, %d deletes, %d rows", adds, dels, len(ops))
	}
}

func TestTodoPanelSelection(t *testing.T) {
	todo := func(spec string) []Todo {
		var out []Todo
		for i, c := range spec {
			st := map[rune]string{'d': TodoDone, 'i': TodoInProgress, 'p': TodoPending}[c]
			out = append(out, Todo{Title: fmt.Sprintf("%c%d", c, i), Status: st})
		}
		return out
	}
	for _, tt := range []struct{ spec, want string }{
		{"ppp", "p0 p1 p2"},
		{"dddddddd", "d3 d4 d5 d6 d7"},
		{"pppppppp", "p0 p1 p2 p3 p4"},
		{"ddpiiiiiip", "i3 i4 i5 i6 i7"},
		{"dddip", "d0 d1 d2 i3 p4"},
		{"ddddddip", "d3 d4 d5 i6 p7"},
		{"ddiipppppp", "d1 i2 i3 p4 p5"},
	} {
		var got []string
		for _, l := range TodoPanel(Plain(), todo(tt.spec), width, false)[2:] {
			l = strings.TrimSpace(ansi.Strip(l))
			if strings.HasPrefix(l, "…") {
				continue
			}
			got = append(got, l[len("● "):])
		}
		if g := strings.Join(got, " "); g != tt.want {
			t.Errorf("%s: shows %q; want %q", tt.spec, g, tt.want)
		}
	}
}

func TestFooter(t *testing.T) {
	usage := 0.5
	golden(t, "footer", func(th Theme) []string {
		l := FooterLines(th, Footer{Modes: []string{"yolo", "plan"}, Model: "fake", Effort: "high", Cwd: "/home/u/a/b/c/d",
			Home: "/home/u", Git: "main*", Hint: "Press Ctrl+C again to exit", ContextUsed: 12345, ContextMax: 262144}, width)
		return l[:]
	})
	if l := FooterLines(Plain(), Footer{Model: "m", SessionIn: 12345, SessionOut: 678, ContextUsed: 100, ContextMax: 1000}, 60); !strings.HasSuffix(l[1], "↑12.3k ↓678  context: 10% (100/1k)") {
		t.Errorf("session usage: %q", l[1])
	}
	l := FooterLines(Plain(), Footer{Model: "m", Usage: &usage}, 40)
	if got := ansi.Strip(l[1]); !strings.HasSuffix(got, "context: 50%") || ansi.StringWidth(got) != 39 {
		t.Errorf("line 2 %q", got)
	}
	for _, tt := range []struct{ dir, home, want string }{
		{"/home/u", "/home/u", "~"},
		{"/home/u/x", "/home/u", "~/x"},
		{"/home/u/a/b/c", "/home/u", "…/a/b/c"},
		{"/srv/a/b", "/home/u", "/srv/a/b"},
		{"/srv/a/b/c/d", "", "…/b/c/d"},
	} {
		if got := ShortPath(tt.dir, tt.home); got != tt.want {
			t.Errorf("ShortPath(%q, %q) = %q; want %q", tt.dir, tt.home, got, tt.want)
		}
	}
	for n, want := range map[int]string{999: "999", 1000: "1k", 12345: "12.3k", 262144: "262.1k", 1_200_000: "1.2M"} {
		if got := Tokens(n); got != want {
			t.Errorf("Tokens(%d) = %q; want %q", n, got, want)
		}
	}
}

func TestMessages(t *testing.T) {
	md := map[string]*Markdown{}
	mdFor := func(th Theme) *Markdown {
		if md[th.Name] == nil {
			md[th.Name] = NewMarkdown(th)
		}
		return md[th.Name]
	}
	golden(t, "user_cjk", func(th Theme) []string {
		return UserMessage(th, "请把这个函数改成并发安全的版本 🚀 and keep the tests green, also make sure the documentation mentions it clearly", width, false)
	})
	golden(t, "user_shell", func(th Theme) []string { return UserMessage(th, "ls -la", width, true) })
	golden(t, "thinking_collapsed", func(th Theme) []string {
		return Thinking(th, "First I read the file.\nThen I check the tests.\nThen I change the code.\nFinally I run make.", width, false)
	})
	golden(t, "thinking_live", func(th Theme) []string {
		return ThinkingLive(th, "First I read the file.\nThen I check the tests.\nThen I change the code.", "⠋", width)
	})
	golden(t, "status_lines", func(th Theme) []string {
		var out []string
		out = append(out, Status(th, Success, "Switched to yolo mode.", width)...)
		out = append(out, Status(th, Warning, "Cannot /new while streaming — press Esc or Ctrl-C first.", width)...)
		out = append(out, ErrorLine(th, "provider.auth_error", "401 invalid api key", width)...)
		out = append(out, Notice(th, Info, "Exported 12 messages", "/w/kimigo-export.md", width)...)
		return out
	})
	golden(t, "compaction", func(th Theme) []string {
		return append(Compaction(th, 120000, 8500, "The user asked for X.", width, false),
			Compaction(th, 120000, 8500, "The user asked for X.", width, true)...)
	})
	golden(t, "assistant_markdown", func(th Theme) []string {
		return Assistant(th, mdFor(th), "# Title\n\nSome **bold** text and `code`.\n\n- one\n- two\n\n```go\nfunc main() {}\n```\n", width)
	})
	golden(t, "welcome", func(th Theme) []string {
		return WelcomeBanner(th, Welcome{Version: "v0.1.0", WorkDir: "/home/u/src/proj", Home: "/home/u", Model: "fake-model"}, width)
	})
}

func TestPartialField(t *testing.T) {
	for _, tt := range []struct{ in, key, val string }{
		{`{"path":"a/b`, "path", "a/b"},
		{`{"content":"x","command":"echo \"hi\"\nls`, "command", "echo \"hi\"\nls"},
		{`{"path": "caf\u00e9"}`, "path", "café"},
		{`{"pa`, "", ""},
		{`{"path":"x\`, "path", "x"},
	} {
		k, v := PartialField(tt.in)
		if k != tt.key || v != tt.val {
			t.Errorf("PartialField(%q) = %q, %q; want %q, %q", tt.in, k, v, tt.key, tt.val)
		}
	}
}

func tenThousandLines() string {
	var b strings.Builder
	for i := 1; i <= 10000; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	return b.String()
}

func TestLargeOutputPreview(t *testing.T) {
	out := tenThousandLines()
	done := plain(ToolCall(Dark(), &Tool{Name: "Bash", Args: json.RawMessage(`{"command":"seq 10000"}`), State: ToolDone, Output: out}, width, false))
	if !strings.Contains(done, "  1\n  2\n  3\n  ... (9997 more lines, ctrl+o to expand)\n") {
		t.Errorf("finished:\n%s", done)
	}
	running := plain(ToolCall(Dark(), &Tool{Name: "Bash", Args: json.RawMessage(`{"command":"seq 10000"}`), State: ToolRunning, Output: out}, width, false))
	if !strings.Contains(running, "  ... (9997 earlier lines)\n  9998\n  9999\n  10000\n") {
		t.Errorf("running:\n%s", running)
	}
}

// BenchmarkRunningOutput is one frame of a command that printed 10,000
// lines: its block in the live region.
func BenchmarkRunningOutput(b *testing.B) {
	v := &Tool{Name: "Bash", Args: json.RawMessage(`{"command":"seq 10000"}`), State: ToolRunning, Output: tenThousandLines()}
	th := Dark()
	for b.Loop() {
		ToolCall(th, v, width, false)
	}
}
