package render

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/rivo/uniseg"
)

// run is a piece of inline text in one style, or of a link.
type run struct {
	text  string
	style lipgloss.Style
	link  string
}

// emphasis is the inline state the markers toggle.
type emphasis struct{ bold, italic, strike bool }

func (e emphasis) style(base lipgloss.Style) lipgloss.Style {
	s := base
	if e.bold {
		s = s.Bold(true)
	}
	if e.italic {
		s = s.Italic(true)
	}
	if e.strike {
		s = s.Strikethrough(true)
	}
	return s
}

// inlineRuns parses a paragraph's inline Markdown: code spans, **strong**,
// *emphasis* and _emphasis_, ~~strike~~, [links](url), <autolinks> and
// bare URLs, backslash escapes. A marker without its closing pair is
// text, so a half-streamed answer does not turn the rest bold.
func inlineRuns(t Theme, s string, base lipgloss.Style) []run {
	var out []run
	var buf strings.Builder
	var em emphasis
	flush := func() {
		if buf.Len() > 0 {
			out = append(out, run{text: buf.String(), style: em.style(base)})
			buf.Reset()
		}
	}
	code := t.Primary
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && strings.IndexByte("\\`*_{}[]()#+-.!~|<>", s[i+1]) >= 0:
			buf.WriteByte(s[i+1])
			i += 2
			continue
		case c == '`':
			n := 1
			for i+n < len(s) && s[i+n] == '`' {
				n++
			}
			fence := s[i : i+n]
			if end := strings.Index(s[i+n:], fence); end >= 0 {
				flush()
				body := s[i+n : i+n+end]
				if len(body) > 2 && body[0] == ' ' && body[len(body)-1] == ' ' {
					body = body[1 : len(body)-1]
				}
				out = append(out, run{text: body, style: code})
				i += 2*n + end
				continue
			}
		case (c == '*' || c == '_') && i+1 < len(s) && s[i+1] == c:
			m := s[i : i+2]
			if em.bold || closes(s[i+2:], m) && canOpen(s, i, c) {
				flush()
				em.bold = !em.bold
				i += 2
				continue
			}
		case c == '*' || c == '_':
			if em.italic || closes(s[i+1:], string(c)) && canOpen(s, i, c) {
				if c == '_' && em.italic && i+1 < len(s) && isWord(s[i+1:]) {
					break // snake_case inside a word
				}
				flush()
				em.italic = !em.italic
				i++
				continue
			}
		case c == '~' && i+1 < len(s) && s[i+1] == '~':
			if em.strike || closes(s[i+2:], "~~") {
				flush()
				em.strike = !em.strike
				i += 2
				continue
			}
		case c == '[':
			if text, url, n, ok := linkAt(s[i:]); ok {
				flush()
				out = append(out, run{text: text, style: em.style(base).Underline(true), link: url})
				if url != text && !strings.HasPrefix(url, "#") {
					out = append(out, run{text: " (" + url + ")", style: t.Dim})
				}
				i += n
				continue
			}
		case c == '<':
			if end := strings.IndexByte(s[i:], '>'); end > 0 && isURL(s[i+1:i+end]) {
				flush()
				u := s[i+1 : i+end]
				out = append(out, run{text: u, style: em.style(base).Underline(true), link: u})
				i += end + 1
				continue
			}
		case c == 'h' && (strings.HasPrefix(s[i:], "https://") || strings.HasPrefix(s[i:], "http://")) &&
			(i == 0 || !isWordByte(s[i-1])):
			end := i
			for end < len(s) && s[end] != ' ' && s[end] != ')' && s[end] != '>' && s[end] != '"' {
				end++
			}
			u := strings.TrimRight(s[i:end], ".,;:!?")
			flush()
			out = append(out, run{text: u, style: em.style(base).Underline(true), link: u})
			i += len(u)
			continue
		}
		buf.WriteByte(c)
		i++
	}
	flush()
	return out
}

// closes reports whether marker appears in rest (the pair of an opening
// marker).
func closes(rest, marker string) bool { return strings.Contains(rest, marker) }

