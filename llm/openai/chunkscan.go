package openai

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// chunkScanner decodes the common shapes of a streamed chunk in one pass,
// without reflection: the envelope, choices[0].delta with content,
// reasoning and tool calls, and finish_reason. It validates everything it
// reads or skips, and gives up (ok=false) on anything else: usage and error
// objects, non-streaming messages, several choices, escaped or case-folded
// keys, duplicate keys, deep nesting, invalid JSON. The caller then decodes
// the chunk with encoding/json, so both paths yield the same result
// (FuzzChunkScanner checks this). Decoded values alias the scanner's
// scratch space and data; they are valid until the next scan.
//
// Content and tool-call arguments are decoded as bytes (delta.text,
// functionDelta.args), so a delta costs no allocation here. A chunk that
// repeats the previous one byte for byte except for its one content or
// arguments string, as every chunk of a long answer does, is decoded by
// comparing those bytes and reading only the new string (repeat).
type chunkScanner struct {
	data []byte
	i    int

	choice  [1]choice
	delta   delta
	finish  string
	calls   []toolCallDelta
	fns     []functionDelta
	idx     []int
	lastID  string
	buf     []byte // unescape scratch for strings
	scratch []byte // unescaped content and arguments of this scan
	ascii   bool   // the string str read last is all ASCII

	// one is the chunk's one content or arguments string, when it has
	// exactly one: where it starts and ends in data, and which delta it
	// fills (the content when call < 0, else fns[call]).
	one struct {
		n          int // such strings seen in this scan
		start, end int
		call       int
	}
	// last is the previous chunk when it can serve as a template.
	last template
}

// template is a decoded chunk whose bytes, except for one string, the
// next chunk may repeat: its data, the string's place, and the result.
type template struct {
	ok         bool
	data       []byte
	start, end int
	call       int
	chunk      chunk
}

// maxScanDepth bounds nesting in skipped values; deeper input falls back.
const maxScanDepth = 64

// scan decodes data into c, which must be zero. It reports whether it
// could; on false, c must be reset and decoded another way.
func (sc *chunkScanner) scan(data []byte, c *chunk) bool {
	sc.scratch = sc.scratch[:0]
	if sc.repeat(data, c) {
		return true
	}
	sc.last.ok = false
	sc.data, sc.i = data, 0
	sc.calls, sc.fns, sc.idx = sc.calls[:0], sc.fns[:0], sc.idx[:0]
	sc.one.n = 0
	if !sc.chunk(c) {
		return false
	}
	sc.ws()
	if sc.i != len(sc.data) {
		return false
	}
	sc.keep(data, c)
	return true
}

// keep makes the chunk just decoded the template for the next one, when
// it has exactly one content or arguments string and nothing that aliases
// data (the reasoning fields do).
func (sc *chunkScanner) keep(data []byte, c *chunk) {
	if sc.one.n != 1 || len(c.Choices) != 1 || c.Choices[0].Delta == nil {
		return
	}
	if d := c.Choices[0].Delta; d.ReasoningContent != nil || d.ReasoningDetails != nil || d.Reasoning != nil {
		return
	}
	t := &sc.last
	t.ok = true
	t.data = append(t.data[:0], data...)
	t.start, t.end, t.call = sc.one.start, sc.one.end, sc.one.call
	t.chunk = *c
}

// repeat decodes data when it equals the template but for the template's
// string, and that place holds exactly one valid string literal. The JSON
// grammar reads a value independently of its neighbours' contents, so the
// chunk then decodes to the template's result with that string replaced:
// the scanner's state before and after the string is the same as it was
// for the template.
func (sc *chunkScanner) repeat(data []byte, c *chunk) bool {
	t := &sc.last
	if !t.ok {
		return false
	}
	suffix := len(t.data) - t.end
	end := len(data) - suffix
	if end < t.start+2 || !bytes.Equal(data[:t.start], t.data[:t.start]) || !bytes.Equal(data[end:], t.data[t.end:]) {
		return false
	}
	sc.data, sc.i = data, t.start
	escaped, ok := sc.str()
	if !ok || sc.i != end {
		return false
	}
	text, ok := sc.literal(data[t.start:end], escaped)
	if !ok {
		return false
	}
	*c = t.chunk
	if t.call < 0 {
		sc.delta.text = text
	} else {
		sc.fns[t.call].args = text
	}
	return true
}

