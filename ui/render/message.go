package render

import (
	"fmt"
	"strings"
)

// ThinkingPreviewLines is how many lines of finished thinking show
// collapsed, and of live thinking under its spinner.
const ThinkingPreviewLines = 2

// UserMessage renders what the user sent: "✨ " and the text, wrapped
// under it; a shell command (shell) shows "! " in the shell colour.
func UserMessage(t Theme, text string, width int, shell bool) []string {
	marker, style := t.User.Render(UserMarker), t.User
	if shell {
		marker, style = t.Shell.Bold(true).Render("! "), t.Shell
	}
	mw := Width(ansiStrip(marker))
	lines := Wrap(strings.Trim(text, "\n"), max(width-mw-1, 10))
	for i, l := range lines {
		if l != "" {
			lines[i] = style.Render(l)
		}
	}
	return Hang(lines, marker)
}

// Assistant renders the model's answer: Markdown after a bullet, the
// following lines indented under it.
func Assistant(t Theme, md *Markdown, text string, width int) []string {
	lines := md.Render(text, max(width-len(Indent)-1, 10))
	if len(lines) == 0 {
		return nil
	}
	return Hang(lines, t.Text.Render(Bullet))
}

// Thinking renders finished reasoning: dim italic text after a dim
// bullet, cut to its first two lines and a hint unless expanded.
func Thinking(t Theme, text string, width int, expanded bool) []string {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil
	}
	lines := trimTrailingEmpty(Wrap(text, max(width-len(Indent)-1, 10)))
	more := 0
	if !expanded && len(lines) > ThinkingPreviewLines {
		more = len(lines) - ThinkingPreviewLines
		lines = lines[:ThinkingPreviewLines]
	}
	for i, l := range lines {
		lines[i] = t.Thinking.Render(l)
	}
	if more > 0 {
		lines = append(lines, t.Dim.Render(fmt.Sprintf("... (%d more %s, ctrl+o to expand)", more, plural(more, "line", "lines"))))
	}
	return Hang(lines, t.Dim.Render(Bullet))
}

// ThinkingLive renders reasoning as it streams: the spinner frame and
// "thinking...", then its last two lines.
func ThinkingLive(t Theme, text, frame string, width int) []string {
	out := []string{t.Dim.Render(frame + " thinking...")}
	lines := trimTrailingEmpty(Wrap(strings.TrimSpace(text), max(width-len(Indent)-1, 10)))
	for _, l := range lastLines(lines, ThinkingPreviewLines) {
		out = append(out, Indent+t.Thinking.Render(l))
	}
	return out
}

// Level grades a status line.
type Level int8

// Status levels.
const (
	Info Level = iota
	Success
	Warning
	Error
)

func (t Theme) level(l Level) styleRenderer {
	switch l {
	case Success:
		return t.Success
	case Warning:
		return t.Warning
	case Error:
		return t.Error
	}
	return t.Text
}

type styleRenderer interface{ Render(...string) string }

// Status renders a one-line result of a command in its level's colour,
// wrapped when long.
func Status(t Theme, l Level, text string, width int) []string {
	s := t.level(l)
	bullet := Bullet
	if l == Error {
		bullet = Fail
	}
	lines := Wrap(text, max(width-3, 10))
	for i, ln := range lines {
		lines[i] = s.Render(ln)
	}
	return Hang(lines, s.Render(bullet))
}

// Notice renders a titled notice: the title as a status line, the detail
// indented and dim under it.
func Notice(t Theme, l Level, title, detail string, width int) []string {
	out := Status(t, l, title, width)
	if d := strings.TrimSpace(detail); d != "" {
		for _, ln := range Wrap(d, max(width-3, 10)) {
			out = append(out, Indent+t.Dim.Render(ln))
		}
	}
	return out
}

// ErrorTitle is the title an error line shows for an error code.
func ErrorTitle(code string) string {
	switch code {
	case "provider.auth_error":
		return "Authentication failed"
	case "provider.rate_limit":
		return "Rate limited"
	case "provider.connection_error":
		return "Connection failed"
	case "provider.api_error":
		return "Provider error"
	case "provider.filtered":
		return "Blocked by the provider"
	case "context.overflow":
		return "Context window exceeded"
	case "loop.max_steps_exceeded":
		return "Step limit reached"
	case "records.write_failed":
		return "Could not save the session"
	case "model.not_configured":
		return "No model"
	case "turn.agent_busy":
		return "Busy"
	}
	return "Error"
}

// ErrorLine renders a failed turn's error: "<title>: <message>".
func ErrorLine(t Theme, code, message string, width int) []string {
	return Status(t, Error, ErrorTitle(code)+": "+strings.TrimSpace(message), width)
}

// Compaction renders a finished compaction: the token counts before and
// after, and the summary when expanded.
func Compaction(t Theme, before, after int, summary string, width int, expanded bool) []string {
	out := []string{t.Success.Render(Bullet) + "Compacted " + t.Dim.Render(fmt.Sprintf("(%s → %s tokens)", Tokens(before), Tokens(after)))}
	summary = strings.TrimSpace(summary)
	switch {
	case summary == "":
	case expanded:
		for _, l := range Wrap(summary, max(width-3, 10)) {
			out = append(out, Indent+t.Dim.Render(l))
		}
	default:
		out = append(out, Indent+t.Dim.Render("summary hidden · ctrl+o to expand"))
	}
	return out
}

// Tokens abbreviates a token count: 999, 12.3k, 1.2M.
func Tokens(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 1_000_000:
		return strings.Replace(fmt.Sprintf("%.1fk", float64(n)/1000), ".0k", "k", 1)
	}
	return strings.Replace(fmt.Sprintf("%.1fM", float64(n)/1_000_000), ".0M", "M", 1)
}
