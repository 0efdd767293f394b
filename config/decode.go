package config

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"
)

// decoder turns a parsed TOML tree into typed values, one explicit check
// per field, collecting schema issues (which drive salvage), per-rule
// faults and unknown keys instead of stopping at the first problem.
type decoder struct {
	file string
	// src is the file's text, used only to find the lines of rule headers.
	src     []byte
	issues  []Issue
	unknown [][]string
	// notes are warnings that drop nothing from salvage's point of view:
	// dropped permission rules, deprecated keys.
	notes []Warning
	// ruleIssues are the permission-rule faults, reported by the strict
	// check (doctor) though the lenient load only drops the rule.
	ruleIssues []Issue
}

// table reads one TOML table and remembers which keys were read.
type table struct {
	d    *decoder
	path []string
	m    map[string]any
	seen map[string]bool
}

// at returns path extended by elems, never sharing path's array.
func at(path []string, elems ...string) []string {
	return append(slices.Clip(path), elems...)
}

func index(i int) string { return "[" + strconv.Itoa(i) + "]" }

func (d *decoder) issuef(path []string, format string, args ...any) {
	d.issues = append(d.issues, Issue{Path: path, Message: fmt.Sprintf(format, args...)})
}

// asTable wraps v when it is a table; otherwise it records an issue and
// returns nil.
func (d *decoder) asTable(path []string, v any) *table {
	m, ok := v.(map[string]any)
	if !ok {
		d.issuef(path, "expected a table, got %s", describe(v))
		return nil
	}
	return &table{d: d, path: path, m: m, seen: map[string]bool{}}
}

// take returns the value of key and marks it read.
func (t *table) take(key string) (any, bool) {
	v, ok := t.m[key]
	if ok {
		t.seen[key] = true
	}
	return v, ok
}

func (t *table) issuef(key, format string, args ...any) {
	t.d.issuef(at(t.path, key), format, args...)
}

// str reads an optional string; "" when absent or wrong.
func (t *table) str(key string) string {
	v, ok := t.take(key)
	if !ok {
		return ""
	}
	s, isStr := v.(string)
	if !isStr {
		t.issuef(key, "expected a string, got %s", describe(v))
	}
	return s
}

// nonEmpty reads an optional string that must not be empty when given.
func (t *table) nonEmpty(key string) string {
	_, present := t.m[key]
	s := t.str(key)
	if present && s == "" {
		if _, isStr := t.m[key].(string); isStr {
			t.issuef(key, "must not be empty")
		}
	}
	return s
}

// enum reads an optional string that must be one of allowed.
func (t *table) enum(key string, allowed []string) string {
	v, ok := t.take(key)
	if !ok {
		return ""
	}
	s, isStr := v.(string)
	if !isStr || !slices.Contains(allowed, s) {
		t.issuef(key, "expected one of %s, got %s", quoteList(allowed), describe(v))
		return ""
	}
	return s
}

// integer reads an optional integer in [lo, hi].
func (t *table) integer(key string, lo, hi int) *int {
	v, ok := t.take(key)
	if !ok {
		return nil
	}
	n, isInt := asInt(v)
	if !isInt || n < lo || n > hi {
		t.issuef(key, "expected %s, got %s", intRange(lo, hi), describe(v))
		return nil
	}
	return &n
}

// number reads an optional number in [lo, hi].
func (t *table) number(key string, lo, hi float64) *float64 {
	v, ok := t.take(key)
	if !ok {
		return nil
	}
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	default:
		n, isInt := asInt(v)
		if !isInt {
			t.issuef(key, "expected a number from %g to %g, got %s", lo, hi, describe(v))
			return nil
		}
		f = float64(n)
	}
	if math.IsNaN(f) || f < lo || f > hi {
		t.issuef(key, "expected a number from %g to %g, got %s", lo, hi, describe(v))
		return nil
	}
	return &f
}

