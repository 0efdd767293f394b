package loop

import (
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// schemaIssue is one validation problem: the instance path it concerns (for
// ordering) and its wording for the model.
type schemaIssue struct {
	path string
	msg  string
}

// collectIssues flattens a validation error tree into the messages of spec
// 01 §4.10.3. The wording follows the widely known JSON Schema validator
// messages models have seen in training ("must have required property
// 'x'", "/n must be >= 1"), not the Go library's own.
func collectIssues(ve *jsonschema.ValidationError, out []schemaIssue) []schemaIssue {
	path := instancePath(ve.InstanceLocation)
	add := func(msg string) { out = append(out, schemaIssue{path, msg}) }
	descend := func() {
		for _, c := range ve.Causes {
			out = collectIssues(c, out)
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
		add(withPath(path, kindMessage(ve.ErrorKind)))
	}
	return out
}

func withPath(path, msg string) string {
	if path == "" {
		return msg
	}
	return path + " " + msg
}

// instancePath renders a location as a JSON Pointer ("/a/0/b").
func instancePath(loc []string) string {
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

// kindMessage words a single failed keyword.
func kindMessage(k jsonschema.ErrorKind) string {
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

func dependencyMessage(prop string, missing []string) string {
	noun := "property"
	if len(missing) > 1 {
		noun = "properties"
	}
	return fmt.Sprintf("must have %s %s when property %s is present", noun, strings.Join(missing, ", "), prop)
}

// ratString prints a schema number the way JSON writes it: 1, 0.5, 1e+21.
func ratString(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}
