package openai

import (
	"bytes"
	"encoding/json"
	"strconv"
	"sync"

	"github.com/kimigo/kimigo/llm/plainjson"
)

// writer builds JSON with a fixed field order, so request bodies are
// byte-stable (prompt caches depend on it) and raw values such as tool
// schemas pass through untouched. Strings are written without HTML
// escaping. Callers guarantee that raw values are valid JSON.
type writer struct {
	buf      bytes.Buffer
	comma    []bool // per open container: a value was already written
	nesting  [8]bool
	afterKey bool // the next value follows a key and needs no comma
}

func newWriter() *writer { return newWriterOn(nil) }

// newWriterOn returns a writer that appends to dst.
func newWriterOn(dst []byte) *writer {
	w := &writer{}
	w.reset(dst)
	return w
}

// reset makes w a new writer that appends to dst.
func (w *writer) reset(dst []byte) {
	w.buf = *bytes.NewBuffer(dst)
	w.comma = w.nesting[:0] // messages nest a few levels: no allocation for them
	w.afterKey = false
}

// messageWriters are the writers of single messages: a request encodes
// every message of the conversation, and a writer apiece would be an
// allocation per message per request.
var messageWriters = sync.Pool{New: func() any { return new(writer) }}

// appendMessage appends the encoding of m to dst.
func appendMessage(dst []byte, m *wireMessage, e *encoder) ([]byte, error) {
	w := messageWriters.Get().(*writer)
	w.reset(dst)
	err := m.encode(w, e)
	out := w.bytes()
	w.buf = bytes.Buffer{} // the pool keeps no caller's bytes
	messageWriters.Put(w)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (w *writer) bytes() []byte { return w.buf.Bytes() }

// sep writes the comma before a value or key, when one is needed.
func (w *writer) sep() {
	if w.afterKey {
		w.afterKey = false
		return
	}
	if n := len(w.comma); n > 0 {
		if w.comma[n-1] {
			w.buf.WriteByte(',')
		}
		w.comma[n-1] = true
	}
}

func (w *writer) beginObject() { w.sep(); w.buf.WriteByte('{'); w.comma = append(w.comma, false) }
func (w *writer) beginArray()  { w.sep(); w.buf.WriteByte('['); w.comma = append(w.comma, false) }
func (w *writer) endObject()   { w.comma = w.comma[:len(w.comma)-1]; w.buf.WriteByte('}') }
func (w *writer) endArray()    { w.comma = w.comma[:len(w.comma)-1]; w.buf.WriteByte(']') }

// key writes a field name; the next call writes its value.
func (w *writer) key(k string) {
	w.sep()
	w.writeString(k)
	w.buf.WriteByte(':')
	w.afterKey = true
}

func (w *writer) str(s string)             { w.sep(); w.writeString(s) }
func (w *writer) raw(v json.RawMessage)    { w.sep(); w.buf.Write(v) }
func (w *writer) int(n int)                { w.sep(); w.buf.WriteString(strconv.Itoa(n)) }
func (w *writer) bool(b bool)              { w.sep(); w.buf.WriteString(strconv.FormatBool(b)) }
func (w *writer) strField(k, s string)     { w.key(k); w.str(s) }
func (w *writer) intField(k string, n int) { w.key(k); w.int(n) }

func (w *writer) rawField(k string, v json.RawMessage) { w.key(k); w.raw(v) }

func (w *writer) writeString(s string) {
	w.buf.Grow(len(s) + 2)
	w.buf.Write(plainjson.AppendQuote(w.buf.AvailableBuffer(), s))
}
