package jsonschema

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// schemaErr is one failed schema in the tree an evaluation returns. A
// group (or a $ref, allOf, if/then/else) only carries causes; anyOf and
// oneOf carry causes and their own message; the other kinds are leaves.
type schemaErr struct {
	path   []string // instance location
	kind   errKind
	msg    string   // errLeaf
	names  []string // errRequired, errAdditional
	causes []*schemaErr
}

type errKind int

const (
	errGroup errKind = iota
	errAnyOf
	errOneOf
	errRequired
	errAdditional
	errLeaf
)

// evalScope is the dynamic scope: the schemas applied on the way to the
// current one. vid changes when evaluation moves to a child value, so a
// schema met twice for the same value is a $ref cycle.
type evalScope struct {
	n      *schemaNode
	vid    int
	parent *evalScope
}

// unevaluated holds the properties and items no keyword has evaluated yet,
// for unevaluatedProperties and unevaluatedItems; nil sets when nobody
// needs them.
type unevaluated struct {
	props map[string]struct{}
	items map[int]struct{}
}

func unevaluatedFrom(v any, n *schemaNode, callerNeeds bool) *unevaluated {
	u := &unevaluated{}
	switch v := v.(type) {
	case map[string]any:
		if callerNeeds || n.unevaluatedProps != nil {
			u.props = make(map[string]struct{}, len(v))
			for k := range v {
				u.props[k] = struct{}{}
			}
		}
	case []any:
		if callerNeeds || n.unevaluatedItems != nil {
			u.items = make(map[int]struct{}, len(v))
			for i := range v {
				u.items[i] = struct{}{}
			}
		}
	}
	return u
}

// keepCommon leaves only what other also left unevaluated.
func (u *unevaluated) keepCommon(other *unevaluated) {
	for k := range u.props {
		if _, ok := other.props[k]; !ok {
			delete(u.props, k)
		}
	}
	for i := range u.items {
		if _, ok := other.items[i]; !ok {
			delete(u.items, i)
		}
	}
}

func (u *unevaluated) empty() bool { return len(u.props) == 0 && len(u.items) == 0 }

// evaluation is one value being checked against one schema.
type evaluation struct {
	n    *schemaNode
	v    any
	path []string
	scp  *evalScope
	u    *unevaluated
	errs []*schemaErr
}

// validateInstance checks v against root and returns the error tree, or
// nil when v is valid.
func validateInstance(root *schemaNode, v any) *schemaErr {
	e := &evaluation{n: root, v: v, scp: &evalScope{n: root}, u: unevaluatedFrom(v, root, false)}
	_, err := e.run()
	return err
}

func (e *evaluation) leaf(msg string) *schemaErr {
	return &schemaErr{path: e.path, kind: errLeaf, msg: msg}
}

func (e *evaluation) add(err *schemaErr) {
	if err != nil {
		e.errs = append(e.errs, err)
	}
}

// inPlace applies n to the same value (allOf, $ref, if, ...); on success
// what n evaluated counts as evaluated here.
func (e *evaluation) inPlace(n *schemaNode) *schemaErr {
	sub := &evaluation{n: n, v: e.v, path: e.path, scp: &evalScope{n, e.scp.vid, e.scp},
		u: unevaluatedFrom(e.v, n, !e.u.empty())}
	u, err := sub.run()
	if err == nil {
		e.u.keepCommon(u)
	}
	return err
}

// child applies n to a member of the value.
func (e *evaluation) child(n *schemaNode, v any, tok string) *schemaErr {
	sub := &evaluation{n: n, v: v, path: append(slices.Clip(e.path), tok), scp: &evalScope{n, e.scp.vid + 1, e.scp},
		u: unevaluatedFrom(v, n, false)}
	_, err := sub.run()
	return err
}

