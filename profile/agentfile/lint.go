package agentfile

import (
	"fmt"
	"strings"

	"github.com/kimigo/kimigo/profile"
)

// deadPatterns warns about tools and disallowedTools entries that can
// never match anything (spec 05 §8.8): a wildcard outside an mcp__
// pattern, an mcp__ name without its __<tool> part, or an exact name no
// built-in profile knows (a typo, most likely).
func deadPatterns(d Definition, builtin *profile.Catalog) []string {
	known := map[string]bool{}
	for _, p := range builtin.Profiles() {
		for _, t := range p.Tools {
			known[t] = true
		}
	}
	var out []string
	for _, field := range []struct {
		name    string
		entries []string
	}{{"tools", d.Tools}, {"disallowedTools", d.DisallowedTools}} {
		for _, e := range field.entries {
			if why := deadPattern(e, known); why != "" {
				out = append(out, fmt.Sprintf("agent file %s: %s entry %q %s", d.Path, field.name, e, why))
			}
		}
	}
	return out
}

func deadPattern(e string, known map[string]bool) string {
	wild := strings.ContainsAny(e, "*?[")
	if rest, ok := strings.CutPrefix(e, "mcp__"); ok {
		if !wild && !strings.Contains(rest, "__") {
			return "names an MCP server but no tool (write mcp__<server>__<tool> or mcp__<server>__*); it matches nothing"
		}
		return ""
	}
	if wild {
		return "uses a wildcard, which only works in mcp__ patterns; it matches nothing"
	}
	if !known[e] {
		return "is not the name of a built-in tool; check the spelling"
	}
	return ""
}
