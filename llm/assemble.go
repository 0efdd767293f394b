package llm

import (
	"strconv"
	"strings"
)

// assembler merges streamed parts into a message (spec 01 §2.2 steps 6–9,
// merge table §2.3). Text, thinking and tool arguments accumulate in a text
// and are joined once at the end, so a response costs time and memory
// linear in its size however small its deltas are: a 2 MiB argument text
// in 16-byte deltas allocates about twice its size, where appending to a
// string copied it once per delta.
type assembler struct {
	msg     Message
	pending pendingPart
	// args holds the argument text of msg.ToolCalls, by position; it is
	// copied into the calls by finish.
	args     []*text
	indexMap map[int]int // stream index → position in msg.ToolCalls
	ids      map[string]bool
}

// pendingPart is the part being merged into: a content part or a tool
// call header, with its text (Text, Think or Arguments) in buf.
type pendingPart struct {
	set  bool
	part StreamPart
	buf  text
}

// text is an append-only string of one or more pieces. One piece is kept
// as it is. From the second on, small pieces are copied into pages that
// grow with the text up to pageMax, and pieces of keepMin bytes or more
// are kept as they are (providers hand out deltas that arrived together as
// one piece, so these are common); String joins everything once.
type text struct {
	first string    // the only piece, until a second arrives
	multi bool      // pieces are in segs and cur
	segs  []segment // pieces and full pages, in order
	cur   []byte    // the page being filled
	n     int       // bytes in segs and cur
}

// segment is a kept piece (s) or a page, or the part of one, that later
// pieces never touch (b).
type segment struct {
	s string
	b []byte
}

// Page sizes: each new page is as large as the text so far, within these
// bounds. A piece of keepMin bytes or more is kept, not copied.
const (
	pageMin = 256
	pageMax = 64 << 10
	keepMin = 1 << 10
)

func (t *text) reset(s string) { *t = text{first: s} }

func (t *text) add(s string) {
	if s == "" {
		return
	}
	if !t.multi {
		if t.first == "" {
			t.first = s
			return
		}
		t.multi = true
		t.put(t.first)
		t.first = ""
	}
	t.put(s)
}

func (t *text) put(s string) {
	if len(s) < keepMin {
		t.write(s)
		return
	}
	if len(t.cur) > 0 {
		// The filled part of the page is sealed; the pieces after s go
		// into the rest of it.
		t.segs = append(t.segs, segment{b: t.cur[:len(t.cur):len(t.cur)]})
		t.cur = t.cur[len(t.cur):]
	}
	t.segs = append(t.segs, segment{s: s})
	t.n += len(s)
}

func (t *text) write(s string) {
	for s != "" {
		if len(t.cur) == cap(t.cur) {
			if len(t.cur) > 0 {
				t.segs = append(t.segs, segment{b: t.cur})
			}
			t.cur = make([]byte, 0, min(max(t.n, len(s), pageMin), pageMax))
		}
		k := min(len(s), cap(t.cur)-len(t.cur))
		t.cur = append(t.cur, s[:k]...)
		t.n += k
		s = s[k:]
	}
}

// String returns the text. With more than one piece it allocates the
// joined text, so call it once.
func (t *text) String() string {
	if !t.multi {
		return t.first
	}
	var b strings.Builder
	b.Grow(t.n)
	for _, sg := range t.segs {
		b.WriteString(sg.s)
		b.Write(sg.b)
	}
	b.Write(t.cur)
	return b.String()
}

func newAssembler() *assembler {
	return &assembler{msg: Message{Role: RoleAssistant}}
}

// receive prepares a streamed part before anyone sees it: a tool call
// whose id an earlier call of this response already has gets a fresh one,
// so that every call, its result and the next request stay paired
// (providers have been seen to repeat an id within one response).
func (a *assembler) receive(part StreamPart) StreamPart {
	if part.Kind != KindToolCall {
		return part
	}
	id := part.ToolCall.ID
	if a.ids == nil {
		a.ids = map[string]bool{}
	}
	if a.ids[id] {
		base := id
		if base == "" {
			base = "tool_call"
		}
		for n := 2; a.ids[id]; n++ {
			id = base + "_" + strconv.Itoa(n)
		}
		part.ToolCall.ID = id
	}
	a.ids[id] = true
	return part
}

func (a *assembler) add(part StreamPart) {
	if part.Kind == KindToolCallPart && part.Indexed {
		p := &a.pending
		pendingHere := p.set && p.part.Kind == KindToolCall && p.part.Indexed && p.part.Index == part.Index
		if pos, ok := a.indexMap[part.Index]; ok && !pendingHere {
			a.args[pos].add(part.ArgumentsPart)
			return
		}
	}
	if a.pending.set && a.merge(part) {
		return
	}
	a.flush()
	a.pending.set = true
	a.pending.part = part
	switch part.Kind {
	case KindContent:
		switch part.Content.Type {
		case PartText:
			a.pending.buf.reset(part.Content.Text)
		case PartThink:
			a.pending.buf.reset(part.Content.Think)
		}
	case KindToolCall:
		a.pending.buf.reset(part.ToolCall.Arguments)
	}
}

// merge folds source into the pending part when the merge table allows it
// (spec 01 §2.3) and reports whether it did.
func (a *assembler) merge(source StreamPart) bool {
	target := &a.pending.part
	switch target.Kind {
	case KindContent:
		if source.Kind != KindContent {
			return false
		}
		t, s := &target.Content, source.Content
		switch {
		case t.Type == PartText && s.Type == PartText:
			a.pending.buf.add(s.Text)
			return true
		case t.Type == PartThink && s.Type == PartThink && t.Encrypted == "":
			a.pending.buf.add(s.Think)
			if s.Encrypted != "" {
				t.Encrypted = s.Encrypted
			}
			return true
		}
	case KindToolCall:
		if source.Kind == KindToolCallPart {
			a.pending.buf.add(source.ArgumentsPart)
			return true
		}
	}
	return false
}

// flush moves the pending part into the message.
func (a *assembler) flush() {
	p := &a.pending
	if !p.set {
		return
	}
	p.set = false
	part := p.part
	switch part.Kind {
	case KindContent:
		switch part.Content.Type {
		case PartText:
			part.Content.Text = p.buf.String()
		case PartThink:
			part.Content.Think = p.buf.String()
		}
		a.msg.Content = append(a.msg.Content, part.Content)
	case KindToolCall:
		a.msg.ToolCalls = append(a.msg.ToolCalls, part.ToolCall)
		args := &text{}
		args.reset(p.buf.String())
		a.args = append(a.args, args)
		if part.Indexed {
			if a.indexMap == nil {
				a.indexMap = map[int]int{}
			}
			a.indexMap[part.Index] = len(a.msg.ToolCalls) - 1
		}
	}
	// An orphan ToolCallPart is discarded.
	p.buf.reset("")
}

// finish flushes the pending part and returns the assembled message.
func (a *assembler) finish() Message {
	a.flush()
	for i := range a.msg.ToolCalls {
		a.msg.ToolCalls[i].Arguments = a.args[i].String()
	}
	return a.msg
}

// MergeParts folds a sequence of streamed parts into content and tool calls
// with the same rules as Generate, repeated tool-call ids included. It is
// exported for providers' tests and for callers that replay recorded
// streams.
func MergeParts(parts []StreamPart) Message {
	a := newAssembler()
	for _, p := range parts {
		a.add(a.receive(p))
	}
	return a.finish()
}
