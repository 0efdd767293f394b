package turn_test

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"testing"

	"github.com/kimigo/kimigo/agent/turn"
)

func TestCanonicalArgs(t *testing.T) {
	for _, tt := range []struct {
		name, in, want string
	}{
		{"keys are sorted", `{"b":2,"a":1}`, `{"a":1,"b":2}`},
		{"whitespace is dropped", " {\n\t\"a\" : [ 1 , 2 ]\n} ", `{"a":[1,2]}`},
		{"nested objects are sorted", `{"z":{"y":1,"x":{"b":0,"a":0}}}`, `{"z":{"x":{"a":0,"b":0},"y":1}}`},
		{"arrays keep their order, objects inside are sorted", `[3,{"b":1,"a":2},[{"d":0,"c":0}],1]`,
			`[3,{"a":2,"b":1},[{"c":0,"d":0}],1]`},
		{"HTML characters are not escaped", `{"cmd":"a < b && c > d"}`, `{"cmd":"a < b && c > d"}`},
		{"escaped HTML characters are unescaped", `{"cmd":"\u003cdiv\u003e \u0026"}`, `{"cmd":"<div> &"}`},
		{"non-ASCII stays as is", `{"s":"h\u00e9llo ✓"}`, `{"s":"héllo ✓"}`},
		{"integral floats lose the fraction", `{"n":1.0}`, `{"n":1}`},
		{"exponents are expanded", `{"n":1.5e3}`, `{"n":1500}`},
		{"large numbers are float64", `{"n":12345678901234567890}`, `{"n":12345678901234567000}`},
		{"very large numbers use an exponent", `{"n":1e21}`, `{"n":1e+21}`},
		{"small fractions stay", `{"n":0.000001}`, `{"n":0.000001}`},
		{"the last duplicate key wins", `{"a":1,"a":2}`, `{"a":2}`},
		{"scalars and null", `{"t":true,"f":false,"z":null,"s":""}`, `{"f":false,"s":"","t":true,"z":null}`},
		{"a top-level array", `[1, "x"]`, `[1,"x"]`},
		{"a top-level string", `"x"`, `"x"`},
		{"invalid JSON is returned as is", `{"path":`, `{"path":`},
		{"trailing data is invalid", `{} {}`, `{} {}`},
		{"an out-of-range number is kept as text", `{"n":1e400}`, `{"n":1e400}`},
		{"empty text stays empty", ``, ``},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := turn.CanonicalArgs(json.RawMessage(tt.in)); got != tt.want {
				t.Errorf("CanonicalArgs(%s) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestCanonicalArgsEqualForEqualValues(t *testing.T) {
	a := turn.CanonicalArgs(json.RawMessage(`{"command":"printf dup","timeout":60}`))
	b := turn.CanonicalArgs(json.RawMessage(`{"timeout":60.0,"command":"printf dup"}`))
	if a != b {
		t.Errorf("permuted keys differ: %s vs %s", a, b)
	}
	if c := turn.CanonicalArgs(json.RawMessage(`{"timeout":61,"command":"printf dup"}`)); c == a {
		t.Errorf("different values are equal: %s", c)
	}
}

func FuzzCanonicalArgs(f *testing.F) {
	for _, seed := range []string{
		`{"a":1,"b":[{"d":2,"c":1}]}`, `{"cmd":"<&>"}`, `not json`, `[1e21,1.0,-0.5]`,
		`{"a":1,"a":2}`, `{"k":{"z":null,"y":[true,"\u2028"]}}`, `"\xff"`, ``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got := turn.CanonicalArgs(data)
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			if got != string(data) {
				t.Fatalf("CanonicalArgs(%q) = %q, want the text unchanged", data, got)
			}
			return
		}
		if !json.Valid([]byte(got)) {
			t.Fatalf("CanonicalArgs(%q) = %q, not JSON", data, got)
		}
		if again := turn.CanonicalArgs(json.RawMessage(got)); again != got {
			t.Fatalf("not idempotent: %q then %q", got, again)
		}
		var permuted bytes.Buffer
		writeReversedJSON(t, &permuted, v)
		if other := turn.CanonicalArgs(permuted.Bytes()); other != got {
			t.Fatalf("permuted keys differ:\n%s -> %s\n%s -> %s", data, got, permuted.Bytes(), other)
		}
	})
}

// writeReversedJSON writes v as JSON with the keys of every object in
// reverse order, spaces around the punctuation and HTML escaping on.
func writeReversedJSON(t *testing.T, b *bytes.Buffer, v any) {
	t.Helper()
	switch x := v.(type) {
	case map[string]any:
		keys := slices.Sorted(maps.Keys(x))
		slices.Reverse(keys)
		b.WriteString("{ ")
		for i, k := range keys {
			if i > 0 {
				b.WriteString(" , ")
			}
			writeReversedJSON(t, b, k)
			b.WriteString(" : ")
			writeReversedJSON(t, b, x[k])
		}
		b.WriteString(" }")
	case []any:
		b.WriteString("[ ")
		for i, e := range x {
			if i > 0 {
				b.WriteString(" , ")
			}
			writeReversedJSON(t, b, e)
		}
		b.WriteString(" ]")
	default:
		enc, err := json.Marshal(x)
		if err != nil {
			t.Fatalf("marshal %v: %v", x, err)
		}
		b.Write(enc)
	}
}
