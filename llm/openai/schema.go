package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/kimigo/kimigo/llm/plainjson"
)

// maxSchemaNodes bounds $ref expansion, which can grow exponentially when
// definitions refer to each other several times.
const maxSchemaNodes = 200_000

var errSchemaTooLarge = errors.New("schema grows past 200000 nodes when $refs are expanded")

// Schema keywords used by the type filling of spec 01 §3.2.4.
var (
	combinatorKeys = []string{"$ref", "allOf", "anyOf", "else", "if", "not", "oneOf", "then"}
	objectKeys     = []string{"dependencies", "dependentSchemas", "patternProperties", "properties",
		"additionalProperties", "propertyNames", "unevaluatedProperties", "dependentRequired",
		"maxProperties", "minProperties", "required"}
	arrayKeys = []string{"additionalItems", "contains", "unevaluatedItems", "prefixItems", "items",
		"maxContains", "maxItems", "minContains", "minItems", "uniqueItems"}
	stringKeys  = []string{"contentSchema", "contentEncoding", "contentMediaType", "format", "maxLength", "minLength", "pattern"}
	numericKeys = []string{"exclusiveMaximum", "exclusiveMinimum", "maximum", "minimum", "multipleOf"}

	schemaMapSlots    = []string{"$defs", "definitions", "dependencies", "dependentSchemas", "patternProperties", "properties"}
	schemaSingleSlots = []string{"additionalItems", "additionalProperties", "contains", "contentSchema", "else", "if",
		"not", "propertyNames", "then", "unevaluatedItems", "unevaluatedProperties"}
	schemaArraySlots = []string{"allOf", "anyOf", "oneOf", "prefixItems"}
	defBuckets       = []string{"$defs", "definitions"}
)

// NormalizeKimiSchema returns a tool parameter schema in the form Kimi
// accepts (spec 01 §3.2.4): local $refs inlined (cycles and unknown refs left
// as they are), unused definition buckets dropped, and a "type" on every
// child schema that lacks one, inferred from enum, const or structure. A
// typed enum or const whose values have another type gets the values' type.
// The input is never modified. An enum or const mixing types where a type
// must be inferred is an error. A schema that is not a JSON object is
// returned unchanged.
func NormalizeKimiSchema(raw json.RawMessage) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("decode schema: %w", err)
	}
	root, ok := v.(map[string]any)
	if !ok {
		return raw, nil
	}
	d := &derefer{root: root}
	out, err := d.deref(root, nil)
	if err != nil {
		return nil, err
	}
	schema, ok := out.(map[string]any)
	if !ok {
		return raw, nil
	}
	dropUnusedDefs(schema)
	if err := fillChildren(schema); err != nil {
		return nil, err
	}
	b, err := plainjson.Marshal(schema)
	if err != nil {
		return nil, fmt.Errorf("encode schema: %w", err)
	}
	return b, nil
}

// derefer inlines local $refs. Every object it returns is freshly built, so
// nothing in the result aliases the decoded input or another part of the
// result.
type derefer struct {
	root  map[string]any
	nodes int
}

