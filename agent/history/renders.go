package history

import (
	"sync"

	"github.com/kimigo/kimigo/llm"
)

// renders holds the rendered form of the tool results whose rendering
// builds a new text: one text part with a note or an error status
// (RenderToolResult). They are rendered once, when they enter history,
// not on every request: a Read of 50 KB with its note used to be copied
// into every request of the session. The stored text is then a slice of
// the rendered one, so a result is kept once however it is read.
//
// Entries are keyed by Seq and checked against the message they are used
// for (its text, note and error flag), so a message that is not the one
// rendered, or no longer in history, is rendered afresh. Memory's
// mutators add and prune entries under the agent's lock; Project reads
// them from any goroutine.
type renders struct {
	mu    sync.RWMutex
	bySeq map[uint64]rendered
}

type rendered struct {
	text    string // the stored text, a slice of parts[0].Text
	note    string
	isError bool
	parts   []llm.ContentPart
}

// add renders msg, when it is a tool result whose rendering builds a new
// text, and returns it with its text sharing the rendered bytes. msg must
// carry its Seq; its slices are not modified.
func (r *renders) add(msg Message) Message {
	msg, e, ok := render(msg)
	if !ok {
		return msg
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.bySeq == nil {
		r.bySeq = map[uint64]rendered{}
	}
	r.bySeq[msg.Seq] = e
	return msg
}

// render is add without the cache.
func render(msg Message) (Message, rendered, bool) {
	if msg.Role != llm.RoleTool || len(msg.Content) != 1 || msg.Content[0].Type != llm.PartText ||
		(msg.Note == "" && !msg.IsError) {
		return msg, rendered{}, false
	}
	raw := msg.Content[0].Text
	parts := RenderToolResult(msg.Content, msg.Note, msg.IsError)
	if raw == "" || len(parts) != 1 || parts[0].Type != llm.PartText {
		return msg, rendered{}, false
	}
	// The text follows the error status line, or starts the rendering.
	text, at := parts[0].Text, 0
	if msg.IsError {
		at = len(ToolErrorStatus) + 1
	}
	if len(text) < at+len(raw) || text[at:at+len(raw)] != raw {
		return msg, rendered{}, false // a status line alone
	}
	part := msg.Content[0]
	part.Text = text[at : at+len(raw)]
	msg.Content = []llm.ContentPart{part}
	return msg, rendered{text: part.Text, note: msg.Note, isError: msg.IsError, parts: parts}, true
}

// lookup returns the rendered form of m when it is the message rendered.
// The text comparison is cheap: a rendered message's text shares the
// cached string's bytes.
func (r *renders) lookup(m *Message) ([]llm.ContentPart, bool) {
	r.mu.RLock()
	e, ok := r.bySeq[m.Seq]
	r.mu.RUnlock()
	if !ok || len(m.Content) != 1 || m.Content[0].Type != llm.PartText || m.Content[0].Text != e.text ||
		m.Note != e.note || m.IsError != e.isError {
		return nil, false
	}
	return e.parts, true
}

// keep prunes the entries of messages no longer in h and renders the tool
// results of h that have none, sharing their text as add does. h is a
// history array the memory is about to install; its elements may be
// replaced, never the slices they hold.
func (r *renders) keep(h []Message) {
	r.mu.RLock()
	old := r.bySeq
	r.mu.RUnlock()
	var next map[uint64]rendered
	for i := range h {
		e, ok := old[h[i].Seq]
		if !ok {
			h[i], e, ok = render(h[i])
		}
		if ok {
			if next == nil {
				next = map[uint64]rendered{}
			}
			next[h[i].Seq] = e
		}
	}
	r.mu.Lock()
	r.bySeq = next
	r.mu.Unlock()
}
