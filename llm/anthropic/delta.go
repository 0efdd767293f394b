package anthropic

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// content_block_delta is nearly every event of a stream, and Anthropic
// sends it in one fixed, compact layout:
//
//	{"type":"content_block_delta","index":N,"delta":{"type":"<kind>","<field>":"<string>"}}
//
// decodeDeltaFast recognises exactly that layout and nothing else; every
// other spelling (spaces, other key orders, extra keys, odd numbers) goes to
// encoding/json. It is not a JSON parser: it compares fixed bytes, reads a
// short digit run, and decodes one string literal (its \u escapes by
// encoding/json). FuzzDeltaFastPath checks that it agrees with
// encoding/json on every input it accepts.
var (
	deltaPrefix = []byte(`{"type":"content_block_delta","index":`)
	deltaMiddle = []byte(`,"delta":{"type":"`)
	deltaSuffix = []byte(`}}`)
)

// deltaLayouts maps each delta kind to its `<kind>","<field>":` bytes.
var deltaLayouts = []struct {
	kind deltaType
	head []byte
}{
	{deltaText, []byte(`text_delta","text":`)},
	{deltaInputJSON, []byte(`input_json_delta","partial_json":`)},
	{deltaThinking, []byte(`thinking_delta","thinking":`)},
	{deltaSignature, []byte(`signature_delta","signature":`)},
}

// decodeDeltaFast reads data when it has the canonical layout and reports
// whether it did. It sets d's index and delta type (d must be zero on
// entry) and returns the delta's text: bytes of data when the string has no
// escapes, else decoded into *scratch, which it reuses.
func decodeDeltaFast(data []byte, d *blockDeltaEvent, scratch *[]byte) ([]byte, bool) {
	rest, ok := bytes.CutPrefix(data, deltaPrefix)
	if !ok {
		return nil, false
	}
	n := 0
	for n < len(rest) && n < 10 && rest[n] >= '0' && rest[n] <= '9' {
		n++
	}
	if n == 0 || n == 10 || (n > 1 && rest[0] == '0') {
		return nil, false // no number, too long to be an index, or a leading zero
	}
	index := 0
	for _, c := range rest[:n] {
		index = index*10 + int(c-'0')
	}
	if rest, ok = bytes.CutPrefix(rest[n:], deltaMiddle); !ok {
		return nil, false
	}
	var kind deltaType
	for _, l := range deltaLayouts {
		if r, ok := bytes.CutPrefix(rest, l.head); ok {
			kind, rest = l.kind, r
			break
		}
	}
	if kind == "" {
		return nil, false
	}
	lit, ok := bytes.CutSuffix(rest, deltaSuffix)
	if !ok {
		return nil, false
	}
	text, ok := stringLiteral(lit, scratch)
	if !ok {
		return nil, false
	}
	d.Index = index
	d.Delta.Type = kind
	return text, true
}

// stringLiteral decodes lit when it is exactly one JSON string literal of
// valid UTF-8. Plain text is returned as it is (aliasing lit), and the
// two-byte escapes (\" \\ \/ \b \f \n \r \t) are decoded here into
// *scratch, in the same pass that validates the literal; a literal with
// \u escapes is left to encoding/json (unicodeLiteral).
func stringLiteral(lit []byte, scratch *[]byte) ([]byte, bool) {
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return nil, false
	}
	body := lit[1 : len(lit)-1]
	var buf []byte
	escaped, high, run := false, byte(0), 0
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c >= 0x20 && c != '\\' && c != '"' {
			high |= c
			continue
		}
		if c != '\\' || i+1 == len(body) {
			return nil, false // a control byte, a quote before the end, or an escaped closing quote
		}
		var d byte
		switch e := body[i+1]; e {
		case '"', '\\', '/':
			d = e
		case 'b':
			d = '\b'
		case 'f':
			d = '\f'
		case 'n':
			d = '\n'
		case 'r':
			d = '\r'
		case 't':
			d = '\t'
		case 'u':
			return unicodeLiteral(lit, scratch)
		default:
			return nil, false
		}
		if !escaped {
			buf, escaped = (*scratch)[:0], true
		}
		buf = append(append(buf, body[run:i]...), d)
		i++
		run = i + 1
	}
	if high >= utf8.RuneSelf && !utf8.Valid(body) {
		return nil, false
	}
	if !escaped {
		return body, true
	}
	*scratch = append(buf, body[run:]...)
	return *scratch, true
}

// unicodeLiteral decodes a literal with \u escapes as encoding/json does,
// which owns the surrogate and replacement rules, after the checks of
// stringLiteral: one literal, no control bytes, valid UTF-8.
func unicodeLiteral(lit []byte, scratch *[]byte) ([]byte, bool) {
	body := lit[1 : len(lit)-1]
	for i := 0; i < len(body); i++ {
		switch c := body[i]; {
		case c == '\\':
			i++ // the escaped byte; encoding/json checks it
		case c == '"' || c < 0x20:
			return nil, false
		}
	}
	if !utf8.Valid(body) {
		return nil, false
	}
	var s string
	if err := json.Unmarshal(lit, &s); err != nil {
		return nil, false
	}
	*scratch = append((*scratch)[:0], s...)
	return *scratch, true
}
