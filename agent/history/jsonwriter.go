package history

import (
	"bytes"

	"github.com/kimigo/kimigo/llm/plainjson"
)

// objectWriter writes a JSON object with its keys in the order they are
// added, without HTML escaping, so that persisted text stays greppable
// ("<system>" stays readable) and byte-stable.
type objectWriter struct {
	b   bytes.Buffer
	err error
}

// str writes key:s; an empty s is skipped unless required.
func (w *objectWriter) str(key, s string, required bool) {
	if s == "" && !required {
		return
	}
	w.val(key, s)
}

// val writes key:v.
func (w *objectWriter) val(key string, v any) {
	if w.err != nil {
		return
	}
	if w.b.Len() == 0 {
		w.b.WriteByte('{')
	} else {
		w.b.WriteByte(',')
	}
	data, err := plainjson.Marshal(key)
	if err != nil {
		w.err = err
		return
	}
	w.b.Write(data)
	w.b.WriteByte(':')
	if data, err = plainjson.Marshal(v); err != nil {
		w.err = err
		return
	}
	w.b.Write(data)
}

// close ends the object and returns it.
func (w *objectWriter) close() ([]byte, error) {
	if w.err != nil {
		return nil, w.err
	}
	if w.b.Len() == 0 {
		return []byte("{}"), nil
	}
	w.b.WriteByte('}')
	return w.b.Bytes(), nil
}