func (e *evaluation) run() (*unevaluated, *schemaErr) {
	n, v := e.n, e.v
	if n.boolean != nil {
		if *n.boolean {
			return e.u, nil
		}
		return nil, e.leaf("boolean schema is false")
	}
	for s := e.scp.parent; s != nil && s.vid == e.scp.vid; s = s.parent {
		if s.n == n {
			return nil, e.leaf("must not apply the same schema again through $ref")
		}
	}
	if n.types != nil && !typeMatches(n.types, v) {
		return nil, e.leaf("must be " + strings.Join(n.types, ","))
	}
	if n.konst != nil && !jsonEqual(v, *n.konst) {
		return nil, e.leaf("must be equal to constant")
	}
	if n.enum != nil && !slices.ContainsFunc(n.enum, func(w any) bool { return jsonEqual(v, w) }) {
		return nil, e.leaf("must be equal to one of the allowed values")
	}
	if s, ok := v.(string); ok && n.format != nil && !n.format.valid(s) {
		return nil, e.leaf(fmt.Sprintf("must match format %q", n.format.name))
	}
	if n.ref != nil {
		err := e.inPlace(n.ref)
		if n.draft == draft7 {
			return e.u, err
		}
		e.add(err)
	}
	switch v := v.(type) {
	case map[string]any:
		e.object(v)
	case []any:
		e.array(v)
	case string:
		e.string(v)
	case json.Number:
		e.number(v)
	}
	e.dynamicRefs()
	e.conditions()
	e.unevaluated()
	switch len(e.errs) {
	case 0:
		return e.u, nil
	case 1:
		return nil, e.errs[0]
	}
	return nil, &schemaErr{path: e.path, kind: errGroup, causes: e.errs}
}

func (e *evaluation) object(obj map[string]any) {
	n := e.n
	if n.minProps != nil && len(obj) < *n.minProps {
		e.add(e.leaf(fmt.Sprintf("must NOT have fewer than %d properties", *n.minProps)))
	}
	if n.maxProps != nil && len(obj) > *n.maxProps {
		e.add(e.leaf(fmt.Sprintf("must NOT have more than %d properties", *n.maxProps)))
	}
	if missing := missingProps(obj, n.required); missing != nil {
		e.add(&schemaErr{path: e.path, kind: errRequired, names: missing})
	}
	for _, d := range n.dependencies {
		if _, ok := obj[d.prop]; !ok {
			continue
		}
		if d.sch != nil {
			e.add(e.inPlace(d.sch))
		} else if missing := missingProps(obj, d.required); missing != nil {
			e.add(e.leaf(dependencyMessage(d.prop, missing)))
		}
	}
	var additional []string
	for _, name := range slices.Sorted(maps.Keys(obj)) {
		val, evaluated := obj[name], false
		if sch, ok := n.properties[name]; ok {
			evaluated = true
			e.add(e.child(sch, val, name))
		}
		for _, pp := range n.patternProps {
			if pp.re.MatchString(name) {
				evaluated = true
				e.add(e.child(pp.sch, val, name))
			}
		}
		if !evaluated && n.additionalProps != nil {
			evaluated = true
			if b := n.additionalProps.boolean; b != nil && !*b {
				additional = append(additional, name)
			} else {
				e.add(e.child(n.additionalProps, val, name))
			}
		}
		if evaluated {
			delete(e.u.props, name)
		}
	}
	if additional != nil {
		e.add(&schemaErr{path: e.path, kind: errAdditional, names: additional})
	}
	if n.propertyNames != nil {
		for _, name := range slices.Sorted(maps.Keys(obj)) {
			if validateInstance(n.propertyNames, name) != nil {
				e.add(e.leaf("property name must be valid"))
			}
		}
	}
	for _, d := range n.dependentSchemas {
		if _, ok := obj[d.prop]; ok {
			e.add(e.inPlace(d.sch))
		}
	}
	for _, d := range n.dependentRequired {
		if _, ok := obj[d.prop]; ok {
			if missing := missingProps(obj, d.required); missing != nil {
				e.add(e.leaf(dependencyMessage(d.prop, missing)))
			}
		}
	}
}

func missingProps(obj map[string]any, names []string) []string {
	var missing []string
	for _, name := range names {
		if _, ok := obj[name]; !ok {
			missing = append(missing, name)
		}
	}
	return missing
}

