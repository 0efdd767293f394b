package kimigo_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// forbidden states the dependency direction of STYLE.md §2. Paths are
// module-relative; an entry ending in "/" matches every package below it,
// any other entry matches exactly one package. When this test fails, fix
// the import, not the table.
var forbidden = map[string][]string{ // importer → what it must not import
	"llm":       {"loop", "agent", "agent/", "tools", "session"},
	"llm/":      {"loop", "agent", "agent/", "tools", "session"},
	"loop":      {"agent", "agent/", "tools", "osenv", "session", "config"},
	"loop/":     {"agent", "agent/", "tools", "osenv", "session", "config"},
	"agent/":    {"agent", "session", "config", "acp", "internal/tui"},
	"agent":     {"session", "config", "acp", "internal/tui", "internal/print"},
	"tools":     {"agent", "agent/", "session"},
	"tools/":    {"agent", "agent/", "session"},
	"mcp":       {"agent", "agent/", "session"},
	"osenv":     {"agent", "agent/", "session", "loop", "tools"},
	"osenv/":    {"agent", "agent/", "session", "loop", "tools"},
	"config":    {"agent", "agent/", "session", "loop", "tools"},
	"internal/": {"cmd/"},
	"profile":   {"agent", "agent/", "session", "config", "tools", "tools/"},
	"profile/":  {"agent", "agent/", "session", "config", "tools", "tools/"},
}

// only lists, for the bottom layers, every project package they may
// import at all — their tests included: llm imports nothing outside llm,
// loop nothing but llm and its own test doubles (STYLE.md §2).
var only = map[string][]string{ // importer → all it may import
	"llm":   {"llm", "llm/"},
	"llm/":  {"llm", "llm/"},
	"loop":  {"llm", "llm/", "loop", "loop/jsonschema", "loop/looptest"},
	"loop/": {"llm", "llm/", "loop"},
	// sandbox is a leaf that tools, hooks and mcp import (issue 16).
	"sandbox": {"sandbox", "osenv"},
}

const module = "github.com/kimigo/kimigo"

func matches(pattern, pkg string) bool {
	if strings.HasSuffix(pattern, "/") {
		return strings.HasPrefix(pkg, pattern)
	}
	return pkg == pattern
}

func TestImportPolicy(t *testing.T) {
	out, err := exec.Command("go", "list", "-f",
		"{{.ImportPath}} {{join .Imports \" \"}} {{join .TestImports \" \"}} {{join .XTestImports \" \"}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		importer := strings.TrimPrefix(strings.TrimPrefix(fields[0], module), "/")
		for _, imp := range fields[1:] {
			if !strings.HasPrefix(imp, module+"/") {
				continue
			}
			imported := strings.TrimPrefix(imp, module+"/")
			checked++
			for from, allowed := range only {
				if matches(from, importer) && !slices.ContainsFunc(allowed, func(a string) bool { return matches(a, imported) }) {
					t.Errorf("%s imports %s; STYLE.md §2 allows %s to import only %v", importer, imported, from, allowed)
				}
			}
			for from, bans := range forbidden {
				if !matches(from, importer) {
					continue
				}
				for _, ban := range bans {
					if matches(ban, imported) {
						t.Errorf("%s imports %s, which STYLE.md §2 forbids (%s must not import %s)",
							importer, imported, from, ban)
					}
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no project imports found; is go list reading the module?")
	}
}
