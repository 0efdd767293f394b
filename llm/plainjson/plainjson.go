// Package plainjson encodes JSON the way kimigo writes it everywhere: as
// encoding/json does, but without HTML escaping, so that text such as
// "<system>" or "a && b" stays as written in records, wire bodies, hashes
// and output lines, and the bytes stay stable.
//
// It owns that one rule and nothing else; llm, loop and everything above
// them use it instead of configuring their own encoders
// (plainjson_test.go pins the bytes).
package plainjson

import (
	"bytes"
	"encoding/json"
)

// Marshal encodes v like json.Marshal, without HTML escaping and without
// a trailing newline.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	if err := Write(&buf, v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Write appends v to buf as Marshal encodes it. A large document written a
// piece at a time keeps encoding/json's pooled buffers as small as a piece.
func Write(buf *bytes.Buffer, v any) error {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	buf.Truncate(buf.Len() - 1) // Encode ends every value with a newline
	return nil
}

// Quote returns s as a JSON string. Invalid UTF-8 becomes U+FFFD, as
// encoding/json does.
func Quote(s string) []byte {
	b, err := Marshal(s)
	if err != nil { // encoding a Go string cannot fail
		return []byte(`""`)
	}
	return b
}
