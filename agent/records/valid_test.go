package records

import (
	"encoding/json"
	"strings"
	"testing"
)

// scanStringByByte is the walk scanString must agree with: the byte after
// each backslash is skipped, the first other quote ends the string.
func scanStringByByte(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return 0, false
	}
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return 0, false
}

// FuzzScanString proves that scanString, which jumps from quote to quote,
// ends every string (valid or not) where the byte-by-byte walk does.
func FuzzScanString(f *testing.F) {
	for _, seed := range []string{`""`, `"a"`, `"a\"b"`, `"a\\"b"`, `"\\\\\""x"`, `"\u0022"`, `"abc\`, `"abc\"`, `x"`, `"`, `"\\\\\\"`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		gotEnd, gotOK := scanString(b, 0)
		wantEnd, wantOK := scanStringByByte(b, 0)
		if gotEnd != wantEnd || gotOK != wantOK {
			t.Fatalf("scanString(%q) = %d, %v; want %d, %v", b, gotEnd, gotOK, wantEnd, wantOK)
		}
	})
}

// FuzzSurelyValid proves that surelyValid never vouches for input
// json.Valid rejects, so validJSON is json.Valid.
func FuzzSurelyValid(f *testing.F) {
	for _, seed := range []string{
		meta, `{"type":"x","time":1,"a":[1,-0.5e+3,true,false,null,{"b":"\u00e9\n"}]}`,
		` {} `, `[]`, `"x"`, `0`, `-`, `01`, `1.`, `1e`, `.5`, `+1`, `tru`, `nul`, `{"a" 1}`, `{"a":1,}`,
		`[1,]`, `"\x"`, `"\u12g4"`, "\"\x01\"", "\"\xff\"", `{"a":1}x`, `{}{}`, `[` + strings.Repeat(`[`, 10001) + `]`,
		strings.Repeat(`[`, 10000) + strings.Repeat(`]`, 10000),
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if surelyValid(b) && !json.Valid(b) {
			t.Fatalf("surelyValid vouches for %q, which json.Valid rejects", b)
		}
		if validJSON(b) != json.Valid(b) {
			t.Fatalf("validJSON(%q) = %v, json.Valid says %v", b, validJSON(b), json.Valid(b))
		}
	})
}

const meta = `{"type":"metadata","protocol_version":"1.4","created_at":1}`

// TestSurelyValidVouchesForRecords: the fast path must answer for the
// lines the writer produces, or it saves nothing.
func TestSurelyValidVouchesForRecords(t *testing.T) {
	for _, line := range []string{
		meta,
		`{"type":"context.append_loop_event","time":5,"event":{"type":"tool.result","toolCallId":"c1","result":{"output":"line\n\ttab \"q\" \\ \u00e9 é","isError":false}}}`,
		`{"type":"usage.record","time":1733000000000,"usage":{"inputTokens":12,"outputTokens":0,"cost":1.5e-3}}`,
	} {
		if !surelyValid([]byte(line)) {
			t.Errorf("surelyValid(%s) = false", line)
		}
	}
}
