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
	"llm":    {"loop", "agent", "agent/", "tools", "session"},
	"llm/":   {"loop", "agent", "agent/", "tools", "session"},
	"loop":   {"agent", "agent/", "tools", "osenv", "session", "config"},
	"loop/":  {"agent", "agent/", "tools", "osenv", "session", "config"},
	"agent/": {"agent", "session", "config", "acp", "ui/", "cmd/"},
	"agent":  {"session", "config", "acp", "ui/", "internal/print", "cmd/"},
	"tools":  {"agent", "agent/", "session"},
	"tools/": {"agent", "agent/", "session"},
	"osenv":  {"agent", "agent/", "session", "loop", "tools"},
	"osenv/": {"agent", "agent/", "session", "loop", "tools"},
	"config": {"agent", "agent/", "session", "loop", "tools"},
	// internal/ holds helpers and the print front end; none reaches
	// into the command.
	"internal/": {"cmd/"},
	"profile":   {"agent", "agent/", "session", "config", "tools", "tools/"},
	"profile/":  {"agent", "agent/", "session", "config", "tools", "tools/"},
	// session hosts agents for the front ends and never depends on one.
	"session":  {"cmd/", "internal/print", "ui/", "acp"},
	"session/": {"cmd/", "internal/print", "ui/", "acp"},
	// The front ends drive a session through the event contract; agent
	// internals stay out of reach.
	"ui/":  {"agent", "agent/", "acp", "cmd/"},
	"acp":  {"agent", "agent/", "ui/", "internal/print", "cmd/"},
	"acp/": {"agent", "agent/", "ui/", "internal/print", "cmd/"},
	// hooks stands alone: inputs in, decisions out (STYLE.md §1).
	"hooks":  {"agent", "agent/", "session", "tools", "tools/", "acp", "ui/", "cmd/"},
	"hooks/": {"agent", "agent/", "session", "tools", "tools/", "acp", "ui/", "cmd/"},
}

// forbiddenOutsideTests holds bans on what a package links into kimigo;
// its tests may use the real thing (agent/permission's tests build real
// tools to judge their calls). agent/... reaches tools only through
// interfaces, except background and cron (STYLE.md §2).
var forbiddenOutsideTests = map[string][]string{ // importer → what it must not import
	"agent/compaction": {"tools", "tools/"},
	"agent/history":    {"tools", "tools/"},
	"agent/permission": {"tools", "tools/"},
	"agent/records":    {"tools", "tools/"},
	"agent/replay":     {"tools", "tools/"},
	"agent/turn":       {"tools", "tools/"},
	// print mode is a front end: it drives a session through the event
	// contract (its tests drive a real agent).
	"internal/print": {"agent", "agent/", "session", "cmd/"},
	// The command parses flags, loads the configuration, opens a session
	// and runs a front end; the session builds the agents (its tests read
	// the record logs they leave).
	"cmd/": {"agent", "agent/", "tools", "tools/", "profile", "profile/", "workspace"},
}

// only lists, for the bottom layers and the leaves, every project
// package they may import at all — their tests included: llm imports
// nothing outside llm, loop nothing but llm and its own packages (STYLE.md
// §2).
var only = map[string][]string{ // importer → all it may import
	"llm":   {"llm", "llm/"},
	"llm/":  {"llm", "llm/"},
	"loop":  {"llm", "llm/", "loop", "loop/jsonschema", "loop/looptest"},
	"loop/": {"llm", "llm/", "loop"},
	// event is the vocabulary every front end sees: it speaks llm and
	// loop types and nothing of the agent.
	"event": {"llm", "llm/", "loop", "event"},
	// workspace is shared by tools and agent/permission.
	"workspace": {"osenv", "osenv/", "internal/glob", "workspace"},
	// mcp speaks to servers with the loop's tool contract.
	"mcp":  {"loop", "llm", "llm/", "osenv", "osenv/", "sandbox", "internal/bug", "mcp", "mcp/"},
	"mcp/": {"loop", "llm", "llm/", "osenv", "osenv/", "sandbox", "internal/bug", "mcp", "mcp/"},
	// sandbox is a leaf that tools, hooks and mcp import (issue 16).
	"sandbox":  {"osenv", "osenv/", "sandbox", "sandbox/"},
	"sandbox/": {"osenv", "osenv/", "sandbox", "sandbox/"},
	// The batch scheduler of AgentSwarm knows children only through its
	// Launcher (issue 19).
	"session/batch": {"llm", "loop", "session/batch"},
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
		"{{.ImportPath}} {{join .Imports \" \"}} | {{join .TestImports \" \"}} {{join .XTestImports \" \"}}", "./...").Output()
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
		production := map[string]bool{} // the package's own imports, before the "|"
		for _, imp := range fields[1:] {
			if imp == "|" {
				break
			}
			production[imp] = true
		}
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
			checkBans(t, forbidden, importer, imported)
			if production[imp] {
				checkBans(t, forbiddenOutsideTests, importer, imported)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no project imports found; is go list reading the module?")
	}
}

// checkBans reports imported when a row of table bans it for importer.
func checkBans(t *testing.T, table map[string][]string, importer, imported string) {
	t.Helper()
	for from, bans := range table {
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
