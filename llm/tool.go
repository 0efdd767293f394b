package llm

import "encoding/json"

// Tool is a tool definition offered to the model.
type Tool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Parameters is a JSON Schema object. It is sent byte-for-byte as given
	// (Kimi normalises a copy), so provider prompt caches stay warm.
	Parameters json.RawMessage `json:"parameters"`
	// Deferred marks a tool the loop can execute but Generate does not
	// offer to the provider. It is never sent on a wire.
	Deferred bool `json:"deferred,omitempty"`
}

// IsBuiltin reports whether t names a Kimi builtin such as $web_search.
func (t Tool) IsBuiltin() bool { return len(t.Name) > 0 && t.Name[0] == '$' }

// offeredTools drops deferred tools. When none is deferred it returns tools
// unchanged, without copying.
func offeredTools(tools []Tool) []Tool {
	deferred := 0
	for _, t := range tools {
		if t.Deferred {
			deferred++
		}
	}
	if deferred == 0 {
		return tools
	}
	out := make([]Tool, 0, len(tools)-deferred)
	for _, t := range tools {
		if !t.Deferred {
			out = append(out, t)
		}
	}
	return out
}
