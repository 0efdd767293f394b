package render

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// ToolState is where a tool call is.
type ToolState int8

// Tool call states.
const (
	// ToolStreaming: the model is still writing the call's arguments.
	ToolStreaming ToolState = iota
	// ToolRunning: the call was made and runs (or waits for approval).
	ToolRunning
	// ToolDone: it finished.
	ToolDone
	// ToolFailed: it finished with an error.
	ToolFailed
	// ToolTruncated: the model's output limit cut its arguments off.
	ToolTruncated
)

// Preview sizes (spec 06 §5.6).
const (
	ResultPreviewLines  = 3
	CommandPreviewLines = 10
	DiffPreviewRows     = 10
	backgroundHintAfter = 10 * time.Second
)

// Tool is what the transcript knows of one tool call.
type Tool struct {
	Name string
	// Args are the complete arguments; Partial the arguments so far while
	// they stream.
	Args    json.RawMessage
	Partial string
	// WorkDir shortens paths under it.
	WorkDir string
	State   ToolState
	// Output is the result's text, or a running command's output so far.
	Output string
	// Progress holds the progress lines that are not output.
	Progress []string
	// Running is how long the call has run; CanBackground says Ctrl-B can
	// move it to the background (its hint shows after 10 s).
	Running       time.Duration
	CanBackground bool
	// Before and After are a Write's or Edit's change, when known.
	Before, After string
	HasChange     bool
}

// Done reports whether the call finished.
func (v *Tool) Done() bool { return v.State >= ToolDone }

// ToolCall renders a tool call block (spec 06 §5.6.3): the header and,
// unless the tool's body is suppressed, a preview of its arguments,
// output or change. expanded shows the whole output.
func ToolCall(t Theme, v *Tool, width int, expanded bool) []string {
	out := []string{toolHeader(t, v, width)}
	out = append(out, toolBody(t, v, width, expanded)...)
	return out
}

// ToolHeader is the header line alone.
func ToolHeader(t Theme, v *Tool, width int) string { return toolHeader(t, v, width) }

func toolHeader(t Theme, v *Tool, width int) string {
	bullet := t.Text.Render(Bullet)
	switch v.State {
	case ToolDone:
		bullet = t.Success.Render(Bullet)
	case ToolFailed, ToolTruncated:
		bullet = t.Error.Render(Fail)
	}
	return bullet + Truncate(headerText(t, v), max(width-3, 8))
}

func headerText(t Theme, v *Tool) string {
	args := []byte(v.Args)
	if v.State == ToolStreaming {
		args = nil
	}
	switch v.Name {
	case "Bash":
		if v.Done() {
			return "Ran a command"
		}
		return "Running a command"
	case "AskUserQuestion":
		switch v.State {
		case ToolDone:
			return "Collected your answers"
		case ToolFailed, ToolTruncated:
			return "Could not collect your input"
		}
		return "Waiting for your input"
	}
	verb := "Using"
	switch v.State {
	case ToolDone, ToolFailed:
		verb = "Used"
	case ToolTruncated:
		verb = "Truncated"
	}
	name, chip := v.Name, ""
	if server, tool, ok := MCPName(v.Name); ok {
		name, chip = tool, "MCP/"+server
	}
	h := verb + " " + t.Bold.Render(name)
	arg := ""
	if args != nil {
		arg = KeyArgument(v.Name, args, v.WorkDir)
	} else {
		arg = PartialKeyArgument(v.Name, v.Partial, v.WorkDir)
	}
	if arg != "" {
		h += " (" + arg + ")"
	}
	if chip != "" {
		h += t.Dim.Render(" · " + chip)
	}
	return h
}

