package tools

import (
	"bytes"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// ExtractHTMLText returns the readable text of an HTML page as light
// Markdown: "# <title>", a blank line, then the text of the page's
// <article>, else its <main>, else its <body>, with headings, list items,
// paragraphs and preformatted blocks kept and scripts, styles, navigation,
// forms and other chrome dropped.
func ExtractHTMLText(page []byte) string {
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		return string(page) // x/net/html accepts any input; keep the body if not
	}
	root := findElement(doc, atom.Article)
	if root == nil {
		root = findElement(doc, atom.Main)
	}
	if root == nil {
		root = findElement(doc, atom.Body)
	}
	var w textWriter
	if root != nil {
		w.walk(root)
	}
	text := w.String()
	if t := findElement(doc, atom.Title); t != nil {
		if title := collapseSpace(nodeText(t)); title != "" {
			return "# " + title + "\n\n" + text
		}
	}
	return text
}

func findElement(n *html.Node, a atom.Atom) *html.Node {
	if n.Type == html.ElementNode && n.DataAtom == a {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := findElement(c, a); f != nil {
			return f
		}
	}
	return nil
}

func nodeText(n *html.Node) string {
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		} else {
			b.WriteString(nodeText(c))
		}
	}
	return b.String()
}

func collapseSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// skipped elements hold no readable text.
var skipped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true, atom.Svg: true,
	atom.Iframe: true, atom.Nav: true, atom.Footer: true, atom.Aside: true, atom.Form: true,
	atom.Button: true, atom.Select: true, atom.Head: true, atom.Canvas: true, atom.Object: true,
}

// blocks start on a new line.
var blocks = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Section: true, atom.Article: true, atom.Main: true,
	atom.Header: true, atom.Ul: true, atom.Ol: true, atom.Li: true, atom.Table: true, atom.Tr: true,
	atom.Blockquote: true, atom.Pre: true, atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true,
	atom.H5: true, atom.H6: true, atom.Figure: true, atom.Figcaption: true, atom.Dl: true, atom.Dt: true,
	atom.Dd: true, atom.Hr: true,
}

var headingLevel = map[atom.Atom]int{atom.H1: 1, atom.H2: 2, atom.H3: 3, atom.H4: 4, atom.H5: 5, atom.H6: 6}

// textWriter renders nodes as text with one blank line between blocks.
type textWriter struct {
	b       strings.Builder
	pending bool   // a block ended: the next text starts a new paragraph
	space   bool   // the previous text ended with white space
	prefix  string // written before the next text (a list bullet)
	inPre   int
}

func (w *textWriter) String() string { return strings.TrimSpace(w.b.String()) }

func (w *textWriter) breakBlock() { w.pending = true }

func (w *textWriter) text(raw string) {
	s := raw
	if w.inPre == 0 {
		s = collapseSpace(raw)
		if s == "" {
			w.space = w.space || raw != ""
			return
		}
	}
	lead := raw != "" && strings.TrimLeft(raw, " \t\r\n") != raw
	switch {
	case w.pending && w.b.Len() > 0:
		w.b.WriteString("\n\n")
	case w.inPre == 0 && w.b.Len() > 0 && (lead || w.space):
		w.b.WriteByte(' ')
	}
	w.pending = false
	w.b.WriteString(w.prefix)
	w.prefix = ""
	w.b.WriteString(s)
	w.space = strings.TrimRight(raw, " \t\r\n") != raw
}

func (w *textWriter) walk(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		w.text(n.Data)
		return
	case html.ElementNode:
		if skipped[n.DataAtom] {
			return
		}
	}
	block := n.Type == html.ElementNode && blocks[n.DataAtom]
	if block {
		w.breakBlock()
	}
	switch n.DataAtom {
	case atom.Br:
		w.b.WriteByte('\n')
	case atom.Li:
		w.prefix = "- "
	case atom.Pre:
		w.inPre++
		defer func() { w.inPre-- }()
	}
	if lvl := headingLevel[n.DataAtom]; lvl > 0 {
		w.prefix = strings.Repeat("#", lvl) + " "
		w.text(collapseSpace(nodeText(n)))
		w.breakBlock()
		return
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.walk(c)
	}
	if block {
		w.breakBlock()
	}
}
