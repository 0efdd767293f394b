package openai

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The value-level half of chunkScanner: it validates JSON strings, numbers,
// literals and nested values exactly as the JSON grammar requires, so the
// fast path accepts nothing encoding/json would reject.

// optString reads a string into dst; null leaves dst alone.
func (sc *chunkScanner) optString(dst *string) bool {
	if sc.null() {
		return true
	}
	return sc.stringInto(dst)
}

// stringInto reads a JSON string value. Plain ASCII or valid UTF-8 without
// escapes is copied directly; anything else is decoded by encoding/json,
// which also replaces invalid UTF-8 the standard way.
func (sc *chunkScanner) stringInto(dst *string) bool {
	start := sc.i
	escaped, ok := sc.str()
	if !ok {
		return false
	}
	body := sc.data[start+1 : sc.i-1]
	if !sc.ascii && !utf8.Valid(body) {
		return json.Unmarshal(sc.data[start:sc.i], dst) == nil
	}
	if !escaped {
		*dst = string(body)
		return true
	}
	if v, ok := sc.unescape(body); ok {
		*dst = v
		return true
	}
	return json.Unmarshal(sc.data[start:sc.i], dst) == nil
}

// stringBytes reads a JSON string value as bytes: the string's own bytes
// in data when it has no escapes, else its decoded form in the scan's
// scratch. Either is valid until the next scan.
func (sc *chunkScanner) stringBytes() ([]byte, bool) {
	start := sc.i
	escaped, ok := sc.str()
	if !ok {
		return nil, false
	}
	return sc.literal(sc.data[start:sc.i], escaped)
}

// literal decodes a string literal that str validated. Invalid UTF-8 and
// \u escapes are left to encoding/json, as in stringInto.
func (sc *chunkScanner) literal(lit []byte, escaped bool) ([]byte, bool) {
	body := lit[1 : len(lit)-1]
	valid := sc.ascii || utf8.Valid(body)
	if valid && !escaped {
		return body, true
	}
	if valid {
		at := len(sc.scratch)
		if buf, ok := unescapeTo(sc.scratch, body); ok {
			sc.scratch = buf
			return buf[at:], true
		}
	}
	var s string
	if json.Unmarshal(lit, &s) != nil {
		return nil, false
	}
	at := len(sc.scratch)
	sc.scratch = append(sc.scratch, s...)
	return sc.scratch[at:], true
}

// unescape decodes the single-character escapes of a validated string
// body. \u escapes are left to encoding/json (ok=false), which handles
// surrogate pairs and replacement characters.
func (sc *chunkScanner) unescape(body []byte) (string, bool) {
	buf, ok := unescapeTo(sc.buf[:0], body)
	if !ok {
		return "", false
	}
	sc.buf = buf
	return string(buf), true
}

// unescapeTo appends body with its single-character escapes decoded to
// buf; any \u escape reports false.
func unescapeTo(buf, body []byte) ([]byte, bool) {
	for i := 0; i < len(body); i++ {
		b := body[i]
		if b != '\\' {
			buf = append(buf, b)
			continue
		}
		i++
		switch body[i] {
		case '"', '\\', '/':
			buf = append(buf, body[i])
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		default:
			return buf, false
		}
	}
	return buf, true
}

// plainKey reads a key that needs no unescaping; the slice aliases data.
func (sc *chunkScanner) plainKey() ([]byte, bool) {
	start := sc.i
	escaped, ok := sc.str()
	if !ok || escaped {
		return nil, false
	}
	return sc.data[start+1 : sc.i-1], true
}

// str validates a string and moves past it; escaped reports backslashes,
// and sc.ascii whether every byte of it is ASCII.
func (sc *chunkScanner) str() (escaped bool, ok bool) {
	d := sc.data
	i := sc.i
	if i >= len(d) || d[i] != '"' {
		return false, false
	}
	high := byte(0)
	for i++; i < len(d); i++ {
		b := d[i]
		high |= b
		switch {
		case b == '"':
			sc.i = i + 1
			sc.ascii = high < utf8.RuneSelf
			return escaped, true
		case b == '\\':
			escaped = true
			i++
			if i >= len(d) {
				return false, false
			}
			switch d[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(d) {
					return false, false
				}
				for _, h := range d[i+1 : i+5] {
					if !isHex(h) {
						return false, false
					}
				}
				i += 4
			default:
				return false, false
			}
		case b < 0x20:
			return false, false
		}
	}
	return false, false
}

func isHex(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'f' || b >= 'A' && b <= 'F'
}

// int reads an integer number that fits an int.
func (sc *chunkScanner) int() (int, bool) {
	start := sc.i
	if !sc.number() {
		return 0, false
	}
	v, err := strconv.Atoi(string(sc.data[start:sc.i]))
	return v, err == nil
}

// number validates a JSON number and moves past it.
func (sc *chunkScanner) number() bool {
	d, i := sc.data, sc.i
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return false
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return false
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	sc.i = i
	return true
}

// skip validates any value and moves past it.
func (sc *chunkScanner) skip(depth int) bool {
	if depth > maxScanDepth || sc.i >= len(sc.data) {
		return false
	}
	switch b := sc.data[sc.i]; {
	case b == '"':
		_, ok := sc.str()
		return ok
	case b == '{':
		sc.i++
		sc.ws()
		if sc.lit('}') {
			return true
		}
		for {
			sc.ws()
			if _, ok := sc.str(); !ok {
				return false
			}
			sc.ws()
			if !sc.lit(':') {
				return false
			}
			sc.ws()
			if !sc.skip(depth + 1) {
				return false
			}
			sc.ws()
			if sc.lit('}') {
				return true
			}
			if !sc.lit(',') {
				return false
			}
		}
	case b == '[':
		sc.i++
		sc.ws()
		if sc.lit(']') {
			return true
		}
		for {
			sc.ws()
			if !sc.skip(depth + 1) {
				return false
			}
			sc.ws()
			if sc.lit(']') {
				return true
			}
			if !sc.lit(',') {
				return false
			}
		}
	case b == 't':
		return sc.word("true")
	case b == 'f':
		return sc.word("false")
	case b == 'n':
		return sc.null()
	}
	return sc.number()
}

func (sc *chunkScanner) null() bool { return sc.word("null") }

func (sc *chunkScanner) word(w string) bool {
	if strings.HasPrefix(string(sc.data[sc.i:min(sc.i+len(w), len(sc.data))]), w) {
		sc.i += len(w)
		return true
	}
	return false
}

func (sc *chunkScanner) lit(b byte) bool {
	if sc.i < len(sc.data) && sc.data[sc.i] == b {
		sc.i++
		return true
	}
	return false
}

func (sc *chunkScanner) ws() {
	for sc.i < len(sc.data) {
		switch sc.data[sc.i] {
		case ' ', '\t', '\n', '\r':
			sc.i++
		default:
			return
		}
	}
}
