package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/mcp/mcptest"
)

// `kimigo mcp add | list | get | remove` (issue 21) against the real
// server-everything: add writes the scope's file, list and get connect
// and report, remove takes it out again; bad input names what was wrong
// and writes nothing.
func TestMCPCommands(t *testing.T) {
	c := newCLI(t)
	node, script := mcptest.NpmServer(t, mcptest.EverythingPackage)
	userFile := filepath.Join(c.home, "mcp.json")

	r := c.mustRun("mcp", "list")
	if !strings.Contains(r.stdout, "No MCP servers configured") {
		t.Errorf("empty list: %v", r)
	}
	r = c.mustRun("mcp", "add", "-e", "EVERYTHING_SECRET=s3cret", "everything", node, script, "stdio")
	if !strings.Contains(r.stdout, "Added stdio MCP server everything to "+userFile) {
		t.Errorf("add: %v", r)
	}
	c.mustRun("mcp", "add", "--transport", "http", "-H", "Authorization: Bearer x", "remote", "http://127.0.0.1:1/mcp")
	r = c.run("mcp", "add", "everything", "true")
	if r.code != 1 || !strings.Contains(r.stderr, `MCP server "everything" already exists in `+userFile) {
		t.Errorf("a second add: %v", r)
	}
	before, _ := os.ReadFile(userFile)

	r = c.mustRun("mcp", "list")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "everything: "+node+" "+script+" stdio - connected (") ||
		!strings.HasPrefix(lines[1], "remote: http://127.0.0.1:1/mcp (http) - failed: ") {
		t.Errorf("list:\n%s", r.stdout)
	}
	r = c.mustRun("mcp", "get", "everything")
	for _, want := range []string{"everything:\n", "  Scope: user (" + userFile + ")", "  Status: connected (",
		"  Environment: EVERYTHING_SECRET", "kimigo mcp remove everything -s user"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("get lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "s3cret") {
		t.Errorf("get shows a secret:\n%s", r.stdout)
	}

	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"mcp", "add", "-s", "galaxy", "x", "true"}, "invalid scope 'galaxy'; expected user, project or local"},
		{[]string{"mcp", "add", "-t", "carrier-pigeon", "x", "true"}, "invalid transport 'carrier-pigeon'"},
		{[]string{"mcp", "add", "-e", "NOEQUALS", "x", "true"}, `--env "NOEQUALS" is not KEY=value`},
		{[]string{"mcp", "add", "x"}, "needs a name and a command or URL"},
		{[]string{"mcp", "remove", "nope"}, `no MCP server named "nope"`},
		{[]string{"mcp", "get", "nope"}, `no MCP server named "nope"`},
		{[]string{"mcp", "frobnicate"}, "unknown mcp command 'frobnicate'"},
	} {
		r := c.run(bad.args...)
		if r.code != 1 || !strings.Contains(r.stderr, bad.want) {
			t.Errorf("%q: %v; want %q", bad.args, r, bad.want)
		}
	}
	if after, _ := os.ReadFile(userFile); string(after) != string(before) {
		t.Errorf("bad input changed %s:\n%s", userFile, after)
	}

	r = c.mustRun("mcp", "remove", "everything")
	if !strings.Contains(r.stdout, "Removed MCP server everything from "+userFile) {
		t.Errorf("remove: %v", r)
	}
	if after, _ := os.ReadFile(userFile); strings.Contains(string(after), "everything") || !strings.Contains(string(after), "remote") {
		t.Errorf("after remove:\n%s", after)
	}
}

// A project server added with -s project is written to .mcp.json at the
// project root and, the workspace being untrusted, listed disabled
// without running.
func TestMCPCommandsProjectScopeIsUntrusted(t *testing.T) {
	c := newCLI(t)
	if err := os.Mkdir(filepath.Join(c.dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	pwned := filepath.Join(c.root, "pwned")
	r := c.mustRun("mcp", "add", "-s", "project", "evil", "sh", "--", "-c", "touch "+pwned)
	if !strings.Contains(r.stderr, "start only in a trusted workspace") {
		t.Errorf("add -s project did not warn: %v", r)
	}
	if b, err := os.ReadFile(filepath.Join(c.dir, ".mcp.json")); err != nil || !strings.Contains(string(b), `"-c"`) {
		t.Fatalf(".mcp.json = %s, %v", b, err)
	}
	r = c.mustRun("mcp", "list")
	if !strings.Contains(r.stdout, "evil: sh -c touch "+pwned+" - disabled: not started") {
		t.Errorf("list:\n%s", r.stdout)
	}
	if _, err := os.Stat(pwned); err == nil {
		t.Error("an untrusted project server ran")
	}
}
