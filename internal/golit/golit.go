// Package golit writes Go values as Go source: the generated files that
// carry data decoded when kimigo is built instead of each time it starts.
//
// It covers the values such data is made of: booleans, numbers, strings,
// pointers, slices, maps with string keys, structs (unexported fields
// included) and interfaces holding any of these. A nil slice, map or
// pointer stays nil and an empty one stays empty, so the source rebuilds
// a value that go-cmp finds equal to the original.
package golit

import (
	"fmt"
	"go/format"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// File returns the formatted Go file of package pkg that holds decls,
// headed by the comment lines of header.
func File(header, pkg string, decls ...string) ([]byte, error) {
	var b strings.Builder
	for line := range strings.SplitSeq(strings.TrimRight(header, "\n"), "\n") {
		b.WriteString("// " + line + "\n")
	}
	b.WriteString("\npackage " + pkg + "\n")
	for _, d := range decls {
		b.WriteString("\n" + d + "\n")
	}
	return format.Source([]byte(b.String()))
}

// Expr returns a Go expression that evaluates to a value equal to v, in
// the package whose import path is pkgPath: types of that package are
// named unqualified; types of any other package are an error, since the
// expression comes without imports.
func Expr(v any, pkgPath string) (string, error) {
	w := writer{pkg: pkgPath}
	w.value(reflect.ValueOf(v), false)
	if w.err != nil {
		return "", w.err
	}
	return w.b.String(), nil
}

type writer struct {
	pkg string
	b   strings.Builder
	err error
}

func (w *writer) fail(format string, args ...any) {
	if w.err == nil {
		w.err = fmt.Errorf("golit: "+format, args...)
	}
}

// typeName spells t as source in package w.pkg.
func (w *writer) typeName(t reflect.Type) string {
	if t.Name() != "" {
		switch t.PkgPath() {
		case "":
			return t.Name()
		case w.pkg:
			return t.Name()
		}
		w.fail("type %s is outside package %s", t, w.pkg)
		return t.Name()
	}
	switch t.Kind() {
	case reflect.Pointer:
		return "*" + w.typeName(t.Elem())
	case reflect.Slice:
		return "[]" + w.typeName(t.Elem())
	case reflect.Map:
		return "map[" + w.typeName(t.Key()) + "]" + w.typeName(t.Elem())
	case reflect.Interface:
		if t.NumMethod() == 0 {
			return "any"
		}
	}
	w.fail("unnamed type %s is not supported", t)
	return t.String()
}

// value writes v. elided says the type is implied by the enclosing
// composite literal (an element or a map value), so a composite literal
// leaves it out and a pointer to one drops its &T.
func (w *writer) value(v reflect.Value, elided bool) {
	switch v.Kind() {
	case reflect.Invalid: // a nil interface
		w.b.WriteString("nil")
	case reflect.Interface:
		if v.IsNil() {
			w.b.WriteString("nil")
			return
		}
		w.dynamic(v.Elem())
	case reflect.Bool:
		w.b.WriteString(strconv.FormatBool(v.Bool()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		w.b.WriteString(strconv.FormatInt(v.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		w.b.WriteString(strconv.FormatUint(v.Uint(), 10))
	case reflect.Float32, reflect.Float64:
		w.b.WriteString(strconv.FormatFloat(v.Float(), 'g', -1, v.Type().Bits()))
	case reflect.String:
		w.str(v.String())
	case reflect.Pointer:
		w.pointer(v, elided)
	case reflect.Slice:
		if v.IsNil() {
			w.b.WriteString("nil")
			return
		}
		w.open(v.Type(), elided)
		for i := range v.Len() {
			w.b.WriteString("\n")
			w.value(v.Index(i), true)
			w.b.WriteString(",")
		}
		w.close(v.Len())
	case reflect.Map:
		if v.IsNil() {
			w.b.WriteString("nil")
			return
		}
		if v.Type().Key().Kind() != reflect.String {
			w.fail("map key type %s is not a string", v.Type().Key())
			return
		}
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
		w.open(v.Type(), elided)
		for _, k := range keys {
			w.b.WriteString("\n")
			w.str(k.String())
			w.b.WriteString(": ")
			w.value(v.MapIndex(k), true)
			w.b.WriteString(",")
		}
		w.close(len(keys))
	case reflect.Struct:
		w.open(v.Type(), elided)
		n := 0
		for i := range v.NumField() {
			f := v.Field(i)
			if f.IsZero() {
				continue
			}
			n++
			w.b.WriteString("\n" + v.Type().Field(i).Name + ": ")
			w.value(f, false)
			w.b.WriteString(",")
		}
		w.close(n)
	default:
		w.fail("kind %s is not supported", v.Kind())
	}
}

func (w *writer) open(t reflect.Type, elided bool) {
	if !elided {
		w.b.WriteString(w.typeName(t))
	}
	w.b.WriteString("{")
}

func (w *writer) close(n int) {
	if n > 0 {
		w.b.WriteString("\n")
	}
	w.b.WriteString("}")
}

// pointer writes &T{…} for a struct, slice or map, and new(x) for a
// basic value.
func (w *writer) pointer(v reflect.Value, elided bool) {
	if v.IsNil() {
		w.b.WriteString("nil")
		return
	}
	e := v.Elem()
	switch e.Kind() {
	case reflect.Struct:
		if !elided {
			w.b.WriteString("&")
		}
		w.value(e, elided)
	case reflect.Slice, reflect.Map:
		if e.IsNil() {
			w.b.WriteString("new(" + w.typeName(e.Type()) + ")")
			return
		}
		w.b.WriteString("&")
		w.value(e, false)
	case reflect.Pointer, reflect.Interface:
		w.fail("pointer to %s is not supported", e.Kind())
	default:
		w.b.WriteString("new(")
		w.dynamic(e)
		w.b.WriteString(")")
	}
}

// dynamic writes v where nothing fixes its type (an interface value, the
// operand of new): a constant gets a conversion unless its default type
// is v's.
func (w *writer) dynamic(v reflect.Value) {
	t := v.Type()
	switch v.Kind() {
	case reflect.Slice, reflect.Map, reflect.Struct, reflect.Pointer, reflect.Interface:
		w.value(v, false)
		return
	}
	if t == reflect.TypeFor[string]() || t == reflect.TypeFor[bool]() || t == reflect.TypeFor[int]() {
		w.value(v, false)
		return
	}
	w.b.WriteString(w.typeName(t) + "(")
	w.value(v, false)
	w.b.WriteString(")")
}

// str writes s quoted; text of several lines becomes a sum of one quoted
// line each, so a reviewer reads it as text.
func (w *writer) str(s string) {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) > 1 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) < 3 {
		w.b.WriteString(strconv.Quote(s))
		return
	}
	for i, l := range lines {
		if i > 0 {
			w.b.WriteString(" +\n")
		}
		w.b.WriteString(strconv.Quote(l))
	}
}
