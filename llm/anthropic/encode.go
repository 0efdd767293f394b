package anthropic

import "github.com/kimigo/kimigo/llm/plainjson"

// A request encodes every message of the conversation; these append the
// wire form of each by hand, byte for byte what encoding/json writes for
// the structs (field order, omitted keys, no HTML escaping), without an
// encoder or a buffer per message per request.

// appendMessage appends the encoding of m to dst.
func appendMessage(dst []byte, m *wireMessage) []byte {
	dst = append(dst, `{"role":`...)
	dst = plainjson.AppendQuote(dst, string(m.Role))
	dst = append(dst, `,"content":`...)
	dst = appendBlocks(dst, m.Content)
	return append(dst, '}')
}

// appendBlocks appends a block array; nil is null, as encoding/json has it.
func appendBlocks(dst []byte, blocks []contentBlock) []byte {
	if blocks == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '[')
	for i, b := range blocks {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = b.appendJSON(dst)
	}
	return append(dst, ']')
}

// appendField appends ,"key": and the quoted value.
func appendField(dst []byte, key, value string) []byte {
	dst = append(dst, ',', '"')
	dst = append(dst, key...)
	dst = append(dst, '"', ':')
	return plainjson.AppendQuote(dst, value)
}

// appendType opens a block: {"type":"…".
func appendType[T ~string](dst []byte, t T) []byte {
	dst = append(dst, `{"type":`...)
	return plainjson.AppendQuote(dst, string(t))
}

// appendCacheControl appends the cache_control key when c is set, and
// closes the block.
func appendCacheControl(dst []byte, c *cacheControl) []byte {
	if c != nil {
		dst = append(dst, `,"cache_control":`...)
		dst = appendType(dst, c.Type)
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

// appendRaw appends a raw value: "" is null; anything else is already
// compact JSON (toolInput sees to it), which encoding/json would copy.
func appendRaw(dst []byte, v rawJSON) []byte {
	if v == "" {
		return append(dst, "null"...)
	}
	return append(dst, v...)
}

func (b *textBlock) appendJSON(dst []byte) []byte {
	dst = appendType(dst, b.Type)
	dst = appendField(dst, "text", b.Text)
	return appendCacheControl(dst, b.CacheControl)
}

func (b *thinkingBlock) appendJSON(dst []byte) []byte {
	dst = appendType(dst, b.Type)
	dst = appendField(dst, "thinking", b.Thinking)
	if b.Signature != "" {
		dst = appendField(dst, "signature", b.Signature)
	}
	return append(dst, '}')
}

func (b *mediaBlock) appendJSON(dst []byte) []byte {
	dst = appendType(dst, b.Type)
	dst = append(dst, `,"source":`...)
	s := &b.Source
	dst = appendType(dst, s.Type)
	for _, f := range [...]struct{ key, value string }{{"media_type", s.MediaType}, {"data", s.Data}, {"url", s.URL}} {
		if f.value != "" {
			dst = appendField(dst, f.key, f.value)
		}
	}
	dst = append(dst, '}')
	return appendCacheControl(dst, b.CacheControl)
}

func (b *toolUseBlock) appendJSON(dst []byte) []byte {
	dst = appendType(dst, b.Type)
	dst = appendField(dst, "id", b.ID)
	dst = appendField(dst, "name", b.Name)
	dst = append(dst, `,"input":`...)
	dst = appendRaw(dst, b.Input)
	return appendCacheControl(dst, b.CacheControl)
}

func (b *toolResultBlock) appendJSON(dst []byte) []byte {
	dst = appendType(dst, b.Type)
	dst = appendField(dst, "tool_use_id", b.ToolUseID)
	dst = append(dst, `,"content":`...)
	dst = appendBlocks(dst, b.Content)
	return appendCacheControl(dst, b.CacheControl)
}

// sameMessage reports whether a and b encode the same: wire.Sizes asks it
// of every message a request repeats from the last, which reflect.DeepEqual
// answered at several times the cost.
func sameMessage(a, b *wireMessage) bool {
	return a.Role == b.Role && sameBlocks(a.Content, b.Content)
}

// sameBlocks compares block lists; nil (null) differs from empty ([]).
func sameBlocks(a, b []contentBlock) bool {
	if len(a) != len(b) || (a == nil) != (b == nil) {
		return false
	}
	for i := range a {
		if !sameBlock(a[i], b[i]) {
			return false
		}
	}
	return true
}

func sameBlock(a, b contentBlock) bool {
	switch a := a.(type) {
	case *textBlock:
		b, ok := b.(*textBlock)
		return ok && a.Type == b.Type && a.Text == b.Text && sameCache(a.CacheControl, b.CacheControl)
	case *thinkingBlock:
		b, ok := b.(*thinkingBlock)
		return ok && *a == *b
	case *mediaBlock:
		b, ok := b.(*mediaBlock)
		return ok && a.Type == b.Type && a.Source == b.Source && sameCache(a.CacheControl, b.CacheControl)
	case *toolUseBlock:
		b, ok := b.(*toolUseBlock)
		return ok && a.Type == b.Type && a.ID == b.ID && a.Name == b.Name && a.Input == b.Input &&
			sameCache(a.CacheControl, b.CacheControl)
	case *toolResultBlock:
		b, ok := b.(*toolResultBlock)
		return ok && a.Type == b.Type && a.ToolUseID == b.ToolUseID && sameBlocks(a.Content, b.Content) &&
			sameCache(a.CacheControl, b.CacheControl)
	}
	return false
}

func sameCache(a, b *cacheControl) bool {
	return a == b || (a != nil && b != nil && *a == *b)
}
