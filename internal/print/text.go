package print

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/kimigo/kimigo/event"
)

// textRenderer is the text format (spec 06 §1.6.2): answer text streams to
// stdout and reasoning to stderr, each through its own block writer; tool
// calls, results and retries are not shown. Notices go to stderr.
type textRenderer struct {
	mu       sync.Mutex
	stderr   io.Writer
	answer   *BlockWriter // stdout
	thinking *BlockWriter // stderr
}

func newTextRenderer(o Options) *textRenderer {
	return &textRenderer{
		stderr:   o.Stderr,
		answer:   NewBlockWriter(o.Stdout, o.StdoutWidth),
		thinking: NewBlockWriter(o.Stderr, o.StderrWidth),
	}
}

func (r *textRenderer) start(version string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintf(r.stderr, "kimigo version %s\n", version)
}

// render shows one event of the main agent's current turn.
func (r *textRenderer) render(ev event.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch e := ev.(type) {
	case event.AssistantDelta:
		r.thinking.End()
		r.answer.Write(e.Delta)
	case event.ThinkingDelta:
		r.thinking.Write(e.Delta)
	case event.ToolProgress:
		if e.Update.Text == "" {
			return
		}
		r.thinking.End()
		text := e.Update.Text
		if !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		io.WriteString(r.stderr, text)
	case event.StepStarted, event.StepInterrupted:
		r.endBlocks()
	case event.TurnEnded:
		if e.Reason == event.EndCompleted {
			r.endBlocks()
		}
	case event.HookResult:
		r.endBlocks()
		r.answer.Write(hookText(e))
		r.answer.End()
	}
}

func (r *textRenderer) endBlocks() {
	r.thinking.End()
	r.answer.End()
}

func (r *textRenderer) finish() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.endBlocks()
	return r.answer.Err()
}

func (r *textRenderer) resumeHint(_, command string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintf(r.stderr, "To resume this session: %s\n", command)
}

func (r *textRenderer) goalSummary(g *event.Goal) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintln(r.stderr, summaryText(g))
}

// hookText is what a hook.result block shows: the event, whether it
// blocked, then its trimmed output.
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