func (d *derefer) deref(v any, path []string) (any, error) {
	if d.nodes++; d.nodes > maxSchemaNodes {
		return nil, errSchemaTooLarge
	}
	switch x := v.(type) {
	case map[string]any:
		if ref, ok := x["$ref"].(string); ok && strings.HasPrefix(ref, "#") {
			return d.derefRef(x, ref, path)
		}
		out := make(map[string]any, len(x))
		for k, sv := range x {
			r, err := d.deref(sv, path)
			if err != nil {
				return nil, err
			}
			out[k] = r
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, sv := range x {
			r, err := d.deref(sv, path)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	}
	return v, nil
}

// derefRef replaces a $ref node by its target merged with the node's other
// keys (which win). A ref on the current resolution path is a cycle and an
// unresolvable ref is unknown; both are left as they are.
func (d *derefer) derefRef(x map[string]any, ref string, path []string) (any, error) {
	if slices.Contains(path, ref) {
		return deepCopy(x), nil
	}
	target, ok := resolvePointer(d.root, ref)
	if !ok {
		return deepCopy(x), nil
	}
	resolved, err := d.deref(target, append(slices.Clip(path), ref))
	if err != nil {
		return nil, err
	}
	obj, ok := resolved.(map[string]any)
	if !ok {
		if len(x) == 1 {
			return resolved, nil
		}
		return deepCopy(x), nil
	}
	for k, sv := range x {
		if k == "$ref" {
			continue
		}
		r, err := d.deref(sv, path)
		if err != nil {
			return nil, err
		}
		obj[k] = r
	}
	return obj, nil
}

// resolvePointer follows a local JSON pointer ("#" or "#/a/b") with ~1 and
// ~0 unescaped and decimal array indexes without leading zeros.
func resolvePointer(root map[string]any, ref string) (any, bool) {
	if ref == "#" {
		return root, true
	}
	if !strings.HasPrefix(ref, "#/") {
		return nil, false
	}
	var cur any = root
	for _, seg := range strings.Split(ref[2:], "/") {
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[seg]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			if seg == "" || (len(seg) > 1 && seg[0] == '0') {
				return nil, false
			}
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, sv := range x {
			out[k] = deepCopy(sv)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, sv := range x {
			out[i] = deepCopy(sv)
		}
		return out
	}
	return v
}

// dropUnusedDefs removes the top-level definition buckets unless a $ref left
// in the schema still points into them.
func dropUnusedDefs(schema map[string]any) {
	var refs []string
	collectRefs(schema, &refs)
	for _, b := range defBuckets {
		if _, ok := schema[b]; !ok {
			continue
		}
		used := slices.ContainsFunc(refs, func(r string) bool {
			return r == "#/"+b || strings.HasPrefix(r, "#/"+b+"/")
		})
		if !used {
			delete(schema, b)
		}
	}
}

func collectRefs(v any, refs *[]string) {
	switch x := v.(type) {
	case map[string]any:
		if r, ok := x["$ref"].(string); ok {
			*refs = append(*refs, r)
		}
		for _, sv := range x {
			collectRefs(sv, refs)
		}
	case []any:
		for _, sv := range x {
			collectRefs(sv, refs)
		}
	}
}

// fillChildren visits the child schemas of node in a fixed order (so the
// first conflict reported is stable).
func fillChildren(node map[string]any) error {
	visit := func(v any) error {
		if m, ok := v.(map[string]any); ok {
			return fillNode(m)
		}
		return nil
	}
	for _, slot := range schemaMapSlots {
		m, ok := node[slot].(map[string]any)
		if !ok {
			continue
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if err := visit(m[k]); err != nil {
				return fmt.Errorf("%s.%s: %w", slot, k, err)
			}
		}
	}
	for _, slot := range schemaSingleSlots {
		if err := visit(node[slot]); err != nil {
			return fmt.Errorf("%s: %w", slot, err)
		}
	}
	for _, slot := range schemaArraySlots {
		arr, _ := node[slot].([]any)
		for i, v := range arr {
			if err := visit(v); err != nil {
				return fmt.Errorf("%s[%d]: %w", slot, i, err)
			}
		}
	}
	switch items := node["items"].(type) {
	case map[string]any:
		if err := fillNode(items); err != nil {
			return fmt.Errorf("items: %w", err)
		}
	case []any:
		for i, v := range items {
			if err := visit(v); err != nil {
				return fmt.Errorf("items[%d]: %w", i, err)
			}
		}
	}
	return nil
}

// fillNode gives an untyped node a type, corrects a typed enum/const node
// whose values disagree with its type, then recurses.
func fillNode(n map[string]any) error {
	if !hasAny(n, combinatorKeys) {
		t, hasType := n["type"]
		switch ts, isString := t.(string); {
		case !hasType:
			inferred, err := inferType(n)
			if err != nil {
				return err
			}
			n["type"] = inferred
		case isString:
			if inferred, ok, err := valuesType(n); err == nil && ok && inferred != ts {
				n["type"] = inferred
				if inferred != "object" {
					deleteKeys(n, objectKeys)
				}
				if inferred != "array" {
					deleteKeys(n, arrayKeys)
				}
			}
		}
	}
	return fillChildren(n)
}

// inferType infers a missing type from enum, const, or structure keywords.
func inferType(n map[string]any) (string, error) {
	if t, ok, err := valuesType(n); err != nil || ok {
		return t, err
	}
	switch {
	case hasAny(n, objectKeys):
		return "object", nil
	case hasAny(n, arrayKeys):
		return "array", nil
	case hasAny(n, stringKeys):
		return "string", nil
	case hasAny(n, numericKeys):
		return "number", nil
	}
	return "string", nil
}

// valuesType is the type of a non-empty enum's values, else of const. ok is
// false when the node has neither.
func valuesType(n map[string]any) (t string, ok bool, err error) {
	if enum, isArr := n["enum"].([]any); isArr && len(enum) > 0 {
		seen := map[string]bool{}
		for _, v := range enum {
			seen[valueType(v)] = true
		}
		if seen["integer"] && seen["number"] {
			delete(seen, "integer")
		}
		if len(seen) > 1 {
			types := slices.Sorted(maps.Keys(seen))
			return "", false, fmt.Errorf("enum mixes the types %s", strings.Join(types, ", "))
		}
		for t := range seen {
			return t, true, nil
		}
	}
	if c, has := n["const"]; has {
		return valueType(c), true, nil
	}
	return "", false, nil
}

func valueType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case []any:
		return "array"
	case string:
		return "string"
	case bool:
		return "boolean"
	case map[string]any:
		return "object"
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err == nil && !math.IsInf(f, 0) && f == math.Trunc(f) {
			return "integer"
		}
		return "number"
	}
	return "string"
}

func hasAny(n map[string]any, keys []string) bool {
	for _, k := range keys {
		if _, ok := n[k]; ok {
			return true
		}
	}
	return false
}

func deleteKeys(n map[string]any, keys []string) {
	for _, k := range keys {
		delete(n, k)
	}
}
