package jsonschema

import (
	"fmt"
	"maps"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// nodeParser fills one node from its keywords; the first problem stops it.
type nodeParser struct {
	c     *schemaCompiler
	n     *schemaNode
	m     map[string]any
	canon string
	base  string
	err   error
}

func (p *nodeParser) fail(kw, format string, args ...any) {
	if p.err == nil {
		p.err = fmt.Errorf("%s: %s %s", p.c.where(p.canon), kw, fmt.Sprintf(format, args...))
	}
}

// sub compiles the subschema at kw (+ tokens).
func (p *nodeParser) sub(toks ...string) *schemaNode {
	if p.err != nil {
		return nil
	}
	canon := p.c.alias[p.canon+pointerSuffix(toks)]
	if canon == "" {
		p.err = fmt.Errorf("%s: must be a schema", p.c.where(p.canon+pointerSuffix(toks)))
		return nil
	}
	n, err := p.c.compile(canon)
	if err != nil {
		p.err = err
	}
	return n
}

func (p *nodeParser) optSub(kw string) *schemaNode {
	if _, ok := p.m[kw]; !ok {
		return nil
	}
	return p.sub(kw)
}

func (p *nodeParser) subList(kw string) []*schemaNode {
	v, ok := p.m[kw]
	if !ok {
		return nil
	}
	arr, ok := v.([]any)
	if !ok || len(arr) == 0 {
		p.fail(kw, "must be a non-empty array of schemas")
		return nil
	}
	out := make([]*schemaNode, len(arr))
	for i := range arr {
		out[i] = p.sub(kw, strconv.Itoa(i))
	}
	return out
}

func (p *nodeParser) count(kw string) *int {
	v, ok := p.m[kw]
	if !ok {
		return nil
	}
	r := jsonRat(v)
	if r == nil || !r.IsInt() || r.Sign() < 0 || !r.Num().IsInt64() {
		p.fail(kw, "must be a non-negative integer")
		return nil
	}
	i := int(r.Num().Int64())
	return &i
}

func (p *nodeParser) number(kw string) *big.Rat {
	v, ok := p.m[kw]
	if !ok {
		return nil
	}
	r := jsonRat(v)
	if r == nil {
		p.fail(kw, "must be a number")
	}
	return r
}

func (p *nodeParser) strings(kw string) []string {
	v, ok := p.m[kw]
	if !ok {
		return nil
	}
	arr, ok := v.([]any)
	if !ok {
		p.fail(kw, "must be an array of strings")
		return nil
	}
	out := make([]string, 0, len(arr))
	for _, e := range arr {
		s, ok := e.(string)
		if !ok {
			p.fail(kw, "must be an array of strings")
			return nil
		}
		out = append(out, s)
	}
	return out
}

func (p *nodeParser) ref(kw string) *schemaNode {
	v, ok := p.m[kw]
	if !ok {
		return nil
	}
	s, ok := v.(string)
	if !ok {
		p.fail(kw, "must be a string")
		return nil
	}
	if p.err != nil {
		return nil
	}
	canon, err := p.c.lookup(p.base, s)
	if err != nil {
		p.err = err
		return nil
	}
	n, err := p.c.compile(canon)
	if err != nil {
		p.err = err
	}
	return n
}

func (p *nodeParser) parse() {
	n, m, d := p.n, p.m, p.c.draft
	if d == draft7 {
		if _, ok := m["$ref"]; ok { // draft-07: $ref stands alone
			n.ref = p.ref("$ref")
			return
		}
	}
	if d == draft2019 {
		n.recursiveAnchor, _ = m["$recursiveAnchor"].(bool)
	}
	if d == draft2020 {
		if a, ok := m["$dynamicAnchor"].(string); ok && a != "" {
			if n.res.dynamicAnchors == nil {
				n.res.dynamicAnchors = map[string]*schemaNode{}
			}
			n.res.dynamicAnchors[a] = n
		}
	}
	p.parseType()
	if v, ok := m["const"]; ok {
		n.konst = &v
	}
	if v, ok := m["enum"]; ok {
		if arr, ok := v.([]any); ok {
			n.enum = arr
		} else {
			p.fail("enum", "must be an array")
		}
	}
	if v, ok := m["format"]; ok {
		if s, ok := v.(string); ok {
			n.format = lookupFormat(s)
		} else {
			p.fail("format", "must be a string")
		}
	}
	n.ref = p.ref("$ref")
	if d == draft2019 {
		if s, ok := m["$recursiveRef"].(string); ok && s != "#" {
			p.fail("$recursiveRef", `must be "#"`)
		}
		n.recursiveRef = p.ref("$recursiveRef")
	}
	if d == draft2020 {
		n.dynamicRef = p.ref("$dynamicRef")
		if s, ok := m["$dynamicRef"].(string); ok {
			if _, frag, _ := strings.Cut(s, "#"); frag != "" && !strings.HasPrefix(frag, "/") {
				n.dynamicAnchor = frag
			}
		}
	}
	p.parseObject()
	p.parseArray()
	n.minLength, n.maxLength = p.count("minLength"), p.count("maxLength")
	if v, ok := m["pattern"]; ok {
		s, _ := v.(string)
		re, err := regexp.Compile(s)
		if _, isStr := v.(string); !isStr || err != nil {
			p.fail("pattern", "must be a valid regular expression")
		}
		n.pattern, n.patternText = re, s
	}
	n.minimum, n.maximum = p.number("minimum"), p.number("maximum")
	n.exclusiveMin, n.exclusiveMax = p.number("exclusiveMinimum"), p.number("exclusiveMaximum")
	if n.multipleOf = p.number("multipleOf"); n.multipleOf != nil && n.multipleOf.Sign() <= 0 {
		p.fail("multipleOf", "must be greater than 0")
	}
	n.not = p.optSub("not")
	n.allOf, n.anyOf, n.oneOf = p.subList("allOf"), p.subList("anyOf"), p.subList("oneOf")
	if _, ok := m["if"]; ok {
		n.ifS, n.thenS, n.elseS = p.sub("if"), p.optSub("then"), p.optSub("else")
	}
	// Definitions are compiled even when nothing refers to them: a broken
	// one is a broken schema, and their $dynamicAnchors count.
	for _, kw := range []string{"definitions", "$defs"} {
		if defs, ok := m[kw].(map[string]any); ok {
			for _, k := range slices.Sorted(maps.Keys(defs)) {
				p.sub(kw, k)
			}
		}
	}
}

func (p *nodeParser) parseType() {
	v, ok := p.m["type"]
	if !ok {
		return
	}
	var names []string
	switch t := v.(type) {
	case string:
		names = []string{t}
	case []any:
		for _, e := range t {
			s, ok := e.(string)
			if !ok {
				p.fail("type", "must be a type name or an array of them")
				return
			}
			names = append(names, s)
		}
	default:
		p.fail("type", "must be a type name or an array of them")
		return
	}
	for _, name := range names {
		if !slices.Contains(typeNames, name) {
			p.fail("type", "has unknown type %q", name)
			return
		}
	}
	for _, name := range typeNames {
		if slices.Contains(names, name) {
			p.n.types = append(p.n.types, name)
		}
	}
}

func (p *nodeParser) parseObject() {
	n, m, d := p.n, p.m, p.c.draft
	n.minProps, n.maxProps = p.count("minProperties"), p.count("maxProperties")
	n.required = p.strings("required")
	for i, name := range n.required {
		if slices.Contains(n.required[:i], name) {
			p.fail("required", "lists %q twice", name)
		}
	}
	if props, ok := m["properties"]; ok {
		pm, ok := props.(map[string]any)
		if !ok {
			p.fail("properties", "must be an object")
		}
		n.properties = make(map[string]*schemaNode, len(pm))
		for k := range pm {
			n.properties[k] = p.sub("properties", k)
		}
	}
	if pp, ok := m["patternProperties"]; ok {
		pm, ok := pp.(map[string]any)
		if !ok {
			p.fail("patternProperties", "must be an object")
		}
		for _, k := range slices.Sorted(maps.Keys(pm)) {
			re, err := regexp.Compile(k)
			if err != nil {
				p.fail("patternProperties", "has an invalid regular expression %q", k)
				return
			}
			n.patternProps = append(n.patternProps, patternSchema{re, p.sub("patternProperties", k)})
		}
	}
	n.additionalProps = p.optSub("additionalProperties")
	n.propertyNames = p.optSub("propertyNames")
	if d == draft7 {
		n.dependencies = p.dependencies("dependencies", true, true)
	} else {
		n.dependentSchemas = p.dependencies("dependentSchemas", false, true)
		n.dependentRequired = p.dependencies("dependentRequired", true, false)
		n.unevaluatedProps = p.optSub("unevaluatedProperties")
		n.unevaluatedItems = p.optSub("unevaluatedItems")
	}
}

func (p *nodeParser) dependencies(kw string, lists, schemas bool) []schemaDependency {
	v, ok := p.m[kw]
	if !ok {
		return nil
	}
	dm, ok := v.(map[string]any)
	if !ok {
		p.fail(kw, "must be an object")
		return nil
	}
	var out []schemaDependency
	for _, k := range slices.Sorted(maps.Keys(dm)) {
		if arr, isArr := dm[k].([]any); isArr && lists {
			dep := schemaDependency{prop: k, required: []string{}}
			for _, e := range arr {
				s, ok := e.(string)
				if !ok {
					p.fail(kw, "must list property names")
					return nil
				}
				dep.required = append(dep.required, s)
			}
			out = append(out, dep)
		} else if schemas {
			out = append(out, schemaDependency{prop: k, sch: p.sub(kw, k)})
		} else {
			p.fail(kw, "must list property names")
			return nil
		}
	}
	return out
}

func (p *nodeParser) parseArray() {
	n, m, d := p.n, p.m, p.c.draft
	n.minItems, n.maxItems = p.count("minItems"), p.count("maxItems")
	if v, ok := m["uniqueItems"]; ok {
		if n.uniqueItems, ok = v.(bool); !ok {
			p.fail("uniqueItems", "must be a boolean")
		}
	}
	if d == draft2020 {
		if v, ok := m["prefixItems"]; ok {
			arr, _ := v.([]any)
			for i := range arr {
				n.itemsTuple = append(n.itemsTuple, p.sub("prefixItems", strconv.Itoa(i)))
			}
		}
		n.items = p.optSub("items")
	} else {
		if arr, ok := m["items"].([]any); ok {
			n.itemsTuple = make([]*schemaNode, 0, len(arr))
			for i := range arr {
				n.itemsTuple = append(n.itemsTuple, p.sub("items", strconv.Itoa(i)))
			}
		} else {
			n.items = p.optSub("items")
		}
		n.additionalItems = p.optSub("additionalItems")
	}
	n.contains = p.optSub("contains")
	if d >= draft2019 {
		n.minContains, n.maxContains = p.count("minContains"), p.count("maxContains")
	}
}
