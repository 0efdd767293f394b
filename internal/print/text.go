package print

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/kimigo/kimigo/event"
)

// textRenderer is the text format (issue 15 item 3, superseding spec 06
// §1.6.2): stdout carries only the final answer, the text of the last
// model step, as the model wrote it; progress goes to stderr, one
// whole line at a time. With Progress off (a stderr that is not a
// terminal, without --verbose) stderr gets only warnings and retries.
type textRenderer struct {
	mu       sync.Mutex
	stdout   io.Writer
	stderr   io.Writer
	progress bool
	width    int          // stderr's terminal width, 0 when none
	thinking *BlockWriter // stderr, with Progress
	// step is the text of the current model step; echoed says it was
	// shown as progress.
	step   strings.Builder
	echoed bool
	err    error // first write error on stdout
}

func newTextRenderer(o Options) *textRenderer {
	return &textRenderer{stdout: o.Stdout, stderr: o.Stderr, progress: o.Progress, width: o.StderrWidth,
		thinking: NewBlockWriter(o.Stderr, o.StderrWidth)}
}

func (r *textRenderer) start(string) {}

// render shows one event of the main agent's current turn.
func (r *textRenderer) render(ev event.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch e := ev.(type) {
	case event.AssistantDelta:
		r.step.WriteString(e.Delta)
	case event.ThinkingDelta:
		if r.progress {
			r.thinking.Write(e.Delta)
		}
	case event.StepStarted:
		r.endStep()
	case event.StepRetrying:
		r.step.Reset() // the failed attempt's text is not the answer
		r.echoed = false
		r.line(retryText(e))
	case event.ToolCallStarted:
		if r.progress {
			r.echoStep()
			r.line(toolHeader(e.Name, e.Args, r.width))
		}
	case event.ToolProgress:
		if r.progress && e.Update.Text != "" {
			r.line(strings.TrimRight(e.Update.Text, "\n"))
		}
	case event.ToolResult:
		if r.progress {
			r.line(resultLine(e, r.width))
		}
	case event.HookResult:
		if r.progress || e.Blocked {
			r.line(hookText(e))
		}
	case event.Notice:
		if e.Level == event.NoticeWarning {
			r.line("Warning: " + e.Text)
		} else if r.progress {
			r.line(e.Text)
		}
	}
}

func (r *textRenderer) endStep() {
	r.step.Reset()
	r.echoed = false
}

// echoStep shows the current step's text on stderr once, when the step
// goes on to call tools: it is commentary, not the answer.
func (r *textRenderer) echoStep() {
	if r.echoed || strings.TrimSpace(r.step.String()) == "" {
		return
	}
	r.echoed = true
	r.line(strings.TrimSpace(r.step.String()))
}

// line writes one progress line to stderr, after ending an open thinking
// block, so nothing is glued onto another line.
func (r *textRenderer) line(s string) {
	r.thinking.End()
	io.WriteString(r.stderr, s+"\n")
}

func (r *textRenderer) finish() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.thinking.End()
	r.endStep()
	return r.err
}

// end writes the answer of a successful run to stdout and the resume
// hint to stderr; a failed run's hint is written by the caller after its
// error.
func (r *textRenderer) end(res Result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !res.ended {
		return
	}
	if res.Result != "" {
		s := res.Result
		if !strings.HasSuffix(s, "\n") {
			s += "\n"
		}
		if _, err := io.WriteString(r.stdout, s); err != nil && r.err == nil {
			r.err = err
		}
	}
	if res.ResumeCommand != "" {
		fmt.Fprintf(r.stderr, "To resume this session: %s\n", res.ResumeCommand)
	}
}

func (r *textRenderer) goalSummary(g *event.Goal) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.thinking.End()
	fmt.Fprintln(r.stderr, summaryText(g))
}

// retryText is a retry as one line: the reason and the wait.
func retryText(e event.StepRetrying) string {
	reason := firstLine(e.ErrorMessage)
	if reason == "" {
		reason = e.ErrorName
	}
	if reason == "" {
		reason = "the request failed"
	}
	return fmt.Sprintf("%s; retry %d of %d in %s", reason, e.NextAttempt, e.MaxAttempts, waitText(e.DelayMs))
}

// waitText is a delay as people say it: "4 s", "0.5 s", "2 min 5 s".
func waitText(ms int64) string {
	d := time.Duration(ms) * time.Millisecond
	if d < time.Second {
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	d = d.Round(time.Second)
	if d < time.Minute {
		return fmt.Sprintf("%d s", int(d.Seconds()))
	}
	m, s := int(d/time.Minute), int((d % time.Minute).Seconds())
	if s == 0 {
		return fmt.Sprintf("%d min", m)
	}
	return fmt.Sprintf("%d min %d s", m, s)
}

// mainArgKeys are the argument names that say what a call is about, in
// the order they are looked for.
var mainArgKeys = []string{"command", "file_path", "path", "pattern", "url", "query", "description", "prompt", "name"}

// toolHeader is the progress line of a tool call: the tool and its main
// argument on one line.
func toolHeader(name string, args json.RawMessage, width int) string {
	var m map[string]any
	_ = json.Unmarshal(args, &m)
	arg := ""
	for _, k := range mainArgKeys {
		if s, ok := m[k].(string); ok && s != "" {
			arg = s
			break
		}
	}
	if arg == "" {
		return "→ " + name
	}
	return clip("→ "+name+" "+oneLine(arg), width)
}

// resultLine is the progress line of a tool result: ok or error, the
// size of the output and the tool's own summary.
func resultLine(e event.ToolResult, width int) string {
	text := e.Output.Text()
	lines := strings.Count(text, "\n")
	if text != "" && !strings.HasSuffix(text, "\n") {
		lines++
	}
	detail := e.Brief
	if detail == "" {
		detail = e.Message
	}
	head := "  ✓ "
	if e.IsError {
		head = "  ✗ error: "
		if detail == "" {
			detail = firstLine(text)
		}
	}
	parts := []string{}
	if detail != "" {
		parts = append(parts, oneLine(detail))
	}
	if !e.IsError || detail == "" {
		parts = append(parts, plural(lines, "line"))
	}
	return clip(head+strings.Join(parts, ", "), width)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return strings.TrimSpace(s[:i])
	}
	return s
}

// oneLine folds line breaks and tabs into spaces.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// clip cuts s to width columns (120 when the width is unknown) with an
// ellipsis.
func clip(s string, width int) string {
	if width <= 3 {
		width = 120
	}
	if utf8.RuneCountInString(s) <= width {
		return s
	}
	rs := []rune(s)
	return string(rs[:width-1]) + "…"
}

// hookText is what a hook.result shows: the event, whether it blocked,
// then its trimmed output.
func hookText(e event.HookResult) string {
	head := string(e.HookEvent) + " hook"
	if e.Blocked {
		head += " blocked"
	}
	body := strings.TrimSpace(e.Content)
	if body == "" {
		body = "(empty)"
	}
	return head + "\n\n" + body
}
