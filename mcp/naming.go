package mcp

import (
	"strconv"
	"strings"
	"unicode/utf16"
)

// maxToolName is the longest tool name providers accept.
const maxToolName = 64

// QualifiedName is the name the model sees for tool of server (spec 06
// §7.5): "mcp__<server>__<tool>" with every character outside
// [A-Za-z0-9_-] replaced by "_" and runs of "_" collapsed, so neither part
// holds "__". A name longer than 64 characters keeps its head and ends
// with "_" and the FNV-1a hash of the whole name, to exactly 64.
func QualifiedName(server, tool string) string {
	q := "mcp__" + sanitize(server) + "__" + sanitize(tool)
	if len(q) <= maxToolName {
		return q
	}
	h := hashName(q)
	return q[:maxToolName-len(h)-1] + "_" + h
}

// sanitize replaces characters outside [A-Za-z0-9_-] with "_" and
// collapses runs of "_".
func sanitize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	under := false
	for _, r := range s {
		ok := r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		if !ok {
			if !under {
				b.WriteByte('_')
			}
			under = true
			continue
		}
		b.WriteRune(r)
		under = false
	}
	return b.String()
}

// hashName is the 32-bit FNV-1a hash of s over UTF-16 code units, read as
// a signed integer and written in lower-case hex, sign included, padded
// with "0" to at least eight characters — the form other MCP clients use,
// so a long name is the same everywhere.
func hashName(s string) string {
	h := uint32(0x811c9dc5)
	for _, u := range utf16.Encode([]rune(s)) {
		h ^= uint32(u)
		h *= 0x01000193
	}
	x := strconv.FormatInt(int64(int32(h)), 16)
	if len(x) < 8 {
		x = strings.Repeat("0", 8-len(x)) + x
	}
	return x
}