func (e *evaluation) array(arr []any) {
	n := e.n
	if n.minItems != nil && len(arr) < *n.minItems {
		e.add(e.leaf(fmt.Sprintf("must NOT have fewer than %d items", *n.minItems)))
	}
	if n.maxItems != nil && len(arr) > *n.maxItems {
		e.add(e.leaf(fmt.Sprintf("must NOT have more than %d items", *n.maxItems)))
	}
	if n.uniqueItems {
		if i, j, dup := duplicateItems(arr); dup {
			e.add(e.leaf(fmt.Sprintf("must NOT have duplicate items (items ## %d and %d are identical)", i, j)))
		}
	}
	evaluated := min(len(arr), len(n.itemsTuple))
	for i := range evaluated {
		e.add(e.child(n.itemsTuple[i], arr[i], strconv.Itoa(i)))
	}
	if n.items != nil {
		for i := evaluated; i < len(arr); i++ {
			e.add(e.child(n.items, arr[i], strconv.Itoa(i)))
		}
		evaluated = len(arr)
	}
	if n.additionalItems != nil && n.itemsTuple != nil {
		if b := n.additionalItems.boolean; b != nil && !*b {
			if evaluated < len(arr) {
				e.add(e.leaf("must NOT have additional items"))
			}
		} else {
			for i := evaluated; i < len(arr); i++ {
				e.add(e.child(n.additionalItems, arr[i], strconv.Itoa(i)))
			}
		}
		evaluated = len(arr)
	}
	for i := range evaluated {
		delete(e.u.items, i)
	}
	if n.contains == nil {
		return
	}
	matched := 0
	for i, item := range arr {
		if e.child(n.contains, item, strconv.Itoa(i)) == nil {
			matched++
			if n.draft == draft2020 {
				delete(e.u.items, i)
			}
		}
	}
	switch {
	case n.minContains != nil:
		if matched < *n.minContains {
			e.add(e.leaf(fmt.Sprintf("must contain at least %d valid item(s)", *n.minContains)))
		}
	case matched == 0:
		e.add(e.leaf("must contain at least 1 valid item(s)"))
	}
	if n.maxContains != nil && matched > *n.maxContains {
		e.add(e.leaf(fmt.Sprintf("must contain at most %d valid item(s)", *n.maxContains)))
	}
}

// duplicateItems finds the first item equal to an earlier one: its index
// i and the earlier index j.
func duplicateItems(arr []any) (i, j int, found bool) {
	for i = 1; i < len(arr); i++ {
		for j = 0; j < i; j++ {
			if jsonEqual(arr[i], arr[j]) {
				return i, j, true
			}
		}
	}
	return 0, 0, false
}