// boolean reads an optional boolean.
func (t *table) boolean(key string) *bool {
	v, ok := t.take(key)
	if !ok {
		return nil
	}
	b, isBool := v.(bool)
	if !isBool {
		t.issuef(key, "expected a boolean, got %s", describe(v))
		return nil
	}
	return &b
}

// strList reads an optional array of strings; nil when absent or wrong.
func (t *table) strList(key string) []string {
	v, ok := t.take(key)
	if !ok {
		return nil
	}
	items, isList := asList(v)
	if !isList {
		t.issuef(key, "expected an array of strings, got %s", describe(v))
		return nil
	}
	out := make([]string, 0, len(items))
	for i, it := range items {
		s, isStr := it.(string)
		if !isStr {
			t.d.issuef(at(t.path, key, index(i)), "expected a string, got %s", describe(it))
			return nil
		}
		out = append(out, s)
	}
	return out
}

// strMap reads an optional table of strings whose keys are kept verbatim.
func (t *table) strMap(key string) map[string]string {
	v, ok := t.take(key)
	if !ok {
		return nil
	}
	m, isMap := v.(map[string]any)
	if !isMap {
		t.issuef(key, "expected a table of strings, got %s", describe(v))
		return nil
	}
	out := make(map[string]string, len(m))
	for _, k := range sortedKeys(m) {
		s, isStr := m[k].(string)
		if !isStr {
			t.d.issuef(at(t.path, key, k), "expected a string, got %s", describe(m[k]))
			return nil
		}
		out[k] = s
	}
	return out
}

// sub returns the table under key, nil when absent (or not a table, which
// is an issue).
func (t *table) sub(key string) *table {
	v, ok := t.take(key)
	if !ok {
		return nil
	}
	return t.d.asTable(at(t.path, key), v)
}

// accept marks keys read without checking them (legacy keys kept as is).
func (t *table) accept(keys ...string) {
	for _, k := range keys {
		t.take(k)
	}
}

// finish reports every key that was not read: an unknown-key warning, or
// an issue when strict.
func (t *table) finish(strict bool) {
	for _, k := range sortedKeys(t.m) {
		if t.seen[k] {
			continue
		}
		if strict {
			t.issuef(k, "unknown key")
			continue
		}
		t.d.unknown = append(t.d.unknown, at(t.path, k))
	}
}

// asInt accepts integers and floats without a fraction.
func asInt(v any) (int, bool) {
	switch x := v.(type) {
	case int64:
		if x < math.MinInt || x > math.MaxInt {
			return 0, false
		}
		return int(x), true
	case int:
		return x, true
	case float64:
		if x != math.Trunc(x) || math.IsInf(x, 0) || x < -1<<53 || x > 1<<53 {
			return 0, false
		}
		return int(x), true
	}
	return 0, false
}

// asList accepts the array shapes the TOML decoder produces.
func asList(v any) ([]any, bool) {
	switch x := v.(type) {
	case []any:
		return x, true
	case []map[string]any:
		out := make([]any, len(x))
		for i, m := range x {
			out[i] = m
		}
		return out, true
	case []string:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out, true
	}
	return nil, false
}

func intRange(lo, hi int) string {
	switch {
	case hi == math.MaxInt:
		return fmt.Sprintf("an integer ≥ %d", lo)
	default:
		return fmt.Sprintf("an integer from %d to %d", lo, hi)
	}
}

// describe names a value's type (and the value itself for scalars) for an
// issue message.
func describe(v any) string {
	switch x := v.(type) {
	case string:
		return "string " + strconv.Quote(x)
	case int64, int:
		return fmt.Sprintf("integer %d", x)
	case float64:
		return "number " + strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return fmt.Sprintf("boolean %t", x)
	case map[string]any:
		return "a table"
	case time.Time:
		return "a date-time"
	case nil:
		return "nothing"
	}
	if _, ok := asList(v); ok {
		return "an array"
	}
	return fmt.Sprintf("a value of type %T", v)
}

func quoteList(items []string) string {
	out := ""
	for i, s := range items {
		if i > 0 {
			out += ", "
		}
		out += strconv.Quote(s)
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