// noteLiteral records a content or arguments string at data[start:sc.i]
// for the template; call is the fns index, or -1 for the content.
func (sc *chunkScanner) noteLiteral(start, call int) {
	sc.one.n++
	sc.one.start, sc.one.end, sc.one.call = start, sc.i, call
}

// Key sets of each object level, for the duplicate and case-fold checks.
var (
	chunkKeys    = []string{"id", "choices", "usage", "error"}
	choiceKeys   = []string{"delta", "message", "finish_reason", "usage"}
	deltaKeys    = []string{"content", "reasoning_content", "reasoning_details", "reasoning", "tool_calls"}
	callKeys     = []string{"index", "id", "function"}
	functionKeys = []string{"name", "arguments"}
)

// object walks an object, calling field for each key in keys (by position)
// and skipping other keys. A key equal to a known one only up to case, a
// key with escapes or non-ASCII bytes, or a repeated known key makes it
// give up, because encoding/json matches those differently.
func (sc *chunkScanner) object(keys []string, field func(k int) bool) bool {
	if !sc.lit('{') {
		return false
	}
	var seen uint8
	sc.ws()
	if sc.lit('}') {
		return true
	}
	for {
		sc.ws()
		key, ok := sc.plainKey()
		if !ok {
			return false
		}
		sc.ws()
		if !sc.lit(':') {
			return false
		}
		sc.ws()
		k, ok := matchKey(key, keys)
		switch {
		case !ok:
			return false
		case k >= 0:
			if seen&(1<<k) != 0 || !field(k) {
				return false
			}
			seen |= 1 << k
		default:
			if !sc.skip(0) {
				return false
			}
		}
		sc.ws()
		if sc.lit('}') {
			return true
		}
		if !sc.lit(',') {
			return false
		}
	}
}

// matchKey finds key among names. ok is false when key matches a name only
// up to ASCII case, or holds non-ASCII bytes (which encoding/json may fold).
func matchKey(key []byte, names []string) (k int, ok bool) {
	for _, b := range key {
		if b >= utf8.RuneSelf {
			return -1, false
		}
	}
	for j, name := range names {
		if len(name) != len(key) || !asciiEqualFold(key, name) {
			continue
		}
		if string(key) != name {
			return -1, false
		}
		return j, true
	}
	return -1, true
}

