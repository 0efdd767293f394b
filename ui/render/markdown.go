package render

import (
	"fmt"
	"image/color"
	"strings"
	"sync"

	"charm.land/glamour/v2"
	"charm.land/glamour/v2/ansi"
	"charm.land/lipgloss/v2"
	xansi "github.com/charmbracelet/x/ansi"
)

// Markdown renders assistant text (spec 06 §5.6.1) through glamour:
// paragraphs wrapped to the width, headings, emphasis, inline code, links
// (OSC 8 and the address after them), lists, task lists, block quotes,
// rules, tables and fenced code blocks with their syntax coloured. An
// unclosed code fence renders as the code so far (CommonMark closes it
// at the end of the text), so a streaming answer re-renders as it grows.
//
// The style is the theme's own (glamourStyle); glamour's output is pure
// (no colour profile): ui/term downsamples where the lines are written.
// A renderer is built once per width and kept, as building one parses
// the style.
type Markdown struct {
	t  Theme
	mu sync.Mutex
	// width and tr are the last renderer built; a resize builds another.
	width int
	tr    *glamour.TermRenderer
	style ansi.StyleConfig
}

// NewMarkdown returns a renderer in t's colours.
func NewMarkdown(t Theme) *Markdown { return &Markdown{t: t, style: glamourStyle(t)} }

// Render renders text as Markdown into lines of at most width cells.
// Safe for concurrent use.
func (m *Markdown) Render(text string, width int) []string {
	text = strings.NewReplacer("\r\n", "\n", "\r", "\n", "\t", "    ").Replace(text)
	text = strings.Trim(text, "\n")
	if strings.TrimSpace(text) == "" {
		return nil
	}
	width = max(width, 10)
	text = capQuoteDepth(text)
	m.mu.Lock()
	out, err := m.render(text, width)
	m.mu.Unlock()
	if err != nil {
		// glamour fails only on a style it cannot apply; show the text
		// rather than nothing.
		return Wrap(text, width)
	}
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		l = strings.TrimRight(l, " ")
		if Width(l) > width { // a word longer than the line, an over-wide table
			l = Truncate(l, width)
		}
		lines[i] = trimStyledRight(l)
	}
	return trimTrailingEmpty(trimLeadingEmpty(lines))
}

func (m *Markdown) render(text string, width int) (string, error) {
	if m.tr == nil || m.width != width {
		tr, err := glamour.NewTermRenderer(
			glamour.WithStyles(m.style),
			glamour.WithWordWrap(width),
			glamour.WithChromaFormatter("terminal16m"),
		)
		if err != nil {
			return "", fmt.Errorf("markdown renderer: %w", err)
		}
		m.tr, m.width = tr, width
	}
	return m.tr.Render(text)
}

// maxQuoteDepth is how deeply block quotes nest; a deeper marker is
// shown as text. glamour's time grows steeply with the depth (10 levels
// take about 10 ms, 20 about 120 ms, 40 about 12 s on one core), and a
// model may quote anything.
const maxQuoteDepth = 8

// capQuoteDepth escapes, on each line outside a code fence, the block
// quote markers beyond maxQuoteDepth (list markers between them count
// as part of the line's prefix), so they render as text.
func capQuoteDepth(text string) string {
	if strings.Count(text, ">") <= maxQuoteDepth {
		return text
	}
	var b strings.Builder
	fence := ""
	for line := range strings.SplitAfterSeq(text, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case fence != "":
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
		case strings.HasPrefix(trimmed, "```"), strings.HasPrefix(trimmed, "~~~"):
			fence = trimmed[:3]
		default:
			if i := deepQuoteMarker(line); i >= 0 {
				b.WriteString(line[:i])
				b.WriteByte('\\')
				line = line[i:]
			}
		}
		b.WriteString(line)
	}
	return b.String()
}

// deepQuoteMarker is the offset of the line's quote marker past
// maxQuoteDepth, or -1.
func deepQuoteMarker(line string) int {
	depth := 0
	for i := 0; i < len(line); {
		switch c := line[i]; {
		case c == ' ' || c == '\t':
			i++
		case c == '>':
			if depth++; depth > maxQuoteDepth {
				return i
			}
			i++
		case (c == '-' || c == '*' || c == '+') && i+1 < len(line) && line[i+1] == ' ':
			i += 2
		case c >= '0' && c <= '9':
			j := i
			for j < len(line) && line[j] >= '0' && line[j] <= '9' {
				j++
			}
			if j+1 < len(line) && (line[j] == '.' || line[j] == ')') && line[j+1] == ' ' {
				i = j + 2
				continue
			}
			return -1
		default:
			return -1
		}
	}
	return -1
}

