package loop

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/plainjson"
)

// Output is a tool result's data: either a string or a list of content
// parts. The zero value is the empty string. The form survives a JSON round
// trip: a string is written as a JSON string, a part list as an array.
type Output struct {
	text  string
	parts []llm.ContentPart
	list  bool
}

// TextOutput returns a string output.
func TextOutput(s string) Output { return Output{text: s} }

// PartsOutput returns a part-list output; with no parts it is the empty
// list, which is distinct from the empty string.
func PartsOutput(parts ...llm.ContentPart) Output {
	if parts == nil {
		parts = []llm.ContentPart{}
	}
	return Output{parts: parts, list: true}
}

// IsParts reports whether o is a part list.
func (o Output) IsParts() bool { return o.list }

// Text returns the string of a string output, or the concatenated text
// parts of a list.
func (o Output) Text() string {
	if !o.list {
		return o.text
	}
	var b strings.Builder
	for _, p := range o.parts {
		if p.Type == llm.PartText {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// Parts returns the parts of a list output, or nil for a string output. The
// slice is shared; do not modify it.
func (o Output) Parts() []llm.ContentPart {
	if !o.list {
		return nil
	}
	return o.parts
}

// String implements fmt.Stringer for debugging and test failure messages.
func (o Output) String() string {
	if !o.list {
		return fmt.Sprintf("%q", o.text)
	}
	return fmt.Sprintf("%v", o.parts)
}

// Equal reports whether o and p hold the same form and content; go-cmp uses
// it.
func (o Output) Equal(p Output) bool {
	if o.list != p.list {
		return false
	}
	if !o.list {
		return o.text == p.text
	}
	if len(o.parts) != len(p.parts) {
		return false
	}
	for i := range o.parts {
		a, b := o.parts[i], p.parts[i]
		if a.Type != b.Type || a.Text != b.Text || a.Think != b.Think || a.Encrypted != b.Encrypted {
			return false
		}
		if (a.Media == nil) != (b.Media == nil) || (a.Media != nil && *a.Media != *b.Media) {
			return false
		}
	}
	return true
}

// MarshalJSON writes a JSON string or an array of parts.
func (o Output) MarshalJSON() ([]byte, error) {
	if !o.list {
		return plainjson.Marshal(o.text)
	}
	parts := o.parts
	if parts == nil {
		parts = []llm.ContentPart{}
	}
	return plainjson.Marshal(parts)
}

// UnmarshalJSON reads a JSON string or an array of parts.
func (o *Output) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '[' {
		var parts []llm.ContentPart
		if err := json.Unmarshal(data, &parts); err != nil {
			return fmt.Errorf("tool output: %w", err)
		}
		*o = PartsOutput(parts...)
		return nil
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("tool output: %w", err)
	}
	*o = TextOutput(s)
	return nil
}
