package anthropic

import (
	"bytes"
	"encoding/json"
	"strings"
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

// decodeDeltaFast fills d from data when data has the canonical layout and
// reports whether it did. d must be zero on entry.
func decodeDeltaFast(data []byte, d *blockDeltaEvent) bool {
	rest, ok := bytes.CutPrefix(data, deltaPrefix)
	if !ok {
		return false
	}
	n := 0
	for n < len(rest) && n < 10 && rest[n] >= '0' && rest[n] <= '9' {
		n++
	}
	if n == 0 || n == 10 || (n > 1 && rest[0] == '0') {
		return false // no number, too long to be an index, or a leading zero
	}
	index := 0
	for _, c := range rest[:n] {
		index = index*10 + int(c-'0')
	}
	if rest, ok = bytes.CutPrefix(rest[n:], deltaMiddle); !ok {
		return false
	}
	var kind deltaType
	for _, l := range deltaLayouts {
		if r, ok := bytes.CutPrefix(rest, l.head); ok {
			kind, rest = l.kind, r
			break
		}
	}
	if kind == "" {
		return false
	}
	lit, ok := bytes.CutSuffix(rest, deltaSuffix)
	if !ok {
		return false
	}
	s, ok := stringLiteral(lit)
	if !ok {
		return false
	}
	d.Index = index
	d.Delta.Type = kind
	switch kind {
	case deltaText:
		d.Delta.Text = s
	case deltaInputJSON:
		d.Delta.PartialJSON = s
	case deltaThinking:
		d.Delta.Thinking = s
	case deltaSignature:
		d.Delta.Signature = s
	}
	return true
}

// stringLiteral decodes lit when it is exactly one JSON string literal of
// valid UTF-8. Plain text is converted directly and the two-byte escapes
// (\" \\ \/ \b \f \n \r \t) are decoded here; a literal with \u escapes
// is left to encoding/json, which owns the surrogate and replacement rules.
func stringLiteral(lit []byte) (string, bool) {
	if len(lit) < 2 || lit[0] != '"' {
		return "", false
	}
	escapes, unicode := 0, false
	i := 1
	for ; i < len(lit); i++ {
		c := lit[i]
		if c == '\\' {
			escapes++
			i++ // the escaped byte cannot end the literal
			if i < len(lit) && lit[i] == 'u' {
				unicode = true
			}
			continue
		}
		if c == '"' {
			break
		}
		if c < 0x20 {
			return "", false
		}
	}
	if i != len(lit)-1 {
		return "", false // unterminated, or bytes after the closing quote
	}
	body := lit[1:i]
	if !utf8.Valid(body) {
		return "", false
	}
	if escapes == 0 {
		return string(body), true
	}
	if !unicode {
		if s, ok := unescapeShort(body, len(body)-escapes); ok {
			return s, true
		}
	}
	var s string
	if err := json.Unmarshal(lit, &s); err != nil {
		return "", false
	}
	return s, true
}

// unescapeShort decodes a string body whose escapes are all two-byte ones;
// size is the decoded length. Any other escape reports false.
func unescapeShort(body []byte, size int) (string, bool) {
	var b strings.Builder
	b.Grow(size)
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i == len(body) {
			return "", false
		}
		switch body[i] {
		case '"', '\\', '/':
			b.WriteByte(body[i])
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		default:
			return "", false
		}
	}
	return b.String(), true
}
