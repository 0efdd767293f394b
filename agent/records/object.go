package records

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/kimigo/kimigo/llm/plainjson"
)

// object is a JSON object kept as its members in source order, each value
// as raw bytes. Migrations and blob offloading edit records through it, so
// everything they do not touch keeps its order and its bytes; going through
// map[string]any would sort the keys and renumber the numbers.
type object struct {
	members []member
}

type member struct {
	key    string // decoded
	rawKey []byte // the quoted key as it appeared, reused when re-encoding
	val    []byte // raw JSON value
}

// parseObject splits a JSON object into its members. b must be valid JSON
// (callers check with json.Valid); anything else reports ok == false.
func parseObject(b []byte) (o *object, ok bool) {
	o = &object{}
	ok = eachMember(b, func(rawKey, val []byte) bool {
		key, ok := decodeString(rawKey)
		if ok {
			o.members = append(o.members, member{key: key, rawKey: rawKey, val: val})
		}
		return ok
	})
	if !ok {
		return nil, false
	}
	return o, true
}

// eachMember calls fn with the quoted key and the raw value of every member
// of the object b, in order, without allocating; fn returning false stops
// the walk and makes eachMember report false.
func eachMember(b []byte, fn func(rawKey, val []byte) bool) bool {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return skipSpace(b, i+1) == len(b)
	}
	for {
		keyEnd, ok := scanString(b, i)
		if !ok {
			return false
		}
		rawKey := b[i:keyEnd]
		i = skipSpace(b, keyEnd)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = skipSpace(b, i+1)
		end, ok := scanValue(b, i)
		if !ok || !fn(rawKey, b[i:end]) {
			return false
		}
		i = skipSpace(b, end)
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return skipSpace(b, i+1) == len(b)
		default:
			return false
		}
	}
}

// keyIs reports whether the quoted key rawKey decodes to name.
func keyIs(rawKey []byte, name string) bool {
	if len(rawKey) == len(name)+2 && string(rawKey[1:len(rawKey)-1]) == name {
		return true
	}
	if bytes.IndexByte(rawKey, '\\') < 0 {
		return false
	}
	k, ok := decodeString(rawKey)
	return ok && k == name
}

// parseArray splits a JSON array into its raw elements.
func parseArray(b []byte) (elems [][]byte, ok bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return nil, false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return [][]byte{}, skipSpace(b, i+1) == len(b)
	}
	for {
		end, ok := scanValue(b, i)
		if !ok {
			return nil, false
		}
		elems = append(elems, b[i:end])
		i = skipSpace(b, end)
		if i >= len(b) {
			return nil, false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case ']':
			return elems, skipSpace(b, i+1) == len(b)
		default:
			return nil, false
		}
	}
}

// get returns the value of key; with duplicate keys the last one wins, as
// in every JSON decoder we read logs from.
func (o *object) get(key string) ([]byte, bool) {
	for i := len(o.members) - 1; i >= 0; i-- {
		if o.members[i].key == key {
			return o.members[i].val, true
		}
	}
	return nil, false
}

// getObject returns the value of key when it is an object.
func (o *object) getObject(key string) *object {
	v, ok := o.get(key)
	if !ok {
		return nil
	}
	sub, ok := parseObject(v)
	if !ok {
		return nil
	}
	return sub
}

// getString returns the value of key when it is a string.
func (o *object) getString(key string) (string, bool) {
	v, ok := o.get(key)
	if !ok {
		return "", false
	}
	return decodeString(v)
}

// set replaces the value of key in place (keeping its position, like a
// JavaScript object spread) or appends it when absent.
func (o *object) set(key string, val []byte) {
	for i := range o.members {
		if o.members[i].key == key {
			o.members[i].val = val
			o.dropLaterDuplicates(i)
			return
		}
	}
	o.members = append(o.members, member{key: key, rawKey: plainjson.Quote(key), val: val})
}

func (o *object) dropLaterDuplicates(first int) {
	key := o.members[first].key
	out := o.members[:first+1]
	for _, m := range o.members[first+1:] {
		if m.key != key {
			out = append(out, m)
		}
	}
	o.members = out
}

// del removes every member named key.
func (o *object) del(key string) {
	out := o.members[:0]
	for _, m := range o.members {
		if m.key != key {
			out = append(out, m)
		}
	}
	o.members = out
}

// pick builds a new object holding only keys, in that order, taken from o;
// absent keys stay absent.
func (o *object) pick(keys ...string) *object {
	n := &object{}
	for _, k := range keys {
		if v, ok := o.get(k); ok {
			n.set(k, v)
		}
	}
	return n
}

// bytes encodes the object compactly; member values keep their raw bytes.
func (o *object) bytes() []byte {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, m := range o.members {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(m.rawKey)
		buf.WriteByte(':')
		buf.Write(m.val)
	}
	buf.WriteByte('}')
	return buf.Bytes()
}

func encodeArray(elems [][]byte) []byte {
	var buf bytes.Buffer
	buf.WriteByte('[')
	for i, e := range elems {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(e)
	}
	buf.WriteByte(']')
	return buf.Bytes()
}

// decodeString unquotes a raw JSON string value.
func decodeString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner), true
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// scanString returns the index just after the string starting at b[i]. It
// jumps from quote to quote (bytes.IndexByte): a quote ends the string
// unless an odd run of backslashes precedes it, which is exactly where a
// byte-by-byte walk that skips the byte after each backslash ends it
// (FuzzScanString). Every backslash belongs to the run before one quote,
// so the scan stays linear.
func scanString(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return 0, false
	}
	for j := i + 1; ; {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return 0, false
		}
		q := j + k
		run := 0
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			run++
		}
		if run%2 == 0 {
			return q + 1, true
		}
		j = q + 1
	}
}

// scanValue returns the index just after the JSON value starting at b[i].
// It trusts the input to be valid JSON and only tracks nesting and strings.
func scanValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch b[i] {
	case '"':
		return scanString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, ok := scanString(b, j)
				if !ok {
					return 0, false
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, true
				}
			}
		}
		return 0, false
	default: // number, true, false, null
		j := i
		for j < len(b) && !isSpace(b[j]) && !strings.ContainsRune(",}]:", rune(b[j])) {
			j++
		}
		return j, j > i
	}
}
