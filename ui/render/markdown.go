package render

import (
	"regexp"
	"strings"
	"sync"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// Markdown renders assistant text (spec 06 §5.6.1): paragraphs wrapped
// to the width, headings, emphasis, inline code, links (OSC 8 where the
// terminal supports it, the address after them), lists, block quotes,
// rules, tables and fenced code blocks with their syntax coloured. It
// reads the text a line at a time and keeps no state between calls, so a
// streaming answer re-renders in time proportional to its length, and
// an unclosed code fence renders as the code so far.
//
// kimigo renders Markdown itself rather than through glamour: glamour
// links chroma, whose package initialisation parses every lexer and style
// at each process start (+32 ms CPU and +11 MB RSS for every kimigo
// command, measured with `kimigo --version`).
type Markdown struct{ t Theme }

// NewMarkdown returns a renderer in t's colours.
func NewMarkdown(t Theme) *Markdown { return &Markdown{t: t} }

// Render renders text as Markdown into lines of at most width cells.
// Safe for concurrent use.
func (m *Markdown) Render(text string, width int) []string {
	text = strings.NewReplacer("\r\n", "\n", "\r", "\n", "\t", "    ").Replace(text)
	text = strings.Trim(text, "\n")
	if strings.TrimSpace(text) == "" {
		return nil
	}
	r := mdRenderer{t: m.t, width: max(width, 10)}
	r.blocks(strings.Split(text, "\n"), 0)
	return trimTrailingEmpty(r.out)
}

type mdRenderer struct {
	t     Theme
	width int
	out   []string
}

// The block patterns compile on first use, not at every start.
var (
	mdHeading  = lazyRegexp(`^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$`)
	mdRule     = lazyRegexp(`^ {0,3}((\*\s*){3,}|(-\s*){3,}|(_\s*){3,})$`)
	mdFence    = lazyRegexp("^( {0,3})(```+|~~~+)\\s*([^`\\s]*)")
	mdItem     = lazyRegexp(`^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$`)
	mdQuote    = lazyRegexp(`^ {0,3}>\s?(.*)$`)
	mdTableSep = lazyRegexp(`^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$`)
)

// lazyRe is a regular expression compiled the first time it is used.
type lazyRe struct{ re func() *regexp.Regexp }

func lazyRegexp(expr string) lazyRe {
	return lazyRe{sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })}
}

func (l lazyRe) MatchString(s string) bool            { return l.re().MatchString(s) }
func (l lazyRe) FindStringSubmatch(s string) []string { return l.re().FindStringSubmatch(s) }

// blank emits a blank line between blocks, never two.
func (r *mdRenderer) blank() {
	if n := len(r.out); n > 0 && r.out[n-1] != "" {
		r.out = append(r.out, "")
	}
}

// blocks renders lines as a sequence of blocks indented by indent cells.
func (r *mdRenderer) blocks(lines []string, indent int) {
	for i := 0; i < len(lines); {
		line := lines[i]
		switch {
		case strings.TrimSpace(line) == "":
			i++
		case mdFence.MatchString(line):
			i = r.fence(lines, i, indent)
		case mdHeading.MatchString(line):
			g := mdHeading.FindStringSubmatch(line)
			r.blank()
			style := r.t.Bold
			if len(g[1]) <= 2 {
				style = r.t.Primary.Bold(true)
			}
			r.paragraph(g[2], indent, "", style)
			r.blank()
			i++
		case mdRule.MatchString(line):
			r.blank()
			r.out = append(r.out, strings.Repeat(" ", indent)+r.t.Muted.Render(strings.Repeat("─", max(r.width-indent-1, 3))))
			r.blank()
			i++
		case mdQuote.MatchString(line):
			var inner []string
			for ; i < len(lines) && mdQuote.MatchString(lines[i]); i++ {
				inner = append(inner, mdQuote.FindStringSubmatch(lines[i])[1])
			}
			sub := mdRenderer{t: r.t, width: r.width - indent - 2}
			sub.blocks(inner, 0)
			r.blank()
			for _, l := range trimTrailingEmpty(sub.out) {
				r.out = append(r.out, strings.Repeat(" ", indent)+r.t.Muted.Render("│ ")+r.t.Dim.Render(ansi.Strip(l)))
			}
			r.blank()
		case mdItem.MatchString(line):
			i = r.list(lines, i, indent)
		case i+1 < len(lines) && strings.Contains(line, "|") && mdTableSep.MatchString(lines[i+1]):
			i = r.table(lines, i, indent)
		default:
			var para []string
			for ; i < len(lines) && !r.startsBlock(lines, i); i++ {
				para = append(para, lines[i])
			}
			r.blank()
			r.paragraph(joinParagraph(para), indent, "", lipgloss.NewStyle())
			r.blank()
		}
	}
}

