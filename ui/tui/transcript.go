package tui

import (
	"strings"
	"time"

	"github.com/kimigo/kimigo/ui/render"
)

// itemKind is the kind of a live transcript item.
type itemKind int8

const (
	itemText itemKind = iota
	itemThinking
	itemTool
	itemShell
	itemCompaction // only in the expanded view
)

// item is one entry of the running turn that is not printed yet: text or
// thinking as it streams, a tool call until its result. Items print into
// the scrollback in order, each once it is done; a text item prints its
// finished paragraphs as it goes.
type item struct {
	kind itemKind
	done bool

	// text and thinking: what arrived.
	buf strings.Builder
	// text: how much of buf is printed, and whether its bullet was.
	printed int
	bullet  bool

	// tool and shell: the call, its id and when it started.
	tool    *render.Tool
	id      string
	started time.Time
}

// visible is the text the item shows.
func (it *item) visible() string { return it.buf.String() }

// stableSplit cuts text after its last paragraph break outside a fenced
// code block: what comes before will not change as more text streams in.
func stableSplit(text string) (stable, rest string) {
	fence := ""
	cut := -1
	off := 0
	for line := range strings.SplitAfterSeq(text, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case fence != "":
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
		case strings.HasPrefix(trimmed, "```"), strings.HasPrefix(trimmed, "~~~"):
			fence = trimmed[:3]
		case trimmed == "" && strings.HasSuffix(line, "\n") && off > 0:
			cut = off + len(line)
		}
		off += len(line)
	}
	if cut <= 0 {
		return "", text
	}
	return text[:cut], text[cut:]
}

// textBlock renders assistant text: Markdown after the bullet on its
// first chunk, indented under it on later ones.
func (m *Model) textBlock(text string, bullet bool) []string {
	lines := m.md.Render(text, max(m.width-len(render.Indent)-1, 10))
	if len(lines) == 0 {
		return nil
	}
	if bullet {
		return render.Hang(lines, m.theme.Text.Render(render.Bullet))
	}
	return render.Hang(lines, render.Indent)
}

// liveLines renders an item for the live region.
func (m *Model) liveLines(it *item) []string {
	switch it.kind {
	case itemText:
		text, cut := m.liveTail(it.visible()[it.printed:])
		return m.textBlock(text, !it.bullet && !cut)
	case itemThinking:
		return render.ThinkingLive(m.theme, it.visible(), brailleFrame(m.now().Sub(it.started)), m.width)
	default:
		it.tool.Running = m.now().Sub(it.started)
		_, it.tool.CanBackground = m.sess.(detacher)
		return render.ToolCall(m.theme, it.tool, m.width, false)
	}
}

// liveTail is the end of a streaming text that the live region can show:
// at most about a screen of it, from a line start, so a frame costs
// the same however long the paragraph grows. A code block cut open at
// the start is reopened.
func (m *Model) liveTail(text string) (string, bool) {
	limit := m.width * m.height
	if len(text) <= limit {
		return text, false
	}
	head, tail := text[:len(text)-limit], text[len(text)-limit:]
	if i := strings.IndexAny(tail, "\n "); i >= 0 {
		head, tail = head+tail[:i+1], tail[i+1:]
	}
	if strings.Count(head, "```")%2 == 1 {
		tail = "```\n" + tail
	}
	return tail, true
}

// finalLines renders a finished item for the scrollback.
func (m *Model) finalLines(it *item) []string {
	switch it.kind {
	case itemText:
		return m.textBlock(it.buf.String()[it.printed:], !it.bullet)
	case itemThinking:
		return render.Thinking(m.theme, it.buf.String(), m.width, false)
	default:
		return render.ToolCall(m.theme, it.tool, m.width, false)
	}
}

// print queues a block for the scrollback, with the blank line above it.
func (m *Model) print(lines []string) {
	if len(lines) == 0 {
		return
	}
	m.prints = append(m.prints, render.Block(lines...))
	m.dirty = true
}

// flushLive prints the items at the head of the live list that are done
// and the finished paragraphs of a text item that reached the head.
func (m *Model) flushLive() {
	for len(m.live) > 0 {
		it := m.live[0]
		if it.kind == itemText && !it.done {
			stable, _ := stableSplit(it.visible()[it.printed:])
			if stable != "" {
				m.print(m.textBlock(stable, !it.bullet))
				it.bullet = true
				it.printed += len(stable)
			}
			return
		}
		if !it.done {
			return
		}
		m.remember(it)
		m.print(m.finalLines(it))
		m.live = m.live[1:]
	}
}

// finishAll marks every live item done (the turn ended) and prints them.
func (m *Model) finishAll(cancelled bool) {
	for _, it := range m.live {
		if it.kind == itemTool && !it.tool.Done() {
			it.tool.State = render.ToolFailed
			if cancelled && it.tool.Output == "" {
				it.tool.Output = "Interrupted"
			}
		}
		it.done = true
	}
	m.flushLive()
}

// expandable is a finished block Ctrl-O shows in full.
type expandable struct {
	turn int
	tool *render.Tool
	text string // thinking or a compaction summary
	kind itemKind
}

// remember keeps a finished tool call or thinking for the expanded view.
func (m *Model) remember(it *item) {
	switch it.kind {
	case itemTool:
		m.expand = append(m.expand, expandable{turn: m.turnSeq, tool: it.tool, kind: it.kind})
	case itemThinking:
		m.expand = append(m.expand, expandable{turn: m.turnSeq, text: it.buf.String(), kind: it.kind})
	}
	// only the last three turns are kept
	for len(m.expand) > 0 && m.expand[0].turn < m.turnSeq-2 {
		m.expand = m.expand[1:]
	}
}