func (e *evaluation) string(s string) {
	n := e.n
	if n.minLength != nil || n.maxLength != nil {
		l := utf8.RuneCountInString(s)
		if n.minLength != nil && l < *n.minLength {
			e.add(e.leaf(fmt.Sprintf("must NOT have fewer than %d characters", *n.minLength)))
		}
		if n.maxLength != nil && l > *n.maxLength {
			e.add(e.leaf(fmt.Sprintf("must NOT have more than %d characters", *n.maxLength)))
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(s) {
		e.add(e.leaf(fmt.Sprintf("must match pattern %q", n.patternText)))
	}
}

func (e *evaluation) number(num json.Number) {
	n := e.n
	r := jsonRat(num)
	if r == nil {
		return
	}
	if n.minimum != nil && r.Cmp(n.minimum) < 0 {
		e.add(e.leaf("must be >= " + ratString(n.minimum)))
	}
	if n.maximum != nil && r.Cmp(n.maximum) > 0 {
		e.add(e.leaf("must be <= " + ratString(n.maximum)))
	}
	if n.exclusiveMin != nil && r.Cmp(n.exclusiveMin) <= 0 {
		e.add(e.leaf("must be > " + ratString(n.exclusiveMin)))
	}
	if n.exclusiveMax != nil && r.Cmp(n.exclusiveMax) >= 0 {
		e.add(e.leaf("must be < " + ratString(n.exclusiveMax)))
	}
	if n.multipleOf != nil && !new(big.Rat).Quo(r, n.multipleOf).IsInt() {
		e.add(e.leaf("must be multiple of " + ratString(n.multipleOf)))
	}
}

// dynamicRefs applies $recursiveRef (2019-09) and $dynamicRef (2020-12):
// the target moves to the outermost schema resource in the dynamic scope
// that declares the matching anchor.
func (e *evaluation) dynamicRefs() {
	n := e.n
	if t := n.recursiveRef; t != nil {
		if t.res.recursiveAnchor {
			for s := e.scp; s != nil; s = s.parent {
				if s.n.res.recursiveAnchor {
					t = s.n.res
				}
			}
		}
		e.add(e.inPlace(t))
	}
	if t := n.dynamicRef; t != nil {
		if name := n.dynamicAnchor; name != "" && t.res.dynamicAnchors[name] == t {
			for s := e.scp; s != nil; s = s.parent {
				if d, ok := s.n.res.dynamicAnchors[name]; ok {
					t = d
				}
			}
		}
		e.add(e.inPlace(t))
	}
}

func (e *evaluation) conditions() {
	n := e.n
	if n.not != nil && e.inPlace(n.not) == nil {
		e.add(e.leaf("must NOT be valid"))
	}
	var causes []*schemaErr
	for _, s := range n.allOf {
		if err := e.inPlace(s); err != nil {
			causes = append(causes, err)
		}
	}
	if causes != nil {
		e.add(&schemaErr{path: e.path, kind: errGroup, causes: causes})
	}
	if n.anyOf != nil {
		causes = nil
		matched := false
		for _, s := range n.anyOf {
			err := e.inPlace(s)
			if err != nil {
				causes = append(causes, err)
				continue
			}
			matched = true
			if e.u.empty() {
				break // nothing is left for the other schemas to evaluate
			}
		}
		if !matched {
			e.add(&schemaErr{path: e.path, kind: errAnyOf, causes: causes})
		}
	}
	if n.oneOf != nil {
		causes = nil
		matched := -1
		for i, s := range n.oneOf {
			if err := e.inPlace(s); err != nil {
				if matched == -1 {
					causes = append(causes, err)
				}
			} else if matched == -1 {
				matched = i
			} else {
				e.add(&schemaErr{path: e.path, kind: errOneOf})
				break
			}
		}
		if matched == -1 {
			e.add(&schemaErr{path: e.path, kind: errOneOf, causes: causes})
		}
	}
	if n.ifS != nil {
		if e.inPlace(n.ifS) == nil {
			if n.thenS != nil {
				e.add(e.inPlace(n.thenS))
			}
		} else if n.elseS != nil {
			e.add(e.inPlace(n.elseS))
		}
	}
}

func (e *evaluation) unevaluated() {
	n := e.n
	if obj, ok := e.v.(map[string]any); ok && n.unevaluatedProps != nil {
		for _, name := range slices.Sorted(maps.Keys(e.u.props)) {
			e.add(e.child(n.unevaluatedProps, obj[name], name))
		}
		e.u.props = nil
	}
	if arr, ok := e.v.([]any); ok && n.unevaluatedItems != nil {
		for _, i := range slices.Sorted(maps.Keys(e.u.items)) {
			e.add(e.child(n.unevaluatedItems, arr[i], strconv.Itoa(i)))
		}
		e.u.items = nil
	}
}

// typeMatches reports whether v is one of types; an integral number is an
// integer.
func typeMatches(types []string, v any) bool {
	var t string
	switch v := v.(type) {
	case nil:
		t = "null"
	case bool:
		t = "boolean"
	case string:
		t = "string"
	case []any:
		t = "array"
	case map[string]any:
		t = "object"
	case json.Number:
		if slices.Contains(types, "number") {
			return true
		}
		r := jsonRat(v)
		return r != nil && r.IsInt() && slices.Contains(types, "integer")
	}
	return slices.Contains(types, t)
}

// jsonEqual compares two decoded JSON values; numbers compare by value.
func jsonEqual(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, av := range a {
			bv, ok := b[k]
			if !ok || !jsonEqual(av, bv) {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		return ok && slices.EqualFunc(a, b, jsonEqual)
	case json.Number:
		ra, rb := jsonRat(a), jsonRat(b)
		return ra != nil && rb != nil && ra.Cmp(rb) == 0
	case nil, bool, string:
		return a == b
	}
	return false
}