// canOpen reports whether the marker at i may open emphasis: not in the
// middle of a word for "_", and not followed by a space.
func canOpen(s string, i int, c byte) bool {
	next := i + 1
	if next < len(s) && s[next] == c {
		next++
	}
	if next >= len(s) || s[next] == ' ' {
		return false
	}
	return c == '*' || i == 0 || !isWordByte(s[i-1])
}

func isWordByte(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= utf8.RuneSelf
}

func isWord(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

func isURL(s string) bool {
	return (strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")) && !strings.ContainsAny(s, " \t")
}

// linkAt reads [text](url) at the start of s.
func linkAt(s string) (text, url string, n int, ok bool) {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			depth++
		case ']':
			depth--
			if depth == 0 {
				if i+1 < len(s) && s[i+1] == '(' {
					end := strings.IndexByte(s[i+2:], ')')
					if end < 0 {
						return "", "", 0, false
					}
					url = strings.TrimSpace(s[i+2 : i+2+end])
					if sp := strings.IndexByte(url, ' '); sp >= 0 { // a title after the address
						url = url[:sp]
					}
					return s[1:i], strings.Trim(url, "<>"), i + 3 + end, url != ""
				}
				return "", "", 0, false
			}
		}
	}
	return "", "", 0, false
}

// inlinePlain is s without its inline markup, for measuring a cell.
func inlinePlain(s string) string {
	var b strings.Builder
	for _, r := range inlineRuns(Plain(), s, lipgloss.NewStyle()) {
		b.WriteString(r.text)
	}
	return b.String()
}

// runsText renders runs on one line.
func runsText(runs []run) string {
	var b strings.Builder
	for _, r := range runs {
		b.WriteString(renderRun(r, r.text))
	}
	return b.String()
}

func renderRun(r run, text string) string {
	s := r.style.Render(text)
	if r.link != "" {
		s = ansi.SetHyperlink(r.link) + s + ansi.ResetHyperlink()
	}
	return s
}

// wrapRuns breaks runs into lines of at most width cells at spaces, and
// inside a word that alone is too long. Each line styles its own pieces,
// so no style runs across a line break.
func wrapRuns(runs []run, width int) []string {
	type piece struct {
		r    *run
		text string
	}
	var lines []string
	var line []piece
	lineW := 0
	emit := func() {
		// drop trailing spaces
		for len(line) > 0 {
			last := &line[len(line)-1]
			last.text = strings.TrimRight(last.text, " ")
			if last.text != "" {
				break
			}
			line = line[:len(line)-1]
		}
		var b strings.Builder
		for _, p := range line {
			b.WriteString(renderRun(*p.r, p.text))
		}
		lines = append(lines, b.String())
		line, lineW = nil, 0
	}
	add := func(r *run, text string, w int) {
		if n := len(line); n > 0 && line[n-1].r == r {
			line[n-1].text += text
		} else {
			line = append(line, piece{r, text})
		}
		lineW += w
	}
	for ri := range runs {
		r := &runs[ri]
		for _, tok := range tokens(r.text) {
			w := uniseg.StringWidth(tok)
			if tok == " " {
				if lineW > 0 && lineW+1 <= width {
					add(r, " ", 1)
				}
				continue
			}
			if lineW+w > width && lineW > 0 {
				emit()
			}
			for w > width { // a word longer than a line
				head, hw := cutCells(tok, width-lineW)
				add(r, head, hw)
				emit()
				tok = tok[len(head):]
				w = uniseg.StringWidth(tok)
			}
			add(r, tok, w)
		}
	}
	if len(line) > 0 || len(lines) == 0 {
		emit()
	}
	return lines
}

// tokens splits text into words and single spaces.
func tokens(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' {
			if i > start {
				out = append(out, s[start:i])
			}
			out = append(out, " ")
			start = i + 1
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// cutCells returns the longest prefix of s at most n cells wide (at
// least one character).
func cutCells(s string, n int) (string, int) {
	w, i := 0, 0
	state := -1
	for i < len(s) {
		c, _, cw, st := uniseg.FirstGraphemeClusterInString(s[i:], state)
		if w+cw > n && i > 0 {
			break
		}
		state = st
		w += cw
		i += len(c)
	}
	return s[:i], w
}