// startsBlock reports whether line i begins a block other than a
// paragraph (or is blank).
func (r *mdRenderer) startsBlock(lines []string, i int) bool {
	l := lines[i]
	return strings.TrimSpace(l) == "" || mdFence.MatchString(l) || mdHeading.MatchString(l) || mdRule.MatchString(l) ||
		mdQuote.MatchString(l) || mdItem.MatchString(l) ||
		i+1 < len(lines) && strings.Contains(l, "|") && mdTableSep.MatchString(lines[i+1])
}

// joinParagraph joins a paragraph's lines; a line ending in two spaces or
// a backslash breaks the line there.
func joinParagraph(lines []string) string {
	var b strings.Builder
	for i, l := range lines {
		hard := strings.HasSuffix(l, "  ") || strings.HasSuffix(l, "\\")
		l = strings.TrimSpace(strings.TrimSuffix(l, "\\"))
		b.WriteString(l)
		if i < len(lines)-1 {
			if hard {
				b.WriteByte('\n')
			} else {
				b.WriteByte(' ')
			}
		}
	}
	return b.String()
}

// paragraph renders inline text wrapped at the width, the first line
// after first (a list marker), the others under it.
func (r *mdRenderer) paragraph(text string, indent int, first string, base lipgloss.Style) {
	pad := strings.Repeat(" ", indent)
	hang := strings.Repeat(" ", Width(first))
	avail := max(r.width-indent-Width(first), 4)
	for hi, hardLine := range strings.Split(text, "\n") {
		for li, l := range wrapRuns(inlineRuns(r.t, hardLine, base), avail) {
			p := hang
			if hi == 0 && li == 0 {
				p = first
			}
			r.out = append(r.out, pad+p+l)
		}
	}
}

// fence renders a fenced code block from line i and returns the line
// after it.
func (r *mdRenderer) fence(lines []string, i, indent int) int {
	g := mdFence.FindStringSubmatch(lines[i])
	marker, lang := g[2], strings.ToLower(g[3])
	j := i + 1
	var code []string
	for ; j < len(lines); j++ {
		t := strings.TrimSpace(lines[j])
		if strings.HasPrefix(t, marker[:3]) && strings.Trim(t, marker[:1]) == "" && len(t) >= len(marker) {
			j++
			break
		}
		code = append(code, strings.TrimPrefix(lines[j], g[1]))
	}
	r.blank()
	pad := strings.Repeat(" ", indent+2)
	avail := max(r.width-indent-2, 4)
	for _, l := range code {
		l = strings.ReplaceAll(l, "\t", "    ")
		for _, part := range strings.Split(ansi.Hardwrap(l, avail, true), "\n") {
			r.out = append(r.out, pad+highlight(r.t, lang, part))
		}
	}
	r.blank()
	return j
}

