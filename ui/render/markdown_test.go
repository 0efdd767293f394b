package render

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

const richMarkdown = "## Plan\n\nI will **change** the *parser* and `lexer.go`, then run ~~all~~ the tests.\n" +
	"See [the docs](https://example.com/docs) or https://go.dev/ref/spec.\n\n" +
	"1. Read the code\n2. Change it:\n   - keep `snake_case_names` as they are\n   - add a test\n3. Run `go test ./...`\n\n" +
	"- [x] done\n- [ ] to do\n\n" +
	"> A quote that is long enough to wrap across more than one line of the terminal at this width.\n\n" +
	"| Name | Size | Note |\n|------|-----:|------|\n| a.go | 12 | **new** |\n| 说明.md | 3 | 中文 |\n\n" +
	"```go\nfunc main() {\n\t// say hello\n\tfmt.Println(\"hi\", 42)\n}\n```\n\n" +
	"---\n\nAn_unclosed *marker and a verylongwordthatdoesnotfitonanylineatallbecauseitgoesonandonforeverandever end.\n"

func TestMarkdownGolden(t *testing.T) {
	golden(t, "markdown_rich", func(th Theme) []string { return NewMarkdown(th).Render(richMarkdown, 60) })
	golden(t, "markdown_streaming_fence", func(th Theme) []string {
		return NewMarkdown(th).Render("Here is the code:\n\n```python\ndef f(x):\n    return x * 2  # double", 60)
	})
}

func TestMarkdownWidths(t *testing.T) {
	for _, w := range []int{10, 24, 40, 80} {
		for _, l := range NewMarkdown(Dark()).Render(richMarkdown, w) {
			if got := ansi.StringWidth(l); got > w {
				t.Errorf("width %d: a line is %d cells: %q", w, got, ansi.Strip(l))
			}
		}
	}
}

func TestMarkdownLinks(t *testing.T) {
	out := strings.Join(NewMarkdown(Dark()).Render("[docs](https://example.com/d)", 40), "\n")
	if !strings.Contains(out, "\x1b]8;;https://example.com/d") || !strings.Contains(ansi.Strip(out), "docs (https://example.com/d)") {
		t.Errorf("link rendered as %q", out)
	}
}

// FuzzMarkdown: any text renders without a panic, within the width.
func FuzzMarkdown(f *testing.F) {
	f.Add(richMarkdown, 30)
	f.Add("**a *b* c** `d` [e](f) ~~g~~ _h_ <http://i>", 12)
	f.Add("```\nunclosed", 5)
	f.Add("| a |\n|---|\n| b |", 3)
	f.Fuzz(func(t *testing.T, text string, w int) {
		w = 10 + (w%200+200)%200
		for _, l := range NewMarkdown(Dark()).Render(text, w) {
			if got := ansi.StringWidth(l); got > w {
				t.Fatalf("width %d: a line of %d cells: %q", w, got, l)
			}
		}
	})
}
