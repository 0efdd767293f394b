package jsonschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// draft is a JSON Schema dialect a tool's parameters are read in (spec 01
// §4.10.3).
type draft int

const (
	draft7 draft = iota
	draft2019
	draft2020
)

func (d draft) String() string {
	switch d {
	case draft2019:
		return "2019-09"
	case draft2020:
		return "2020-12"
	}
	return "draft-07"
}

// schemaNode is one compiled schema or subschema. A nil pointer field is
// an absent keyword. Nodes may form cycles through $ref.
type schemaNode struct {
	loc     string // canonical location: resource URL + "#" + JSON Pointer
	draft   draft
	boolean *bool // a true or false schema; nothing else is set
	res     *schemaNode
	// resource-level: set on the node that starts a resource
	recursiveAnchor bool
	dynamicAnchors  map[string]*schemaNode

	types  []string // in typeNames order
	konst  *any
	enum   []any
	format *schemaFormat

	ref, recursiveRef *schemaNode
	dynamicRef        *schemaNode
	dynamicAnchor     string // the plain-name fragment of $dynamicRef, if any

	// objects
	minProps, maxProps   *int
	required             []string
	dependencies         []schemaDependency // draft-07, sorted by property
	properties           map[string]*schemaNode
	patternProps         []patternSchema
	additionalProps      *schemaNode
	propertyNames        *schemaNode
	dependentSchemas     []schemaDependency // sorted by property
	dependentRequired    []schemaDependency // sorted by property
	unevaluatedProps     *schemaNode
	unevaluatedItems     *schemaNode
	minItems, maxItems   *int
	uniqueItems          bool
	items                *schemaNode   // draft-07/2019 single schema, 2020 after prefixItems
	itemsTuple           []*schemaNode // draft-07/2019 array form; 2020 prefixItems
	additionalItems      *schemaNode
	contains             *schemaNode
	minContains          *int
	maxContains          *int
	minLength, maxLength *int
	pattern              *regexp.Regexp
	patternText          string
	minimum, maximum     *big.Rat
	exclusiveMin         *big.Rat
	exclusiveMax         *big.Rat
	multipleOf           *big.Rat

	not, ifS, thenS, elseS *schemaNode
	allOf, anyOf, oneOf    []*schemaNode
}

type patternSchema struct {
	re  *regexp.Regexp
	sch *schemaNode
}

// schemaDependency is one entry of dependencies, dependentSchemas or
// dependentRequired: a schema or the properties required when prop is
// present.
type schemaDependency struct {
	prop     string
	required []string
	sch      *schemaNode
}

// typeNames is the order types are listed in "must be ..." messages.
var typeNames = []string{"null", "boolean", "number", "integer", "string", "array", "object"}

// schemaCompiler turns a parsed schema document into nodes. It indexes
// every subschema by its canonical location first, so that $ref, $anchor,
// $id and $dynamicAnchor targets resolve, then compiles nodes on demand.
type schemaCompiler struct {
	draft     draft
	raw       map[string]any         // canonical location → schema value
	base      map[string]string      // canonical location → its resource URL
	alias     map[string]string      // any location or anchor → canonical location
	resources map[string]any         // resource URL → its root value
	nodes     map[string]*schemaNode // compiled, by canonical location
}

// compileSchemaDoc compiles doc (decoded with UseNumber) as a
// self-contained schema at base in dialect d.
func compileSchemaDoc(doc any, base string, d draft) (*schemaNode, error) {
	c := &schemaCompiler{draft: d, raw: map[string]any{}, base: map[string]string{}, alias: map[string]string{},
		resources: map[string]any{}, nodes: map[string]*schemaNode{}}
	c.resources[base] = doc
	c.index(doc, base, []resPointer{{base, ""}})
	return c.compile(c.alias[base+"#"])
}

// resPointer is a location relative to one enclosing resource.
type resPointer struct{ res, ptr string }

func (c *schemaCompiler) index(v any, base string, at []resPointer) {
	m, isObj := v.(map[string]any)
	if _, isBool := v.(bool); !isObj && !isBool {
		return // not a schema; compile reports it
	}
	if isObj {
		if id, ok := m["$id"].(string); ok && id != "" {
			if _, hasRef := m["$ref"]; !(c.draft == draft7 && hasRef) {
				if strings.HasPrefix(id, "#") && c.draft == draft7 {
					// a draft-07 anchor, added below
				} else if u, err := resolveURL(base, id); err == nil {
					base, _, _ = strings.Cut(u, "#")
					c.resources[base] = v
					at = append(slices.Clip(at), resPointer{base, ""})
				}
			}
		}
	}
	inner := at[len(at)-1]
	canon := inner.res + "#" + inner.ptr
	if _, seen := c.raw[canon]; seen {
		return
	}
	c.raw[canon], c.base[canon] = v, base
	for _, p := range at {
		c.alias[p.res+"#"+p.ptr] = canon
	}
	if !isObj {
		return
	}
	addAnchor := func(name string) {
		if name != "" {
			c.alias[base+"#"+name] = canon
		}
	}
	if id, ok := m["$id"].(string); ok && c.draft == draft7 && strings.HasPrefix(id, "#") {
		addAnchor(id[1:])
	}
	if c.draft >= draft2019 {
		a, _ := m["$anchor"].(string)
		addAnchor(a)
	}
	if c.draft == draft2020 {
		a, _ := m["$dynamicAnchor"].(string)
		addAnchor(a)
	}
	child := func(sub any, toks ...string) {
		next := make([]resPointer, len(at))
		for i, p := range at {
			next[i] = resPointer{p.res, p.ptr + pointerSuffix(toks)}
		}
		c.index(sub, base, next)
	}
	for _, kw := range []string{"additionalItems", "additionalProperties", "contains", "propertyNames", "not",
		"if", "then", "else", "unevaluatedItems", "unevaluatedProperties", "items"} {
		if sub, ok := m[kw]; ok {
			if arr, ok := sub.([]any); ok && kw == "items" {
				for i, s := range arr {
					child(s, kw, strconv.Itoa(i))
				}
				continue
			}
			child(sub, kw)
		}
	}
	for _, kw := range []string{"properties", "patternProperties", "definitions", "$defs", "dependentSchemas", "dependencies"} {
		if subs, ok := m[kw].(map[string]any); ok {
			for k, s := range subs {
				child(s, kw, k)
			}
		}
	}
	for _, kw := range []string{"allOf", "anyOf", "oneOf", "prefixItems"} {
		if arr, ok := m[kw].([]any); ok {
			for i, s := range arr {
				child(s, kw, strconv.Itoa(i))
			}
		}
	}
}

