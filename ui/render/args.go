package render

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// keyArgLimit is how many characters of a key argument a header shows.
const keyArgLimit = 60

// stringArg is one top-level string argument, in the model's order.
type stringArg struct{ key, value string }

// stringArgs returns the top-level string arguments of a JSON object in
// the order they appear; anything that is not an object gives none.
func stringArgs(raw []byte) []stringArg {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var out []stringArg
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return out
		}
		key, _ := kt.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return out
		}
		var s string
		if len(v) > 0 && v[0] == '"' && json.Unmarshal(v, &s) == nil {
			out = append(out, stringArg{key, s})
		}
	}
	return out
}

func argValue(args []stringArg, keys ...string) string {
	for _, k := range keys {
		for _, a := range args {
			if a.key == k && strings.TrimSpace(a.value) != "" {
				return a.value
			}
		}
	}
	return ""
}

func boolArg(raw []byte, key string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return false
	}
	return string(m[key]) == "true"
}

// KeyArgument is the one argument a tool call's header shows (spec 06
// §5.6.3): the command, path, pattern, URL or query that says what the
// call does, on one line, at most 60 characters.
func KeyArgument(name string, raw []byte, workDir string) string {
	args := stringArgs(raw)
	first := ""
	for _, a := range args {
		if strings.TrimSpace(a.value) != "" {
			first = a.value
			break
		}
	}
	return keyArgument(name, func(keys ...string) string { return argValue(args, keys...) },
		func(key string) bool { return boolArg(raw, key) }, first, workDir)
}

// PartialKeyArgument is KeyArgument of arguments still arriving.
func PartialKeyArgument(name, partial, workDir string) string {
	lookup := func(keys ...string) string {
		for _, k := range keys {
			if v, ok := partialString(partial, k); ok && strings.TrimSpace(v) != "" {
				return v
			}
		}
		return ""
	}
	_, first := PartialField(partial)
	return keyArgument(name, lookup, func(string) bool { return false }, first, workDir)
}

func keyArgument(name string, arg func(keys ...string) string, flag func(string) bool, first, workDir string) string {
	var v string
	switch name {
	case "Bash":
		v = arg("command")
		if line, _, multi := strings.Cut(strings.TrimSpace(v), "\n"); multi {
			return cutRunes(line, keyArgLimit) + Ellipsis
		}
	case "Read", "Write", "Edit", "ReadMediaFile":
		v = relative(arg("path", "file_path"), workDir)
	case "Grep":
		v = arg("pattern")
	case "Glob":
		v = arg("pattern")
		if p := arg("path"); p != "" {
			v += " · " + relative(p, workDir)
		}
		if flag("include_ignored") {
			v += " · include ignored"
		}
	case "FetchURL":
		v = arg("url")
	case "WebSearch":
		v = arg("query")
	case "Agent":
		v = arg("description", "prompt")
	default:
		v = first
	}
	v, _, _ = strings.Cut(strings.TrimSpace(v), "\n")
	return cutRunes(v, keyArgLimit)
}

// RelPath shows a path under the work dir relative to it, any other as
// it is.
func RelPath(p, workDir string) string { return relative(p, workDir) }

// relative shows a path under the work dir relative to it.
func relative(p, workDir string) string {
	if p == "" || workDir == "" || !filepath.IsAbs(p) {
		return p
	}
	if r, err := filepath.Rel(workDir, p); err == nil && r != ".." && !strings.HasPrefix(r, "../") {
		return r
	}
	return p
}

// cutRunes cuts s to n characters, ending it with … when it was cut.
func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + Ellipsis
}

// previewKeys are the fields a streaming call's preview looks for, in
// order.
var previewKeys = []string{"path", "file_path", "command", "pattern", "query", "url", "description", "title", "name"}

// PartialField finds the first of the preview fields in the beginning
// of a JSON object that is still arriving, and returns its value so far
// (unescaped; a value cut mid-escape loses the cut escape).
func PartialField(partial string) (key, value string) {
	for _, k := range previewKeys {
		if v, ok := partialString(partial, k); ok {
			return k, v
		}
	}
	return "", ""
}

func partialString(s, key string) (string, bool) {
	needle := `"` + key + `"`
	i := strings.Index(s, needle)
	for i >= 0 {
		rest := strings.TrimLeft(s[i+len(needle):], " \t\r\n")
		if strings.HasPrefix(rest, ":") {
			rest = strings.TrimLeft(rest[1:], " \t\r\n")
			if !strings.HasPrefix(rest, `"`) {
				return "", false
			}
			return unescapePartial(rest[1:]), true
		}
		j := strings.Index(s[i+1:], needle)
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return "", false
}

// unescapePartial decodes a JSON string body up to its closing quote or
// the end of the input.
func unescapePartial(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			return b.String()
		case c == '\\':
			if i+1 >= len(s) {
				return b.String()
			}
			i++
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
			case 'u':
				if i+4 >= len(s) {
					return b.String()
				}
				var str string
				if json.Unmarshal([]byte(`"\u`+s[i+1:i+5]+`"`), &str) == nil {
					b.WriteString(str)
				}
				i += 4
			default:
				b.WriteByte(s[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// MCPName splits a qualified MCP tool name mcp__<server>__<tool>.
func MCPName(name string) (server, tool string, ok bool) {
	rest, ok := strings.CutPrefix(name, "mcp__")
	if !ok {
		return "", "", false
	}
	server, tool, ok = strings.Cut(rest, "__")
	if !ok || server == "" || tool == "" {
		return "", "", false
	}
	return server, tool, true
}
