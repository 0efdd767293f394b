package jsonschema

import (
	"encoding/json"
	"strings"
	"testing"
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
			got, ok := NewCache().Check(schema, json.RawMessage(args))
			if ok || got != want {
				t.Errorf("check = %q, %v\nwant %q", got, ok, want)
			}
			if msg, ok := NewCache().Check(schema, json.RawMessage(`{"text":"hi","n":2}`)); !ok {
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
			got, ok := NewCache().Check(json.RawMessage(tt.schema), json.RawMessage(tt.args))
			if ok != (tt.want == "") || got != tt.want {
				t.Errorf("check = %q, %v; want %q", got, ok, tt.want)
			}
		})
	}
}

func TestDetectDraft(t *testing.T) {
	for _, tt := range []struct {
		schema string
		want   draft
	}{
		{`{"$schema":"http://json-schema.org/draft-04/schema#"}`, draft7},
		{`{"$schema":"https://json-schema.org/draft/2019-09/schema","prefixItems":[]}`, draft2019},
		{`{"$schema":42}`, draft7},
		{`{"items":{"$dynamicRef":"#x"}}`, draft2020},
		{`{"allOf":[{"unevaluatedProperties":false}]}`, draft2019},
		{`{"type":"object"}`, draft7},
	} {
		doc, err := decodeJSON([]byte(tt.schema))
		if err != nil {
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
		`{"type":["string","bogus"]}`,
		`{"pattern":"(a"}`,
		`{"properties":{"a":1}}`,
		`{"minLength":-1}`,
		`{"$ref":"#/definitions/missing"}`,
		`{"allOf":[]}`,
		`{"required":["a","a"]}`,
	} {
		got, ok := NewCache().Check(json.RawMessage(schema), json.RawMessage(`{}`))
		if ok || !strings.HasPrefix(got, "invalid parameters schema") {
			t.Errorf("check(%s) = %q, %v; want a compile error", schema, got, ok)
		}
	}
}

func TestSchemaCompiledOnce(t *testing.T) {
	c := NewCache()
	schema := []byte(`{"type":"object"}`)
	a, b := c.get(schema), c.get(append([]byte(nil), schema...))
	if a != b || a.schema == nil {
		t.Errorf("the same schema text was compiled twice (or not at all)")
	}
	if c.get([]byte(`{"type":"array"}`)) == a {
		t.Error("different schemas share a validator")
	}
}

// TestSchemaKeywords pins the wording keyword by keyword; it is the wording
// tool calls were rejected with before the loop had its own validator.
func TestSchemaKeywords(t *testing.T) {
	for _, tt := range []struct {
		name, schema, args, want string
	}{
		{"$ref to definitions", `{"definitions":{"p":{"type":"integer","minimum":3}},"properties":{"a":{"$ref":"#/definitions/p"}}}`,
			`{"a":1}`, "/a must be >= 3"},
		{"draft-07 $ref ignores its siblings", `{"definitions":{"p":{"type":"integer"}},"properties":{"a":{"$ref":"#/definitions/p","maximum":0}}}`,
			`{"a":1}`, ""},
		{"2019 $ref keeps its siblings", `{"$defs":{"p":{"type":"integer","minimum":3}},"properties":{"a":{"$ref":"#/$defs/p","maximum":0}},"unevaluatedProperties":false}`,
			`{"a":1,"b":2}`, "/a must be >= 3; /a must be <= 0; /b boolean schema is false"},
		{"draft-07 $id anchor", `{"definitions":{"p":{"$id":"#pp","type":"string"}},"properties":{"a":{"$ref":"#pp"}}}`, `{"a":1}`, "/a must be string"},
		{"$id base", `{"$id":"https://example.com/root.json","definitions":{"x":{"$id":"x.json","type":"string"}},"properties":{"a":{"$ref":"x.json"}}}`,
			`{"a":1}`, "/a must be string"},
		{"if then", `{"if":{"properties":{"k":{"const":"a"}}},"then":{"required":["x"]},"else":{"required":["y"]}}`, `{"k":"a"}`,
			"must have required property 'x'"},
		{"if else", `{"if":{"properties":{"k":{"const":"a"}}},"then":{"required":["x"]},"else":{"required":["y"]}}`, `{"k":"b"}`,
			"must have required property 'y'"},
		{"unevaluatedProperties sees allOf", `{"allOf":[{"properties":{"a":{"type":"string"}}}],"unevaluatedProperties":false}`,
			`{"a":"x","b":1}`, "/b boolean schema is false"},
		{"anyOf", `{"anyOf":[{"type":"string"},{"type":"integer","minimum":5}]}`, `3`,
			"must be string; must be >= 5; must match a schema in anyOf"},
		{"oneOf matching twice", `{"oneOf":[{"type":"integer"},{"type":"number"}]}`, `3`, "must match exactly one schema in oneOf"},
		{"draft-07 dependencies", `{"dependencies":{"a":["b","c"]}}`, `{"a":1}`, "must have properties b, c when property a is present"},
		{"patternProperties and additionalProperties schema", `{"patternProperties":{"^x-":{"type":"integer"}},"additionalProperties":{"type":"string"}}`,
			`{"x-a":"s","y":1,"z":"ok"}`, "/x-a must be integer; /y must be string"},
		{"contains", `{"type":"array","contains":{"type":"integer"},"minContains":2,"maxContains":3}`, `["a",1]`,
			"must contain at least 2 valid item(s)"},
		{"draft-07 tuple items", `{"items":[{"type":"string"},{"type":"integer"}],"additionalItems":false}`, `["a","b",3]`,
			"must NOT have additional items; /1 must be integer"},
		{"2020 unevaluatedItems", `{"$schema":"https://json-schema.org/draft/2020-12/schema","prefixItems":[{"type":"string"}],"unevaluatedItems":false}`,
			`["a","x"]`, "/1 boolean schema is false"},
		{"integers may be written 1.0", `{"type":"integer","const":1}`, `1.0`, ""},
		{"enum compares numbers by value", `{"enum":[{"x":[1]}]}`, `{"x":[1.0]}`, ""},
		{"not", `{"not":{"type":"string"}}`, `"x"`, "must NOT be valid"},
		{"propertyNames", `{"propertyNames":{"maxLength":3}}`, `{"abcd":1,"ab":2}`, "property name must be valid"},
		{"$recursiveRef", `{"$schema":"https://json-schema.org/draft/2019-09/schema","$recursiveAnchor":true,"type":"object","properties":{"c":{"$recursiveRef":"#"}},"additionalProperties":{"type":"integer"}}`,
			`{"c":{"c":{"x":"s"}}}`, "/c/c/x must be integer"},
		{"$dynamicRef", `{"$schema":"https://json-schema.org/draft/2020-12/schema","$dynamicAnchor":"n","type":"object","properties":{"c":{"$dynamicRef":"#n"}},"additionalProperties":{"type":"integer"}}`,
			`{"c":{"c":{"x":"s"}}}`, "/c/c/x must be integer"},
		{"a $ref cycle is reported, not followed", `{"$ref":"#"}`, `{}`, "must not apply the same schema again through $ref"},
		{"a huge exponent stays cheap", `{"type":"integer","maximum":10}`, `1e999999999`, "must be <= 10"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := NewCache().Check(json.RawMessage(tt.schema), json.RawMessage(tt.args))
			if ok != (tt.want == "") || got != tt.want {
				t.Errorf("check = %q, %v; want %q", got, ok, tt.want)
			}
		})
	}
}