func pointerSuffix(toks []string) string {
	var b strings.Builder
	for _, t := range toks {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1"))
	}
	return b.String()
}

func resolveURL(base, ref string) (string, error) {
	b, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	r, err := url.Parse(ref)
	if err != nil {
		return "", err
	}
	return b.ResolveReference(r).String(), nil
}

// lookup finds the canonical location ref names, relative to base. A
// pointer into a known resource that the index did not reach (a schema
// under an unknown keyword) is indexed on the way.
func (c *schemaCompiler) lookup(base, ref string) (string, error) {
	full, err := resolveURL(base, ref)
	if err != nil {
		return "", fmt.Errorf("$ref %q: %v", ref, err)
	}
	res, frag, _ := strings.Cut(full, "#")
	if u, err := url.Parse(full); err == nil {
		frag = u.Fragment
	}
	if canon, ok := c.alias[res+"#"+frag]; ok && canon != "" {
		return canon, nil
	}
	root, known := c.resources[res]
	if !known {
		return "", fmt.Errorf("external schema %s is not allowed", full)
	}
	if frag != "" && !strings.HasPrefix(frag, "/") {
		return "", fmt.Errorf("$ref %q: no anchor %q", ref, frag)
	}
	v := root
	for _, tok := range strings.Split(frag, "/")[1:] {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[tok]; !ok {
				return "", fmt.Errorf("$ref %q: nothing at that location", ref)
			}
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return "", fmt.Errorf("$ref %q: nothing at that location", ref)
			}
			v = x[i]
		default:
			return "", fmt.Errorf("$ref %q: nothing at that location", ref)
		}
	}
	c.index(v, res, []resPointer{{res, frag}})
	return c.alias[res+"#"+frag], nil
}

// compile returns the node at a canonical location, compiling it once.
func (c *schemaCompiler) compile(canon string) (*schemaNode, error) {
	if n, ok := c.nodes[canon]; ok {
		return n, nil
	}
	v, ok := c.raw[canon]
	if !ok {
		return nil, fmt.Errorf("no schema at %s", canon)
	}
	n := &schemaNode{loc: canon, draft: c.draft}
	c.nodes[canon] = n
	base := c.base[canon]
	if res := c.alias[base+"#"]; res != "" && res != canon {
		r, err := c.compile(res)
		if err != nil {
			return nil, err
		}
		n.res = r
	} else {
		n.res = n
	}
	if b, ok := v.(bool); ok {
		n.boolean = &b
		return n, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: a schema must be an object or a boolean", c.where(canon))
	}
	p := &nodeParser{c: c, n: n, m: m, canon: canon, base: base}
	p.parse()
	if p.err != nil {
		return nil, p.err
	}
	return n, nil
}

// where is a canonical location as a compile error names it.
func (c *schemaCompiler) where(canon string) string {
	_, ptr, _ := strings.Cut(canon, "#")
	if ptr == "" {
		return "at the root"
	}
	return "at " + ptr
}

// maxRatExp bounds the decimal exponent a number is evaluated with: the
// model writes the arguments, and 1e999999 as an exact rational is a
// number of a million digits. Past it the exponent is clamped, which
// keeps the sign, the order against any sane schema bound, and whether
// the value is an integer.
const maxRatExp = 1000

// jsonRat is a JSON number as an exact rational (exponent clamped, see
// maxRatExp); nil for anything else.
func jsonRat(v any) *big.Rat {
	n, ok := v.(json.Number)
	if !ok {
		return nil
	}
	s := string(n)
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		exp, err := strconv.Atoi(strings.TrimPrefix(s[i+1:], "+"))
		if err != nil || exp > maxRatExp || exp < -maxRatExp {
			e := maxRatExp
			if strings.HasPrefix(s[i+1:], "-") {
				e = -maxRatExp
			}
			s = s[:i] + "e" + strconv.Itoa(e)
		}
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return nil
	}
	return r
}

// decodeJSON decodes one JSON value with numbers kept exact.
func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("invalid character after top-level value")
	}
	return v, nil
}
