package openai

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNormalizeKimiSchema(t *testing.T) {
	for _, tt := range []struct {
		name, in, want string
	}{
		{"root is never typed, children are",
			`{"properties":{"a":{"description":"x"}}}`,
			`{"properties":{"a":{"description":"x","type":"string"}}}`},
		{"type from enum",
			`{"type":"object","properties":{"m":{"enum":["none","start"]},"n":{"enum":[1,2.5]},"i":{"enum":[1,2]},"b":{"enum":[true]}}}`,
			`{"type":"object","properties":{"m":{"enum":["none","start"],"type":"string"},"n":{"enum":[1,2.5],"type":"number"},
			  "i":{"enum":[1,2],"type":"integer"},"b":{"enum":[true],"type":"boolean"}}}`},
		{"type from const",
			`{"type":"object","properties":{"c":{"const":{"k":1}},"z":{"const":null}}}`,
			`{"type":"object","properties":{"c":{"const":{"k":1},"type":"object"},"z":{"const":null,"type":"null"}}}`},
		{"type from structure keywords",
			`{"type":"object","properties":{
			   "o":{"required":["x"]},"a":{"minItems":1},"s":{"pattern":"^a"},"n":{"minimum":1},"e":{},
			   "both":{"properties":{},"items":{}}}}`,
			`{"type":"object","properties":{
			   "o":{"required":["x"],"type":"object"},"a":{"minItems":1,"type":"array"},"s":{"pattern":"^a","type":"string"},
			   "n":{"minimum":1,"type":"number"},"e":{"type":"string"},
			   "both":{"properties":{},"items":{"type":"string"},"type":"object"}}}`},
		{"combinators are not typed, their branches are",
			`{"type":"object","properties":{"u":{"anyOf":[{"minLength":1},{"maximum":3}]},"r":{"not":{"enum":["x"]}}}}`,
			`{"type":"object","properties":{"u":{"anyOf":[{"minLength":1,"type":"string"},{"maximum":3,"type":"number"}]},
			   "r":{"not":{"enum":["x"],"type":"string"}}}}`},
		{"every child slot is walked",
			`{"type":"object","additionalProperties":{"format":"uri"},"patternProperties":{"^x":{}},
			  "items":[{"minimum":0}],"prefixItems":[{}],"propertyNames":{"pattern":"a"},"dependentSchemas":{"a":{"required":[]}},
			  "if":{"const":1},"then":{},"else":{},"contains":{},"unevaluatedProperties":false}`,
			`{"type":"object","additionalProperties":{"format":"uri","type":"string"},"patternProperties":{"^x":{"type":"string"}},
			  "items":[{"minimum":0,"type":"number"}],"prefixItems":[{"type":"string"}],"propertyNames":{"pattern":"a","type":"string"},
			  "dependentSchemas":{"a":{"required":[],"type":"object"}},"if":{"const":1,"type":"integer"},"then":{"type":"string"},
			  "else":{"type":"string"},"contains":{"type":"string"},"unevaluatedProperties":false}`},
		{"typed enum with other values: type fixed, foreign keys dropped",
			`{"type":"object","properties":{"f":{"type":"array","items":{"type":"string"},"minItems":1,"enum":["a","b"]},
			  "g":{"type":"string","const":3},"h":{"type":"string","enum":["a",1]}}}`,
			`{"type":"object","properties":{"f":{"type":"string","enum":["a","b"]},"g":{"type":"integer","const":3},
			  "h":{"type":"string","enum":["a",1]}}}`},
		{"non-object schema values are skipped",
			`{"type":"object","properties":{"a":true},"additionalProperties":false,"items":[false]}`,
			`{"type":"object","properties":{"a":true},"additionalProperties":false,"items":[false]}`},
		{"refs are inlined, siblings win, unused defs dropped",
			`{"type":"object","properties":{"p":{"$ref":"#/$defs/point","description":"where"},"q":{"$ref":"#/definitions/n"}},
			  "$defs":{"point":{"type":"object","description":"a point","properties":{"x":{"$ref":"#/definitions/n"}}}},
			  "definitions":{"n":{"minimum":0}}}`,
			`{"type":"object","properties":{
			   "p":{"type":"object","description":"where","properties":{"x":{"minimum":0,"type":"number"}}},
			   "q":{"minimum":0,"type":"number"}}}`},
		{"pointer escapes and array indexes",
			`{"type":"object","properties":{"a":{"$ref":"#/$defs/a~1b"},"b":{"$ref":"#/$defs/list/1"},"c":{"$ref":"#/$defs/list/01"}},
			  "$defs":{"a/b":{"type":"string"},"list":[{"type":"null"},{"type":"boolean"}]}}`,
			`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"boolean"},"c":{"$ref":"#/$defs/list/01"}},
			  "$defs":{"a/b":{"type":"string"},"list":[{"type":"null"},{"type":"boolean"}]}}`},
		{"cycles are left as refs and keep their bucket",
			`{"type":"object","properties":{"root":{"$ref":"#/$defs/node"}},
			  "$defs":{"node":{"type":"object","properties":{"next":{"$ref":"#/$defs/node"}}}}}`,
			`{"type":"object","properties":{"root":{"type":"object","properties":{"next":{"$ref":"#/$defs/node"}}}},
			  "$defs":{"node":{"type":"object","properties":{"next":{"type":"object","properties":{"next":{"$ref":"#/$defs/node"}}}}}}}`},
		{"unknown and remote refs are left alone",
			`{"type":"object","properties":{"a":{"$ref":"#/$defs/missing"},"b":{"$ref":"https://example.com/s.json"}}}`,
			`{"type":"object","properties":{"a":{"$ref":"#/$defs/missing"},"b":{"$ref":"https://example.com/s.json"}}}`},
		{"a root ref to itself is a cycle",
			`{"$ref":"#","description":"self"}`,
			`{"$ref":"#","description":"self"}`},
		{"big integers keep their digits",
			`{"type":"object","properties":{"n":{"maximum":9007199254740993}}}`,
			`{"type":"object","properties":{"n":{"maximum":9007199254740993,"type":"number"}}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := json.RawMessage(tt.in)
			before := string(in)
			got, err := NormalizeKimiSchema(in)
			if err != nil {
				t.Fatal(err)
			}
			if string(in) != before {
				t.Errorf("input modified")
			}
			if d := cmp.Diff(decodeNumbers(t, tt.want), decodeNumbers(t, string(got))); d != "" {
				t.Errorf("schema (-want +got):\n%s\ngot %s", d, got)
			}
		})
	}
}

func decodeNumbers(t *testing.T, s string) any {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("bad JSON: %v\n%s", err, s)
	}
	return v
}

func TestNormalizeKimiSchemaErrors(t *testing.T) {
	for _, tt := range []struct{ name, in, contains string }{
		{"enum mixing types", `{"properties":{"a":{"enum":["x",1]}}}`, "properties.a: enum mixes the types integer, string"},
		{"nullable enum without type", `{"properties":{"a":{"enum":["x",null]}}}`, "null, string"},
		{"not JSON", `{"a":`, "decode schema"},
		{"exponential refs", exponentialRefs(), "200000 nodes"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NormalizeKimiSchema(json.RawMessage(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.contains) {
				t.Errorf("err = %v; want it to contain %q", err, tt.contains)
			}
		})
	}
}

// exponentialRefs builds definitions d0..d29 where each refers to the next
// twice, so inlining doubles at every level.
func exponentialRefs() string {
	var b strings.Builder
	b.WriteString(`{"properties":{"x":{"$ref":"#/$defs/d0"}},"$defs":{`)
	for i := range 30 {
		if i > 0 {
			b.WriteByte(',')
		}
		next := `{"type":"string"}`
		if i < 29 {
			ref := `{"$ref":"#/$defs/d` + itoa(i+1) + `"}`
			next = `{"properties":{"l":` + ref + `,"r":` + ref + `}}`
		}
		b.WriteString(`"d` + itoa(i) + `":` + next)
	}
	b.WriteString(`}}`)
	return b.String()
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func TestNormalizeKimiSchemaNonObject(t *testing.T) {
	for _, in := range []string{`true`, `[]`, `"x"`} {
		got, err := NormalizeKimiSchema(json.RawMessage(in))
		if err != nil || string(got) != in {
			t.Errorf("NormalizeKimiSchema(%s) = %s, %v; want it unchanged", in, got, err)
		}
	}
}

// TestKimiSchemasAreKeptAsNormalized: a schema normalized before comes
// back from the per-process store byte for byte as NormalizeKimiSchema
// makes it, and a schema that cannot be normalized fails every time.
func TestKimiSchemasAreKeptAsNormalized(t *testing.T) {
	for _, schema := range []string{
		`{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"$defs":{"A":{"enum":["x","y"]}}}`,
		`{"properties":{"n":{"const":3},"list":{"items":{"properties":{}}}}}`,
		`[1,2]`,
	} {
		want, err := NormalizeKimiSchema(json.RawMessage(schema))
		if err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			got, err := normalizedKimiSchema(json.RawMessage(schema))
			if err != nil || string(got) != string(want) {
				t.Errorf("%s, call %d: %s, %v; want %s", schema, i+1, got, err, want)
			}
		}
	}
	bad := json.RawMessage(`{"properties":{"m":{"enum":[1,"a"]}}}`)
	if _, err := NormalizeKimiSchema(bad); err == nil {
		t.Fatal("a mixed enum normalized")
	}
	for i := range 2 {
		if got, err := normalizedKimiSchema(bad); err == nil {
			t.Errorf("call %d: a mixed enum normalized to %s", i+1, got)
		}
	}
}
