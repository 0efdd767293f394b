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
	"unicode/utf8"
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
func Quote(s string) []byte { return AppendQuote(nil, s) }

// AppendQuote appends s to dst as a JSON string, byte for byte as Marshal
// writes it (FuzzAppendQuote), and allocates nothing when dst has room:
// the string writer of request bodies, which quote every text of the
// conversation on every request.
func AppendQuote(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case c == '\u2028' || c == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
