package tools

import (
	"strings"
	"unicode/utf8"

	"github.com/kimigo/kimigo/internal/runes"
	"github.com/kimigo/kimigo/loop"
)

// Result builder limits (spec 05 §1.9). Lengths count runes (§11.2).
const (
	DefaultMaxChars      = 50_000
	DefaultMaxLineLength = 2_000
	truncationMarker     = "[...truncated]"
	truncatedSuffix      = "Output is truncated to fit in the message."
)

// BuilderOptions configure a ResultBuilder. The zero value gives the
// defaults: 50 000 chars in all and 2 000 per line.
type BuilderOptions struct {
	// MaxChars caps the whole output; 0 means DefaultMaxChars.
	MaxChars int
	// MaxLineLength caps each line; 0 means DefaultMaxLineLength.
	MaxLineLength int
	// NoLineLimit lifts the per-line cap (FetchURL, WebSearch).
	NoLineLimit bool
}

// ResultBuilder collects tool output under a total and a per-line limit and
// turns it into a loop.ToolResult (spec 05 §1.9). A cut line ends with
// "[...truncated]" and keeps its line break; once the total is reached the
// marker is written once and later writes are dropped. It is not safe for
// concurrent use.
type ResultBuilder struct {
	maxChars, maxLine int
	b                 strings.Builder
	chars             int
	truncated, full   bool
}

// NewResultBuilder returns an empty builder.
func NewResultBuilder(opts BuilderOptions) *ResultBuilder {
	rb := &ResultBuilder{maxChars: opts.MaxChars, maxLine: opts.MaxLineLength}
	if rb.maxChars <= 0 {
		rb.maxChars = DefaultMaxChars
	}
	if opts.NoLineLimit {
		rb.maxLine = 0
	} else if rb.maxLine <= 0 {
		rb.maxLine = DefaultMaxLineLength
	}
	return rb
}

// Write adds text, line by line, applying the limits.
func (rb *ResultBuilder) Write(text string) {
	for text != "" && !rb.full {
		line, rest := splitLine(text)
		text = rest
		if rb.chars >= rb.maxChars {
			rb.b.WriteString(truncationMarker)
			rb.truncated, rb.full = true, true
			return
		}
		limit, byTotal := rb.maxChars-rb.chars, true
		if rb.maxLine > 0 && rb.maxLine < limit {
			limit, byTotal = rb.maxLine, false
		}
		cut := cutLine(line, limit)
		if len(cut) != len(line) {
			// A line cut by the total already carries the marker: stop.
			rb.truncated, rb.full = true, byTotal
		}
		rb.b.WriteString(cut)
		rb.chars += utf8.RuneCountInString(cut)
	}
}

// splitLine returns the first line of s with its terminator ("\r\n", "\n"
// or "\r") and the rest.
func splitLine(s string) (line, rest string) {
	i := strings.IndexAny(s, "\r\n")
	if i < 0 {
		return s, ""
	}
	end := i + 1
	if s[i] == '\r' && end < len(s) && s[end] == '\n' {
		end++
	}
	return s[:end], s[end:]
}

// cutLine shortens line to limit runes, ending with the marker and the
// line's own break.
func cutLine(line string, limit int) string {
	if utf8.RuneCountInString(line) <= limit {
		return line
	}
	body := strings.TrimRight(line, "\r\n")
	brk := line[len(body):]
	keep := max(limit-utf8.RuneCountInString(truncationMarker+brk), 0)
	return runes.Prefix(body, keep) + truncationMarker + brk
}

// Truncated reports whether anything was cut.
func (rb *ResultBuilder) Truncated() bool { return rb.truncated }

// String is the output so far.
func (rb *ResultBuilder) String() string { return rb.b.String() }

// OK returns a successful result. message (given a final period) is
// appended only when the output is empty or was truncated; a truncation
// adds a sentence saying so.
func (rb *ResultBuilder) OK(message string) loop.ToolResult {
	out := rb.String()
	msg := rb.finalMessage(message)
	if msg != "" && (out == "" || rb.truncated) {
		out = appendMessage(out, msg)
	}
	return loop.ToolResult{Output: loop.TextOutput(out), Truncated: rb.truncated}
}

// Error returns an error result with message always appended.
func (rb *ResultBuilder) Error(message string) loop.ToolResult {
	out := appendMessage(rb.String(), rb.finalMessage(message))
	return loop.ToolResult{Output: loop.TextOutput(out), IsError: true, Truncated: rb.truncated}
}

func (rb *ResultBuilder) finalMessage(message string) string {
	if message != "" && !strings.HasSuffix(message, ".") {
		message += "."
	}
	if rb.truncated {
		if message == "" {
			return truncatedSuffix
		}
		return message + " " + truncatedSuffix
	}
	return message
}

func appendMessage(out, msg string) string {
	switch {
	case msg == "":
		return out
	case out == "" || strings.HasSuffix(out, "\n"):
		return out + msg
	}
	return out + "\n" + msg
}
