package jsonschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Cache compiles argument schemas once and keeps them, keyed by the
// schema's exact text, so a tool's validator is built on its first call and
// reused by every later call and turn. The zero value is an empty cache. It
// is safe for concurrent use.
type Cache struct {
	mu sync.Mutex
	m  map[string]*compiledSchema // guarded by mu
}

type compiledSchema struct {
	once   sync.Once
	schema *schemaNode
	err    error
}

// maxCachedSchemas bounds the cache; MCP servers can come and go, and a
// rebuilt entry costs one compile.
const maxCachedSchemas = 1024

// NewCache returns an empty cache.
func NewCache() *Cache { return &Cache{} }

func (c *Cache) get(schema []byte) *compiledSchema {
	c.mu.Lock()
	cs := c.m[string(schema)]
	if cs == nil {
		if c.m == nil {
			c.m = make(map[string]*compiledSchema)
		}
		if len(c.m) >= maxCachedSchemas {
			clear(c.m)
		}
		cs = &compiledSchema{}
		c.m[string(schema)] = cs
	}
	c.mu.Unlock()
	cs.once.Do(func() { cs.schema, cs.err = compileSchema(schema) })
	return cs
}

// check validates args (valid JSON) against schema. It returns the problems
// worded for the model (spec 01 §4.10.3) and false when args do not match;
// a schema that does not compile rejects every call with the compile error.
// An empty schema accepts anything.
func (c *Cache) Check(schema, args json.RawMessage) (string, bool) {
	if len(bytes.TrimSpace(schema)) == 0 {
		return "", true
	}
	cs := c.get(schema)
	if cs.err != nil {
		return cs.err.Error(), false
	}
	v, err := decodeJSON(args)
	if err != nil {
		return err.Error(), false
	}
	se := validateInstance(cs.schema, v)
	if se == nil {
		return "", true
	}
	issues := collectIssues(se, nil)
	if len(issues) == 0 {
		return "Tool parameter validation failed", false
	}
	// Sorting by instance path keeps the wording stable for the model and
	// its prompt cache, and puts the value's own problems first.
	sort.SliceStable(issues, func(i, j int) bool { return issues[i].path < issues[j].path })
	msgs := make([]string, len(issues))
	for i, is := range issues {
		msgs[i] = is.msg
	}
	return strings.Join(msgs, "; "), false
}

const schemaURL = "mem://kimigo/tool-parameters.json"

// compileSchema compiles a tool's parameters with the dialect of spec 01
// §4.10.3: $schema picks 2020-12 or 2019-09 when it names them and draft-07
// otherwise; without $schema, keywords of the newer drafts decide. Unknown
// keywords are ignored and formats are asserted. Remote and file $refs are
// refused: a tool's schema must be self-contained.
func compileSchema(schema []byte) (*schemaNode, error) {
	doc, err := decodeJSON(schema)
	if err != nil {
		return nil, fmt.Errorf("invalid parameters schema: %w", err)
	}
	sch, err := compileSchemaDoc(doc, schemaURL, detectDraft(doc))
	if err != nil {
		return nil, fmt.Errorf("invalid parameters schema: %w", err)
	}
	return sch, nil
}

var (
	keywords2020 = []string{"prefixItems", "$dynamicAnchor", "$dynamicRef"}
	keywords2019 = []string{"dependentRequired", "dependentSchemas", "maxContains", "minContains",
		"unevaluatedItems", "unevaluatedProperties", "$recursiveAnchor", "$recursiveRef"}
)

func detectDraft(doc any) draft {
	if m, ok := doc.(map[string]any); ok {
		if s, has := m["$schema"]; has {
			str, _ := s.(string)
			switch {
			case strings.Contains(str, "2020-12"):
				return draft2020
			case strings.Contains(str, "2019-09"):
				return draft2019
			}
			return draft7
		}
	}
	switch {
	case hasKeyword(doc, keywords2020):
		return draft2020
	case hasKeyword(doc, keywords2019):
		return draft2019
	}
	return draft7
}

// hasKeyword reports whether any object anywhere in v has one of the keys.
func hasKeyword(v any, keys []string) bool {
	switch v := v.(type) {
	case map[string]any:
		for _, k := range keys {
			if _, ok := v[k]; ok {
				return true
			}
		}
		for _, child := range v {
			if hasKeyword(child, keys) {
				return true
			}
		}
	case []any:
		for _, child := range v {
			if hasKeyword(child, keys) {
				return true
			}
		}
	}
	return false
}
