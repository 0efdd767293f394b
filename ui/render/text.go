package render

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Symbols shared by the renderers (spec 06 §5.6).
const (
	Bullet      = "● " // status bullet, U+25CF: never an emoji
	UserMarker  = "✨ "
	OK          = "✓ "
	Fail        = "✗ "
	Pointer     = "❯"
	Indent      = "  " // continuation indent
	Ellipsis    = "…"
	CurrentMark = "← current"
)

// Width is the number of cells s takes: East Asian wide characters and
// emoji take two, escape sequences none.
func Width(s string) int { return ansi.StringWidth(s) }

// Truncate cuts s to at most width cells, ending it with … when it was
// cut.
func Truncate(s string, width int) string {
	if width <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= width {
		return s
	}
	return ansi.Truncate(s, width, Ellipsis)
}

// Wrap breaks s into lines of at most width cells, at spaces where it
// can and inside a word where it must. Newlines in s are kept; tabs
// become spaces; trailing spaces go.
func Wrap(s string, width int) []string {
	s = strings.ReplaceAll(s, "\t", "    ")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if width < 1 {
		width = 1
	}
	out := strings.Split(ansi.Wrap(s, width, ""), "\n")
	for i, l := range out {
		out[i] = strings.TrimRight(l, " ")
	}
	return out
}

// Hang prefixes the first line with first and every other line with
// spaces as wide as first.
func Hang(lines []string, first string) []string {
	pad := strings.Repeat(" ", Width(ansi.Strip(first)))
	out := make([]string, len(lines))
	for i, l := range lines {
		if i == 0 {
			out[i] = first + l
		} else if l == "" {
			out[i] = ""
		} else {
			out[i] = pad + l
		}
	}
	return out
}

// Block joins the lines of one transcript item, with the blank line that
// separates it from the item above.
func Block(lines ...string) string {
	return "\n" + strings.Join(lines, "\n")
}

// lastLines returns the last n lines.
func lastLines(lines []string, n int) []string {
	if len(lines) <= n {
		return lines
	}
	return lines[len(lines)-n:]
}

// trimTrailingEmpty removes trailing blank lines.
func trimTrailingEmpty(lines []string) []string {
	for len(lines) > 0 && strings.TrimSpace(ansi.Strip(lines[len(lines)-1])) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

func ansiStrip(s string) string { return ansi.Strip(s) }
