package loop

import "strings"

// AccessKind says whether an access is global or names a path.
type AccessKind string

// Access kinds.
const (
	AccessAll  AccessKind = "all"
	AccessFile AccessKind = "file"
)

// Operation is what a file access does with its path.
type Operation string

// File operations. Read and search never conflict with each other.
const (
	OpRead      Operation = "read"
	OpWrite     Operation = "write"
	OpReadWrite Operation = "readwrite"
	OpSearch    Operation = "search"
)

// Access is one resource a tool call touches: everything, or a file path
// (a whole tree when Recursive).
type Access struct {
	Kind      AccessKind `json:"kind"`
	Operation Operation  `json:"operation,omitempty"`
	Path      string     `json:"path,omitempty"`
	Recursive bool       `json:"recursive,omitempty"`
}

// The constructors return lists so a call's accesses read as one value
// (Accesses: loop.ReadFile(p)) and combine with slices.Concat.

// None is the empty access list: the call conflicts with nothing.
func None() []Access { return []Access{} }

// All is the exclusive access: the call conflicts with every other call.
// It is the default for an Execution with nil Accesses.
func All() []Access { return []Access{{Kind: AccessAll}} }

func fileAccess(op Operation, path string, recursive bool) []Access {
	return []Access{{Kind: AccessFile, Operation: op, Path: path, Recursive: recursive}}
}

// ReadFile reads one file.
func ReadFile(path string) []Access { return fileAccess(OpRead, path, false) }

// ReadTree reads everything below path.
func ReadTree(path string) []Access { return fileAccess(OpRead, path, true) }

// WriteFile writes one file.
func WriteFile(path string) []Access { return fileAccess(OpWrite, path, false) }

// WriteTree writes anything below path.
func WriteTree(path string) []Access { return fileAccess(OpWrite, path, true) }

// ReadWriteFile reads and writes one file.
func ReadWriteFile(path string) []Access { return fileAccess(OpReadWrite, path, false) }

// ReadWriteTree reads and writes anything below path.
func ReadWriteTree(path string) []Access { return fileAccess(OpReadWrite, path, true) }

// SearchTree searches everything below path.
func SearchTree(path string) []Access { return fileAccess(OpSearch, path, true) }

// Conflict reports whether two calls with these access lists must not run
// at the same time: some pair conflicts. An empty list conflicts with
// nothing; nil lists mean nil here (callers apply the All default).
func Conflict(a, b []Access) bool {
	for _, x := range a {
		for _, y := range b {
			if x.conflicts(y) {
				return true
			}
		}
	}
	return false
}

func (a Access) conflicts(b Access) bool {
	if a.Kind == AccessAll || b.Kind == AccessAll {
		return true
	}
	if !a.Operation.writes() && !b.Operation.writes() {
		return false
	}
	pa, pb := normalizeAccessPath(a.Path), normalizeAccessPath(b.Path)
	return pa == pb || (a.Recursive && within(pb, pa)) || (b.Recursive && within(pa, pb))
}

func (op Operation) writes() bool { return op == OpWrite || op == OpReadWrite }

// within reports whether p lies strictly below the directory root.
func within(p, root string) bool {
	if root == "/" {
		return strings.HasPrefix(p, "/") && p != "/"
	}
	return strings.HasPrefix(p, root+"/")
}

// normalizeAccessPath makes paths comparable: backslashes become slashes,
// runs of slashes collapse, case folds, and a trailing slash goes unless the
// path is the root.
func normalizeAccessPath(p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	var b strings.Builder
	b.Grow(len(p))
	prevSlash := false
	for _, r := range p {
		if r == '/' {
			if prevSlash {
				continue
			}
			prevSlash = true
		} else {
			prevSlash = false
		}
		b.WriteRune(r)
	}
	p = strings.ToLower(b.String())
	if len(p) > 1 && strings.HasSuffix(p, "/") {
		p = p[:len(p)-1]
	}
	return p
}