// trimStyledRight removes the padding glamour leaves after the text of a
// line, which its styles wrap in escape sequences.
func trimStyledRight(l string) string {
	plain := xansi.Strip(l)
	if strings.TrimRight(plain, " ") == plain {
		return l
	}
	return xansi.Truncate(l, Width(strings.TrimRight(plain, " ")), "")
}

func trimLeadingEmpty(lines []string) []string {
	for len(lines) > 0 && strings.TrimSpace(xansi.Strip(lines[0])) == "" {
		lines = lines[1:]
	}
	return lines
}

// glamourStyle is the theme as a glamour style: no document margin (the
// transcript indents), headings without their "#" marks, bullets as
// "•", box-drawing tables and quotes, and code blocks two cells in. The
// plain theme has no colours and no highlighting; its layout is the same.
func glamourStyle(t Theme) ansi.StyleConfig {
	on := true
	u := func(n uint) *uint { return &n }
	s := func(v string) *string { return &v }
	fg := func(st lipgloss.Style) *string { return hex(st.GetForeground()) }
	bold := ansi.StylePrimitive{Bold: &on}
	primaryBold := ansi.StylePrimitive{Bold: &on, Color: fg(t.Primary)}
	heading := func(p ansi.StylePrimitive) ansi.StyleBlock { return ansi.StyleBlock{StylePrimitive: p} }
	c := ansi.StyleConfig{
		Document:       ansi.StyleBlock{Margin: u(0)},
		Paragraph:      ansi.StyleBlock{},
		BlockQuote:     ansi.StyleBlock{StylePrimitive: ansi.StylePrimitive{Color: fg(t.Dim)}, Indent: u(1), IndentToken: s("│ ")},
		List:           ansi.StyleList{LevelIndent: 2},
		Heading:        ansi.StyleBlock{StylePrimitive: ansi.StylePrimitive{BlockSuffix: "\n", Bold: &on}},
		H1:             heading(primaryBold),
		H2:             heading(primaryBold),
		H3:             heading(bold),
		H4:             heading(bold),
		H5:             heading(bold),
		H6:             heading(bold),
		Text:           ansi.StylePrimitive{},
		Strikethrough:  ansi.StylePrimitive{CrossedOut: &on},
		Emph:           ansi.StylePrimitive{Italic: &on},
		Strong:         ansi.StylePrimitive{Bold: &on},
		HorizontalRule: ansi.StylePrimitive{Color: fg(t.Muted), Format: "\n" + strings.Repeat("─", 40) + "\n"},
		Item:           ansi.StylePrimitive{BlockPrefix: "• "},
		Enumeration:    ansi.StylePrimitive{BlockPrefix: ". "},
		Task:           ansi.StyleTask{Ticked: "☑ ", Unticked: "☐ "},
		Link:           ansi.StylePrimitive{Color: fg(t.Dim), Underline: &on},
		LinkText:       ansi.StylePrimitive{Color: fg(t.Primary)},
		ImageText:      ansi.StylePrimitive{Format: "Image: {{.text}} →"},
		Code:           ansi.StyleBlock{StylePrimitive: ansi.StylePrimitive{Color: fg(t.Primary)}},
		CodeBlock:      ansi.StyleCodeBlock{StyleBlock: ansi.StyleBlock{Margin: u(2)}},
		Table: ansi.StyleTable{
			CenterSeparator: s("┼"), ColumnSeparator: s("│"), RowSeparator: s("─"),
			StyleBlock: ansi.StyleBlock{StylePrimitive: ansi.StylePrimitive{Color: fg(t.Text)}},
		},
		DefinitionDescription: ansi.StylePrimitive{BlockPrefix: "\n  "},
	}
	if fg(t.Text) != nil { // a theme with colours highlights code
		c.CodeBlock.Theme = "monokai"
		if !t.Dark {
			c.CodeBlock.Theme = "github"
		}
	}
	return c
}

// hex is a colour as glamour names it, or nil for none.
func hex(c color.Color) *string {
	if c == nil {
		return nil
	}
	if _, ok := c.(lipgloss.NoColor); ok {
		return nil
	}
	r, g, b, a := c.RGBA()
	if a == 0 {
		return nil
	}
	s := fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, b>>8)
	return &s
}