func toolBody(t Theme, v *Tool, width int, expanded bool) []string {
	switch v.Name {
	case "TodoList", "EnterPlanMode":
		return nil
	}
	inner := max(width-len(Indent), 10)
	var out []string
	if v.Name == "Bash" {
		cmd := argValue(stringArgs(v.Args), "command")
		if v.State == ToolStreaming {
			_, cmd = PartialField(v.Partial)
		}
		if cmd != "" {
			lines := Wrap("$ "+cmd, inner)
			if len(lines) > CommandPreviewLines && !expanded {
				n := len(lines) - CommandPreviewLines
				lines = append(lines[:CommandPreviewLines], t.Dim.Render(fmt.Sprintf("... (%d more lines)", n)))
			}
			out = append(out, indent(t.Dim, lines)...)
		}
	}
	if v.HasChange && (v.Name == "Write" || v.Name == "Edit") && v.State != ToolFailed {
		rows := DiffPreviewRows
		if expanded {
			rows = 0
		}
		path := KeyArgument(v.Name, v.Args, v.WorkDir)
		d := Diff(t, path, v.Before, v.After, inner, DiffOptions{MaxRows: rows, Streaming: v.State == ToolStreaming})
		return append(out, indentRaw(d)...)
	}
	for _, p := range v.Progress {
		out = append(out, indent(t.Dim, Wrap(p, inner))...)
	}
	if v.State == ToolRunning && v.Name == "Bash" && v.CanBackground && v.Running >= backgroundHintAfter {
		out = append(out, Indent+t.Dim.Render("Press Ctrl+B to run in background"))
	}
	text := strings.TrimRight(v.Output, " \t\r\n")
	if text == "" || strings.HasPrefix(strings.TrimSpace(text), "<system-reminder>") {
		return out
	}
	style := t.Dim
	if v.State == ToolFailed {
		style = t.Error
	}
	switch {
	case expanded:
		return append(out, indent(style, trimTrailingEmpty(Wrap(text, inner)))...)
	case !v.Done(): // a running command: its last lines
		lines, hidden := previewLines(text, inner, false)
		if hidden > 0 {
			out = append(out, Indent+t.Dim.Render(fmt.Sprintf("... (%d earlier %s)", hidden, plural(hidden, "line", "lines"))))
		}
		return append(out, indent(style, lines)...)
	default:
		lines, hidden := previewLines(text, inner, true)
		out = append(out, indent(style, lines)...)
		if hidden > 0 {
			out = append(out, Indent+t.Dim.Render(fmt.Sprintf("... (%d more %s, ctrl+o to expand)", hidden, plural(hidden, "line", "lines"))))
		}
		return out
	}
}

// exactPreviewBytes is the output size up to which the hidden lines of a
// preview are counted as wrapped at the width; a longer output counts
// the lines it holds, so a 10,000-line output costs no wrapping.
const exactPreviewBytes = 16 << 10

// previewLines returns the first (head) or last ResultPreviewLines
// visual lines of text wrapped at width, and how many lines it hides.
func previewLines(text string, width int, head bool) ([]string, int) {
	if len(text) <= exactPreviewBytes {
		lines := trimTrailingEmpty(Wrap(text, width))
		n := len(lines) - ResultPreviewLines
		switch {
		case n <= 0:
			return lines, 0
		case head:
			return lines[:ResultPreviewLines], n
		}
		return lines[n:], n
	}
	total := strings.Count(text, "\n") + 1
	part := lastTextLines(text, ResultPreviewLines)
	if head {
		part = firstLines(text, ResultPreviewLines)
	}
	lines := trimTrailingEmpty(Wrap(part, width))
	hidden := total - ResultPreviewLines
	if len(lines) > ResultPreviewLines {
		hidden += len(lines) - ResultPreviewLines
		if head {
			lines = lines[:ResultPreviewLines]
		} else {
			lines = lines[len(lines)-ResultPreviewLines:]
		}
	}
	return lines, max(hidden, 0)
}

// firstLines is the first n lines of s.
func firstLines(s string, n int) string {
	end := 0
	for range n {
		i := strings.IndexByte(s[end:], '\n')
		if i < 0 {
			return s
		}
		end += i + 1
	}
	return s[:end-1]
}

// lastTextLines is the last n lines of s.
func lastTextLines(s string, n int) string {
	start := len(s)
	for range n {
		i := strings.LastIndexByte(s[:start], '\n')
		if i < 0 {
			return s
		}
		start = i
	}
	return s[start+1:]
}

// indent styles lines and indents them by two spaces; a first line given
// pre-styled goes above them.
func indent(s interface{ Render(...string) string }, lines []string, pre ...string) []string {
	out := make([]string, 0, len(lines)+len(pre))
	for _, p := range pre {
		out = append(out, Indent+p)
	}
	for _, l := range lines {
		if l == "" {
			out = append(out, "")
			continue
		}
		out = append(out, Indent+s.Render(l))
	}
	return out
}

func indentRaw(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = Indent + l
	}
	return out
}