func TestSchemaFormats(t *testing.T) {
	for _, tt := range []struct {
		format, value string
		valid         bool
	}{
		{"date", "2024-02-29", true}, {"date", "2024-02-30", false},
		{"date-time", "2024-02-29T10:00:00.123+05:30", true}, {"date-time", "2024-02-29 10:00:00Z", false},
		{"time", "23:59:60Z", true}, {"time", "22:59:60Z", false}, {"time", "10:00:00", false},
		{"duration", "P1Y2M3DT4H5M6S", true}, {"duration", "P1W", true}, {"duration", "PT", false}, {"duration", "P1M1Y", false},
		{"email", "a.b@example.com", true}, {"email", "a@[127.0.0.1]", true}, {"email", "a..b@example.com", false}, {"email", "nope", false},
		{"hostname", "a-b.example", true}, {"hostname", "-a.com", false}, {"hostname", "a_b.com", false},
		{"ipv4", "1.2.3.4", true}, {"ipv4", "1.2.3.04", false},
		{"ipv6", "::1", true}, {"ipv6", "1.2.3.4", false},
		{"uri", "https://example.com/a?b#c", true}, {"uri", "relative/path", false},
		{"uri-reference", "relative/path", true}, {"uri-template", "https://x/{a}/{b", false},
		{"uuid", "123e4567-e89b-12d3-a456-426614174000", true}, {"uuid", "123e4567e89b12d3a456426614174000", false},
		{"regex", "(a", false}, {"json-pointer", "/a~2", false}, {"json-pointer", "/a~1b", true},
		{"relative-json-pointer", "0#", true}, {"relative-json-pointer", "01/a", false},
		{"not-a-format", "anything", true},
	} {
		schema := json.RawMessage(`{"format":"` + tt.format + `"}`)
		arg, _ := json.Marshal(tt.value)
		got, ok := NewCache().Check(schema, arg)
		if ok != tt.valid {
			t.Errorf("%s %q: check = %q, %v; want valid=%v", tt.format, tt.value, got, ok, tt.valid)
		}
	}
}

// FuzzSchemaCheck checks that any schema and arguments give an answer (no
// panic, no endless $ref loop) and the same answer every time.
func FuzzSchemaCheck(f *testing.F) {
	f.Add(`{"type":"object","properties":{"a":{"$ref":"#"}},"required":["b"]}`, `{"a":{"a":1}}`)
	f.Add(`{"allOf":[{"$ref":"#"}]}`, `{}`)
	f.Add(`{"$schema":"https://json-schema.org/draft/2020-12/schema","$dynamicAnchor":"n","items":{"$dynamicRef":"#n"}}`, `[[1,[2]]]`)
	f.Add(`{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}`, `1`)
	f.Add(`{"anyOf":[{"format":"email"},{"minimum":3}],"unevaluatedProperties":false}`, `{"x":[]}`)
	f.Fuzz(func(t *testing.T, schema, args string) {
		if !json.Valid([]byte(args)) {
			return
		}
		a, okA := NewCache().Check(json.RawMessage(schema), json.RawMessage(args))
		b, okB := NewCache().Check(json.RawMessage(schema), json.RawMessage(args))
		if a != b || okA != okB {
			t.Fatalf("two checks disagree: %q, %v and %q, %v", a, okA, b, okB)
		}
	})
}
