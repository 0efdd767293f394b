package jsonschema

import (
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
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
// 'x'", "/n must be >= 1"). Groups only pass their causes on; anyOf and
// oneOf add their own message after their causes'.
func collectIssues(se *schemaErr, out []schemaIssue) []schemaIssue {
	path := instancePath(se.path)
	add := func(msg string) { out = append(out, schemaIssue{path, msg}) }
	descend := func() {
		for _, c := range se.causes {
			out = collectIssues(c, out)
		}
	}
	switch se.kind {
	case errGroup:
		descend()
	case errRequired:
		for _, name := range se.names {
			add(fmt.Sprintf("must have required property '%s'", name))
		}
	case errAdditional:
		for _, name := range slices.Sorted(slices.Values(se.names)) {
			add(fmt.Sprintf("must NOT have additional property '%s'", name))
		}
	case errAnyOf:
		descend()
		add(withPath(path, "must match a schema in anyOf"))
	case errOneOf:
		descend()
		add(withPath(path, "must match exactly one schema in oneOf"))
	default:
		add(withPath(path, se.msg))
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
	return pointerSuffix(loc)
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
