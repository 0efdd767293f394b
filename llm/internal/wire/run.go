package wire

import "github.com/kimigo/kimigo/llm"

// Run coalesces consecutive deltas of one streamed part — text, plain
// thinking, or one tool call's arguments — into one part. A provider adds
// every delta it decodes to its Run, and flushes the Run before it hands
// out any other part and whenever the next event has not arrived yet
// (sse.Decoder.Ready): deltas that arrived together then reach the caller
// as one part, and nothing that arrived waits for bytes that have not.
// llm.Generate merges such a part exactly as it merges the deltas one by
// one (spec 01 §2.3), so the assembled message is the same; what changes is
// the count of parts, and so of callbacks and events: a 2 MiB tool call
// streamed in 16-byte deltas arrives as tens of parts, not 130,000.
//
// The deltas are copied into one buffer, so a delta may alias the
// provider's read buffer; the part gets its own string when flushed. A
// delta that would take the run past runMax bytes starts a new run, which
// keeps the buffer one small allocation per stream.
type Run struct {
	active bool
	key    RunKey
	buf    []byte
}

// RunKey says which part a delta belongs to.
type RunKey struct {
	kind    llm.PartKind
	think   bool // a think part, else text (kind KindContent)
	index   int
	indexed bool
}

// TextRun, ThinkRun and ArgsRun are the keys of text deltas, thinking
// deltas without a signature, and the argument deltas of a tool call (by
// stream index when indexed).
var (
	TextRun  = RunKey{kind: llm.KindContent}
	ThinkRun = RunKey{kind: llm.KindContent, think: true}
)

// ArgsRun is the key of a tool call's argument deltas.
func ArgsRun(index int, indexed bool) RunKey {
	return RunKey{kind: llm.KindToolCallPart, index: index, indexed: indexed}
}

// Add appends delta to the run of k. When the run holds another part it is
// flushed to out first, so parts keep their order. It returns out.
func (r *Run) Add(out []llm.StreamPart, k RunKey, delta []byte) []llm.StreamPart {
	return add(r, out, k, delta)
}

// AddString is Add for a delta held as a string.
func (r *Run) AddString(out []llm.StreamPart, k RunKey, delta string) []llm.StreamPart {
	return add(r, out, k, delta)
}

// runMax is the most a run holds, unless one delta is larger.
const runMax = 8 << 10

func add[T ~string | ~[]byte](r *Run, out []llm.StreamPart, k RunKey, delta T) []llm.StreamPart {
	if r.active && r.key == k && len(r.buf)+len(delta) <= runMax {
		r.buf = append(r.buf, delta...)
		return out
	}
	out = r.Flush(out)
	r.active, r.key = true, k
	if r.buf == nil {
		r.buf = make([]byte, 0, max(runMax, len(delta)))
	}
	r.buf = append(r.buf[:0], delta...)
	return out
}

// Active reports whether the run holds a part that was not flushed yet.
func (r *Run) Active() bool { return r.active }

// Flush appends the run's part, if any, to out and empties the run.
func (r *Run) Flush(out []llm.StreamPart) []llm.StreamPart {
	if !r.active {
		return out
	}
	r.active = false
	text := string(r.buf)
	var p llm.StreamPart
	switch {
	case r.key.kind == llm.KindToolCallPart:
		p = llm.StreamPart{Kind: llm.KindToolCallPart, ArgumentsPart: text, Index: r.key.index, Indexed: r.key.indexed}
	case r.key.think:
		p = llm.ContentStreamPart(llm.ThinkPart(text, ""))
	default:
		p = llm.ContentStreamPart(llm.TextPart(text))
	}
	return append(out, p)
}
