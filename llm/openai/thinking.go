package openai

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
)

// thinkingKey is Kimi's thinking control, hoisted to the top level.
const thinkingKey = "thinking"

// Kimi thinking types and the effort words of llm.Provider.WithThinking.
const (
	thinkingEnabled  = "enabled"
	thinkingDisabled = "disabled"
	effortOff        = "off"
	effortOn         = "on"
	keepAll          = "all"
)

// extraBody is the set of extra top-level request keys. For Kimi the
// thinking object is kept apart so it can be merged field by field. Values
// are immutable: merges return a new extraBody with fresh maps.
type extraBody struct {
	keys     map[string]json.RawMessage
	thinking map[string]json.RawMessage // Kimi only; nil means absent
}

// merge applies a patch: last writer wins, except Kimi's thinking.
func (b extraBody) merge(f Flavour, patch map[string]json.RawMessage) extraBody {
	if len(patch) == 0 {
		return b
	}
	out := extraBody{keys: maps.Clone(b.keys), thinking: b.thinking}
	for k, v := range patch {
		if f == Kimi && k == thinkingKey {
			out = out.patchThinking(v)
			continue
		}
		if out.keys == nil {
			out.keys = map[string]json.RawMessage{}
		}
		out.keys[k] = bytes.Clone(v)
	}
	return out
}

// patchThinking merges a raw thinking patch: an object is merged field by
// field, null removes the thinking object, anything else replaces nothing.
func (b extraBody) patchThinking(v json.RawMessage) extraBody {
	if bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
		b.thinking = nil
		return b
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(v, &fields) != nil || fields == nil {
		// Not an object: an invalid patch is reported by Generate.
		if b.keys == nil {
			b.keys = map[string]json.RawMessage{}
		}
		b.keys[thinkingKey] = bytes.Clone(v)
		return b
	}
	return b.mergeThinking(fields)
}

// mergeThinking merges fields into the thinking object; no fields is a
// no-op.
func (b extraBody) mergeThinking(fields map[string]json.RawMessage) extraBody {
	if len(fields) == 0 {
		return b
	}
	t := maps.Clone(b.thinking)
	if t == nil {
		t = map[string]json.RawMessage{}
	}
	for k, v := range fields {
		t[k] = bytes.Clone(v)
	}
	b.thinking = t
	return b
}

// withThinking replaces the thinking object for effort, keeping keep.
func (b extraBody) withThinking(effort string) extraBody {
	t := map[string]json.RawMessage{}
	switch effort {
	case effortOff:
		t["type"] = jsonString(thinkingDisabled)
	case effortOn:
		t["type"] = jsonString(thinkingEnabled)
	default:
		t["type"] = jsonString(thinkingEnabled)
		t["effort"] = jsonString(effort)
	}
	if keep, ok := b.thinking["keep"]; ok {
		t["keep"] = keep
	}
	b.thinking = t
	return b
}

// thinkingEffort reads ThinkingEffort back from the thinking object.
func (b extraBody) thinkingEffort() string {
	if b.thinking == nil {
		return ""
	}
	if rawString(b.thinking["type"]) == thinkingDisabled {
		return effortOff
	}
	if e := rawString(b.thinking["effort"]); e != "" {
		return e
	}
	return effortOn
}

// preservedThinking is Kimi's "keep all" while thinking is not disabled: every
// assistant message then carries the reasoning key.
func (b extraBody) preservedThinking() bool {
	return b.thinking != nil && rawString(b.thinking["keep"]) == keepAll &&
		rawString(b.thinking["type"]) != thinkingDisabled
}

// thinkingOrder is the field order of the encoded thinking object; other
// fields follow, sorted.
var thinkingOrder = []string{"type", "effort", "keep"}

// encodeThinking writes the thinking object with a stable field order.
func (b extraBody) encodeThinking(w *writer) {
	w.beginObject()
	for _, k := range thinkingOrder {
		if v, ok := b.thinking[k]; ok {
			w.rawField(k, v)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(b.thinking)) {
		if !slices.Contains(thinkingOrder, k) {
			w.rawField(k, b.thinking[k])
		}
	}
	w.endObject()
}

func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s) // a string always marshals
	return b
}

// rawString decodes a JSON string value, or returns "" for anything else.
func rawString(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) != nil {
		return ""
	}
	return s
}