func asciiEqualFold(a []byte, b string) bool {
	for i := range a {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

func (sc *chunkScanner) chunk(c *chunk) bool {
	return sc.object(chunkKeys, func(k int) bool {
		switch k {
		case 0: // id
			return sc.id(c)
		case 1: // choices
			return sc.choices(c)
		default: // usage and error need encoding/json unless null
			return sc.null()
		}
	})
}

// id reads the chunk id, reusing the previous string when it repeats (it
// does on every chunk of a stream).
func (sc *chunkScanner) id(c *chunk) bool {
	if sc.null() {
		return true
	}
	start := sc.i
	escaped, ok := sc.str()
	if !ok {
		return false
	}
	body := sc.data[start+1 : sc.i-1]
	if escaped || !utf8.Valid(body) {
		return json.Unmarshal(sc.data[start:sc.i], &c.ID) == nil
	}
	if string(body) != sc.lastID {
		sc.lastID = string(body)
	}
	c.ID = sc.lastID
	return true
}

func (sc *chunkScanner) choices(c *chunk) bool {
	if sc.null() {
		return true
	}
	if !sc.lit('[') {
		return false
	}
	sc.ws()
	if sc.lit(']') {
		c.Choices = sc.choice[:0]
		return true
	}
	sc.choice[0] = choice{}
	ch := &sc.choice[0]
	if !sc.object(choiceKeys, func(k int) bool { return sc.choiceField(ch, k) }) {
		return false
	}
	sc.ws()
	if !sc.lit(']') { // several choices: rare, leave them to encoding/json
		return false
	}
	c.Choices = sc.choice[:1]
	return true
}

func (sc *chunkScanner) choiceField(ch *choice, k int) bool {
	switch k {
	case 0: // delta
		if sc.null() {
			return true
		}
		sc.delta = delta{}
		ch.Delta = &sc.delta
		return sc.object(deltaKeys, func(k int) bool { return sc.deltaField(&sc.delta, k) })
	case 2: // finish_reason
		if sc.null() {
			return true
		}
		if !sc.stringInto(&sc.finish) {
			return false
		}
		ch.FinishReason = &sc.finish
		return true
	}
	return sc.null() // message and usage need encoding/json unless null
}

func (sc *chunkScanner) deltaField(d *delta, k int) bool {
	switch k {
	case 0: // content
		if sc.null() {
			return true
		}
		start := sc.i
		text, ok := sc.stringBytes()
		if !ok {
			return false
		}
		sc.noteLiteral(start, -1)
		d.text, d.scanned = text, true
		return true
	case 4: // tool_calls
		return sc.toolCalls(d)
	}
	start := sc.i
	if !sc.skip(0) {
		return false
	}
	raw := json.RawMessage(sc.data[start:sc.i])
	switch k {
	case 1:
		d.ReasoningContent = raw
	case 2:
		d.ReasoningDetails = raw
	case 3:
		d.Reasoning = raw
	}
	return true
}

func (sc *chunkScanner) toolCalls(d *delta) bool {
	if sc.null() {
		return true
	}
	if !sc.lit('[') {
		return false
	}
	start := len(sc.calls)
	sc.ws()
	if !sc.lit(']') {
		for {
			sc.ws()
			sc.calls = append(sc.calls, toolCallDelta{})
			sc.fns = append(sc.fns, functionDelta{})
			sc.idx = append(sc.idx, 0)
			n := len(sc.calls) - 1
			if !sc.object(callKeys, func(k int) bool { return sc.callField(n, k) }) {
				return false
			}
			sc.ws()
			if sc.lit(']') {
				break
			}
			if !sc.lit(',') {
				return false
			}
		}
	}
	// Pointers into the scratch slices are taken once they stop growing.
	for n := start; n < len(sc.calls); n++ {
		if sc.calls[n].Index != nil {
			sc.calls[n].Index = &sc.idx[n]
		}
		if sc.calls[n].Function != nil {
			sc.calls[n].Function = &sc.fns[n]
		}
	}
	d.ToolCalls = sc.calls[start:]
	return true
}

// present marks a pointer field as set until toolCalls rebinds it.
var (
	presentIndex    = new(int)
	presentFunction = new(functionDelta)
)

func (sc *chunkScanner) callField(n, k int) bool {
	switch k {
	case 0: // index
		if sc.null() {
			return true
		}
		v, ok := sc.int()
		if !ok {
			return false
		}
		sc.idx[n], sc.calls[n].Index = v, presentIndex
		return true
	case 1: // id
		return sc.optString(&sc.calls[n].ID)
	}
	if sc.null() {
		return true
	}
	sc.calls[n].Function = presentFunction
	f := &sc.fns[n]
	f.scanned = true
	return sc.object(functionKeys, func(k int) bool {
		if k == 0 {
			return sc.optString(&f.Name)
		}
		if sc.null() {
			return true
		}
		start := sc.i
		text, ok := sc.stringBytes()
		if !ok {
			return false
		}
		sc.noteLiteral(start, n)
		f.args = text
		return true
	})
}