// list renders the list items from line i (their continuation lines and
// nested lists with them) and returns the line after the list.
func (r *mdRenderer) list(lines []string, i, indent int) int {
	r.blank()
	first := mdItem.FindStringSubmatch(lines[i])
	base, ordered := len(first[1]), !isBullet(first[2])
	for i < len(lines) {
		g := mdItem.FindStringSubmatch(lines[i])
		if g == nil || len(g[1]) < base || len(g[1]) == base && isBullet(g[2]) == ordered {
			break // the end of the list, or a list of the other kind
		}
		if len(g[1]) > base { // a nested list
			j := i
			var nested []string
			for ; j < len(lines) && strings.TrimSpace(lines[j]) != "" && (leading(lines[j]) > base); j++ {
				nested = append(nested, lines[j][min(leading(lines[j]), base+2):])
			}
			sub := mdRenderer{t: r.t, width: r.width - indent - 2}
			sub.list(nested, 0, 0)
			for _, l := range trimTrailingEmpty(sub.out) {
				if l != "" {
					l = strings.Repeat(" ", indent+2) + l
				}
				r.out = append(r.out, l)
			}
			i = j
			continue
		}
		marker := g[2]
		if isBullet(marker) {
			marker = "•"
		}
		text := []string{g[3]}
		i++
		for i < len(lines) && strings.TrimSpace(lines[i]) != "" && !mdItem.MatchString(lines[i]) &&
			!mdFence.MatchString(lines[i]) && leading(lines[i]) > base {
			text = append(text, lines[i])
			i++
		}
		first := marker + " "
		if task, rest, ok := taskItem(text[0]); ok {
			first, text[0] = marker+" "+task+" ", rest
		}
		r.paragraph(joinParagraph(text), indent, r.t.Primary.Render(first), lipgloss.NewStyle())
		if i < len(lines) && strings.TrimSpace(lines[i]) == "" && i+1 < len(lines) {
			if n := mdItem.FindStringSubmatch(lines[i+1]); n != nil && len(n[1]) >= base {
				i++ // a loose list: keep going
			}
		}
	}
	r.blank()
	return i
}

func isBullet(marker string) bool { return marker == "-" || marker == "*" || marker == "+" }

// taskItem reads a "[ ]" or "[x]" at the start of an item.
func taskItem(s string) (box, rest string, ok bool) {
	switch {
	case strings.HasPrefix(s, "[ ] "):
		return "☐", s[4:], true
	case strings.HasPrefix(s, "[x] "), strings.HasPrefix(s, "[X] "):
		return "☑", s[4:], true
	}
	return "", s, false
}

func leading(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }

// table renders a table from line i (header, separator, rows) and
// returns the line after it. Columns share the width; cells too wide are
// cut.
func (r *mdRenderer) table(lines []string, i, indent int) int {
	cells := func(l string) []string {
		l = strings.TrimSpace(l)
		l = strings.TrimPrefix(strings.TrimSuffix(l, "|"), "|")
		parts := strings.Split(l, "|")
		for k, p := range parts {
			parts[k] = strings.TrimSpace(p)
		}
		return parts
	}
	rows := [][]string{cells(lines[i])}
	j := i + 2
	for ; j < len(lines) && strings.Contains(lines[j], "|") && strings.TrimSpace(lines[j]) != ""; j++ {
		rows = append(rows, cells(lines[j]))
	}
	n := 0
	for _, row := range rows {
		n = max(n, len(row))
	}
	widths := make([]int, n)
	for _, row := range rows {
		for k, c := range row {
			widths[k] = max(widths[k], Width(inlinePlain(c)))
		}
	}
	avail := r.width - indent - 3*(n-1) - 1
	for total(widths) > avail && avail > n {
		k := widest(widths)
		widths[k]--
	}
	r.blank()
	pad := strings.Repeat(" ", indent)
	sep := r.t.Muted.Render(" │ ")
	for ri, row := range rows {
		var out []string
		for k := range n {
			c := ""
			if k < len(row) {
				c = row[k]
			}
			style := lipgloss.NewStyle()
			if ri == 0 {
				style = r.t.Bold
			}
			text := Truncate(runsText(inlineRuns(r.t, c, style)), widths[k])
			out = append(out, text+strings.Repeat(" ", max(widths[k]-Width(text), 0)))
		}
		r.out = append(r.out, Truncate(strings.TrimRight(pad+strings.Join(out, sep), " "), r.width))
		if ri == 0 {
			var rule []string
			for _, w := range widths {
				rule = append(rule, strings.Repeat("─", w))
			}
			r.out = append(r.out, Truncate(pad+r.t.Muted.Render(strings.Join(rule, "─┼─")), r.width))
		}
	}
	r.blank()
	return j
}

func total(w []int) int {
	s := 0
	for _, v := range w {
		s += v
	}
	return s
}

func widest(w []int) int {
	k := 0
	for i, v := range w {
		if v > w[k] {
			k = i
		}
	}
	return k
}
