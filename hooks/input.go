package hooks

import (
	"strings"
	"unicode"

	"github.com/kimigo/kimigo/llm/plainjson"
)

// snakeCase converts a camelCase key to snake_case (toolInput →
// tool_input, toolCallId → tool_call_id); snake_case keys pass unchanged.
func snakeCase(key string) string {
	if !strings.ContainsFunc(key, unicode.IsUpper) {
		return key
	}
	var b strings.Builder
	b.Grow(len(key) + 4)
	for i, r := range key {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// encodeInput is the JSON a hook reads on stdin (spec 06 §6.2): the three
// common fields plus the event's fields, whose top-level keys become
// snake_case while nested values pass untouched (tool arguments keep
// their own names). Nothing is HTML-escaped.
func encodeInput(event Event, sessionID, cwd string, fields map[string]any) ([]byte, error) {
	m := make(map[string]any, len(fields)+3)
	for k, v := range fields {
		m[snakeCase(k)] = v
	}
	m["hook_event_name"] = string(event)
	m["session_id"] = sessionID
	m["cwd"] = cwd
	return plainjson.Marshal(m)
}
