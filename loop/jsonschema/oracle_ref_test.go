package jsonschema

// The oracle: the argument validator as it was built on
// github.com/santhosh-tekuri/jsonschema/v6, kept as a test-only reference.
// kimigo's own validator (this package) replaced it because that library
// compiles five metaschemas in its init, about 10 ms on every start of the
// command; oracle_test.go checks that both still agree. The library is a
// test dependency only and is not linked into kimigo.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

const oracleSchemaURL = "mem://kimigo/tool-parameters.json"

// oracleCompileSchema compiles a tool's parameters with the dialect of spec 01
// §4.10.3: $schema picks 2020-12 or 2019-09 when it names them and draft-07
// otherwise; without $schema, keywords of the newer drafts decide. Unknown
// keywords are ignored and formats are asserted. Remote and file $refs are
// refused: a tool's schema must be self-contained.
func oracleCompileSchema(schema []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, fmt.Errorf("invalid parameters schema: %w", err)
	}
	dialect := oracleDraft(detectDraft(doc))
	if m, ok := doc.(map[string]any); ok {
		if _, has := m["$schema"]; has {
			m = maps.Clone(m)
			delete(m, "$schema") // the dialect is decided above
			doc = m
		}
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(dialect)
	c.AssertFormat()
	c.UseLoader(oracleRefusingLoader{})
	if err := c.AddResource(oracleSchemaURL, doc); err != nil {
		return nil, fmt.Errorf("invalid parameters schema: %w", err)
	}
	sch, err := c.Compile(oracleSchemaURL)
	if err != nil {
		return nil, fmt.Errorf("invalid parameters schema: %w", err)
	}
	return sch, nil
}

type oracleRefusingLoader struct{}

func (oracleRefusingLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external schema %s is not allowed", url)
}

// oracleSchemaIssue is one validation problem: the instance path it concerns (for
// ordering) and its wording for the model.
type oracleSchemaIssue struct {
	path string
	msg  string
}

// oracleCollectIssues flattens a validation error tree into the messages of spec
// 01 §4.10.3. The wording follows the widely known JSON Schema validator
// messages models have seen in training ("must have required property
// 'x'", "/n must be >= 1"), not the Go library's own.
func oracleCollectIssues(ve *jsonschema.ValidationError, out []oracleSchemaIssue) []oracleSchemaIssue {
	path := oracleInstancePath(ve.InstanceLocation)
	add := func(msg string) { out = append(out, oracleSchemaIssue{path, msg}) }
	descend := func() {
		for _, c := range ve.Causes {
			out = oracleCollectIssues(c, out)
		}
	}
	switch k := ve.ErrorKind.(type) {
	case *kind.Schema, *kind.Group, *kind.Reference, *kind.AllOf:
		descend()
	case *kind.Required:
		for _, name := range k.Missing {
			add(fmt.Sprintf("must have required property '%s'", name))
		}
	case *kind.AdditionalProperties:
		for _, name := range slices.Sorted(slices.Values(k.Properties)) {
			add(fmt.Sprintf("must NOT have additional property '%s'", name))
		}
	case *kind.AnyOf:
		descend()
		add(withPath(path, "must match a schema in anyOf"))
	case *kind.OneOf:
		descend()
		add(withPath(path, "must match exactly one schema in oneOf"))
	default:
		add(withPath(path, oracleKindMessage(ve.ErrorKind)))
	}
	return out
}

// oracleInstancePath renders a location as a JSON Pointer ("/a/0/b").
func oracleInstancePath(loc []string) string {
	if len(loc) == 0 {
		return ""
	}
	var b strings.Builder
	for _, tok := range loc {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1"))
	}
	return b.String()
}

// oracleKindMessage words a single failed keyword.
func oracleKindMessage(k jsonschema.ErrorKind) string {
	switch k := k.(type) {
	case *kind.Type:
		return "must be " + strings.Join(k.Want, ",")
	case *kind.Enum:
		return "must be equal to one of the allowed values"
	case *kind.Const:
		return "must be equal to constant"
	case *kind.Format:
		return fmt.Sprintf("must match format %q", k.Want)
	case *kind.Pattern:
		return fmt.Sprintf("must match pattern %q", k.Want)
	case *kind.MinLength:
		return fmt.Sprintf("must NOT have fewer than %d characters", k.Want)
	case *kind.MaxLength:
		return fmt.Sprintf("must NOT have more than %d characters", k.Want)
	case *kind.MinItems:
		return fmt.Sprintf("must NOT have fewer than %d items", k.Want)
	case *kind.MaxItems:
		return fmt.Sprintf("must NOT have more than %d items", k.Want)
	case *kind.AdditionalItems:
		return "must NOT have additional items"
	case *kind.MinProperties:
		return fmt.Sprintf("must NOT have fewer than %d properties", k.Want)
	case *kind.MaxProperties:
		return fmt.Sprintf("must NOT have more than %d properties", k.Want)
	case *kind.Minimum:
		return "must be >= " + ratString(k.Want)
	case *kind.Maximum:
		return "must be <= " + ratString(k.Want)
	case *kind.ExclusiveMinimum:
		return "must be > " + ratString(k.Want)
	case *kind.ExclusiveMaximum:
		return "must be < " + ratString(k.Want)
	case *kind.MultipleOf:
		return "must be multiple of " + ratString(k.Want)
	case *kind.UniqueItems:
		return fmt.Sprintf("must NOT have duplicate items (items ## %d and %d are identical)", k.Duplicates[1], k.Duplicates[0])
	case *kind.Contains:
		return "must contain at least 1 valid item(s)"
	case *kind.MinContains:
		return fmt.Sprintf("must contain at least %d valid item(s)", k.Want)
	case *kind.MaxContains:
		return fmt.Sprintf("must contain at most %d valid item(s)", k.Want)
	case *kind.Dependency:
		return dependencyMessage(k.Prop, k.Missing)
	case *kind.DependentRequired:
		return dependencyMessage(k.Prop, k.Missing)
	case *kind.PropertyNames:
		return "property name must be valid"
	case *kind.Not:
		return "must NOT be valid"
	case *kind.FalseSchema:
		return "boolean schema is false"
	}
	if kw := k.KeywordPath(); len(kw) > 0 {
		return fmt.Sprintf("must pass %q keyword validation", kw[len(kw)-1])
	}
	return "is invalid"
}

// oracleDraft is the library's draft for the one kimigo's validator
// detects, so both validators read a schema in the same dialect.
func oracleDraft(d draft) *jsonschema.Draft {
	switch d {
	case draft2020:
		return jsonschema.Draft2020
	case draft2019:
		return jsonschema.Draft2019
	}
	return jsonschema.Draft7
}

// oracleCheck validates args against a schema oracleCompileSchema
// compiled, with the messages the library-based validator gave.
func oracleCheck(sch *jsonschema.Schema, args json.RawMessage) (string, bool) {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return err.Error(), false
	}
	err = sch.Validate(v)
	if err == nil {
		return "", true
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err.Error(), false
	}
	issues := oracleCollectIssues(ve, nil)
	if len(issues) == 0 {
		return "Tool parameter validation failed", false
	}
	sort.SliceStable(issues, func(i, j int) bool { return issues[i].path < issues[j].path })
	msgs := make([]string, len(issues))
	for i, is := range issues {
		msgs[i] = is.msg
	}
	return strings.Join(msgs, "; "), false
}
