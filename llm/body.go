package llm

import (
	"html"
	"regexp"
	"strings"
	"unicode/utf8"
)

// maxSummary bounds the text BodySummary returns.
const maxSummary = 200

var (
	htmlTitle = lazyRegexp(`(?is)<title[^>]*>(.*?)</title>`)
	htmlH1    = lazyRegexp(`(?is)<h1[^>]*>(.*?)</h1>`)
	htmlTag   = lazyRegexp(`(?s)<[^>]*>`)
	spaceRun  = lazyRegexp(`\s+`)
)

// isHTML reports a body that is an HTML document rather than text or JSON.
func isHTML(text string) bool {
	if !strings.HasPrefix(text, "<") {
		return false
	}
	head := strings.ToLower(text[:min(len(text), 512)])
	for _, tag := range []string{"<!doctype html", "<html", "<head", "<body", "<title", "<center", "<h1"} {
		if strings.Contains(head, tag) {
			return true
		}
	}
	return false
}

// BodySummary is one line that says what an unexpected response body is,
// for error messages: the title (else the first heading, else the first line
// of text) of an HTML page, the first non-blank line of anything else, at
// most 200 bytes, "(empty body)" for nothing at all. Invalid UTF-8 is
// replaced.
func BodySummary(body []byte) string {
	text := strings.TrimSpace(strings.ToValidUTF8(string(body), "\uFFFD"))
	if text == "" {
		return "(empty body)"
	}
	line, page := "", isHTML(text)
	if page {
		for _, re := range []*regexp.Regexp{htmlTitle(), htmlH1()} {
			if m := re.FindStringSubmatch(text); m != nil {
				line = htmlText(m[1])
			}
			if line != "" {
				break
			}
		}
		if line == "" {
			text = htmlTag().ReplaceAllString(text, "\n")
		}
	}
	if line == "" {
		for l := range strings.Lines(text) {
			if page {
				l = html.UnescapeString(l)
			}
			if l = collapse(l); l != "" {
				line = l
				break
			}
		}
	}
	if len(line) > maxSummary {
		line = truncateUTF8(line, maxSummary) + "…"
	}
	return line
}

// htmlText decodes entities and collapses whitespace.
func htmlText(s string) string { return collapse(html.UnescapeString(s)) }

// collapse turns every run of whitespace into one space and trims the ends.
func collapse(s string) string {
	s = strings.TrimSpace(spaceRun().ReplaceAllString(s, " "))
	if !utf8.ValidString(s) { // an entity can decode to anything
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return s
}
