package loop

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

const objectSchemaBody = `"type":"object",
	"properties":{
		"text":{"type":"string"},
		"n":{"type":"integer","minimum":1},
		"mode":{"enum":["a","b"]},
		"email":{"type":"string","format":"email"},
		"value":{"type":"number"}
	},
	"required":["text"],
	"additionalProperties":false`

func TestSchemaMessages(t *testing.T) {
	args := `{"n":0,"mode":"c","extra":1,"email":"nope","value":"x"}`
	want := "must have required property 'text'; must NOT have additional property 'extra'; " +
		`/email must match format "email"; /mode must be equal to one of the allowed values; /n must be >= 1; ` +
		"/value must be number"
	for _, dialect := range []string{
		"",
		`"$schema":"http://json-schema.org/draft-07/schema#",`,
		`"$schema":"https://json-schema.org/draft/2019-09/schema",`,
		`"$schema":"https://json-schema.org/draft/2020-12/schema",`,
	} {
		name := dialect
		if name == "" {
			name = "no $schema"
		}
		t.Run(name, func(t *testing.T) {
			schema := json.RawMessage("{" + dialect + objectSchemaBody + "}")
			got, ok := NewSchemaCache().check(schema, json.RawMessage(args))
			if ok || got != want {
				t.Errorf("check = %q, %v\nwant %q", got, ok, want)
			}
			if msg, ok := NewSchemaCache().check(schema, json.RawMessage(`{"text":"hi","n":2}`)); !ok {
				t.Errorf("valid args rejected: %s", msg)
			}
		})
	}
}

func TestSchemaDialects(t *testing.T) {
	for _, tt := range []struct {
		name, schema, args, want string
	}{
		{"2020 keyword without $schema",
			`{"properties":{"pair":{"type":"array","prefixItems":[{"type":"string"},{"type":"number"}]}}}`,
			`{"pair":["a","b"]}`, "/pair/1 must be number"},
		{"2019 keyword without $schema",
			`{"dependentRequired":{"a":["b"]}}`, `{"a":1}`, "must have property b when property a is present"},
		{"2020 $schema",
			`{"$schema":"https://json-schema.org/draft/2020-12/schema","properties":{"p":{"prefixItems":[{"type":"string"}]}}}`,
			`{"p":[1]}`, "/p/0 must be string"},
		{"draft-07 ignores prefixItems when $schema says so",
			`{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"p":{"prefixItems":[{"type":"string"}]}}}`,
			`{"p":[1]}`, ""},
		{"unknown keywords are ignored", `{"type":"object","x-kimigo":{"anything":true}}`, `{}`, ""},
		{"oneOf", `{"properties":{"v":{"oneOf":[{"type":"string"},{"type":"number"}]}}}`, `{"v":true}`,
			"/v must be string; /v must be number; /v must match exactly one schema in oneOf"},
		{"nested required keeps the bare wording", `{"properties":{"o":{"type":"object","required":["k"]}}}`, `{"o":{}}`,
			"must have required property 'k'"},
		{"array", `{"properties":{"l":{"type":"array","items":{"type":"integer"},"maxItems":1,"uniqueItems":true}}}`,
			`{"l":[1,1]}`, "/l must NOT have more than 1 items; /l must NOT have duplicate items (items ## 1 and 0 are identical)"},
		{"strings", `{"properties":{"s":{"type":"string","minLength":3,"pattern":"^a"}}}`, `{"s":"b"}`,
			`/s must NOT have fewer than 3 characters; /s must match pattern "^a"`},
		{"numbers", `{"properties":{"x":{"exclusiveMaximum":1.5,"multipleOf":2}}}`, `{"x":3}`,
			"/x must be < 1.5; /x must be multiple of 2"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := NewSchemaCache().check(json.RawMessage(tt.schema), json.RawMessage(tt.args))
			if ok != (tt.want == "") || got != tt.want {
				t.Errorf("check = %q, %v; want %q", got, ok, tt.want)
			}
		})
	}
}

func TestDetectDraft(t *testing.T) {
	for _, tt := range []struct {
		schema string
		want   *jsonschema.Draft
	}{
		{`{"$schema":"http://json-schema.org/draft-04/schema#"}`, jsonschema.Draft7},
		{`{"$schema":"https://json-schema.org/draft/2019-09/schema","prefixItems":[]}`, jsonschema.Draft2019},
		{`{"$schema":42}`, jsonschema.Draft7},
		{`{"items":{"$dynamicRef":"#x"}}`, jsonschema.Draft2020},
		{`{"allOf":[{"unevaluatedProperties":false}]}`, jsonschema.Draft2019},
		{`{"type":"object"}`, jsonschema.Draft7},
	} {
		var doc any
		if err := json.Unmarshal([]byte(tt.schema), &doc); err != nil {
			t.Fatal(err)
		}
		if got := detectDraft(doc); got != tt.want {
			t.Errorf("detectDraft(%s) = %v, want %v", tt.schema, got, tt.want)
		}
	}
}

func TestSchemaCompileError(t *testing.T) {
	for _, schema := range []string{
		`{"type":"nonsense"}`,
		`{"$ref":"https://example.com/remote.json"}`,
		`{"$ref":"file:///etc/passwd"}`,
		`not json`,
	} {
		got, ok := NewSchemaCache().check(json.RawMessage(schema), json.RawMessage(`{}`))
		if ok || !strings.HasPrefix(got, "invalid parameters schema") {
			t.Errorf("check(%s) = %q, %v; want a compile error", schema, got, ok)
		}
	}
}

func TestSchemaCompiledOnce(t *testing.T) {
	c := NewSchemaCache()
	schema := []byte(`{"type":"object"}`)
	a, b := c.get(schema), c.get(append([]byte(nil), schema...))
	if a != b || a.schema == nil {
		t.Errorf("the same schema text was compiled twice (or not at all)")
	}
	if c.get([]byte(`{"type":"array"}`)) == a {
		t.Error("different schemas share a validator")
	}
}
