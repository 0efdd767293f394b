package main

import (
	"strings"
	"testing"
)

// `kimigo hooks list` and `kimigo hooks test <event>` (issue 21).
func TestHooksCommands(t *testing.T) {
	c := newCLI(t)
	r := c.mustRun("hooks")
	if !strings.Contains(r.stdout, "No hooks configured in ") {
		t.Errorf("empty list: %v", r)
	}
	c.write("../kimigo/config.toml", `[[hooks]]
event = "PreToolUse"
matcher = "^Bash$"
command = "echo 'no shell today' >&2; exit 2"
timeout = 5

[[hooks]]
event = "SessionStart"
command = "echo started"
`)
	r = c.mustRun("hooks", "list")
	want := "SessionStart (a session's main agent was created or resumed; matcher: startup | resume)\n" +
		"  [*] timeout 30s: echo started\n" +
		"PreToolUse (before the permission check of a tool call; matcher: the tool name)\n" +
		"  [^Bash$] timeout 5s: echo 'no shell today' >&2; exit 2\n"
	if r.stdout != want {
		t.Errorf("list:\n%s\nwant:\n%s", r.stdout, want)
	}
	r = c.mustRun("hooks", "test", "PreToolUse")
	if !strings.Contains(r.stdout, "exit 2 in ") || !strings.Contains(r.stdout, ": block") ||
		!strings.Contains(r.stdout, "reason: no shell today") {
		t.Errorf("test PreToolUse:\n%s", r.stdout)
	}
	r = c.mustRun("hooks", "test", "PreToolUse", "--matcher", "Read")
	if r.stdout != "No PreToolUse hook matches \"Read\".\n" {
		t.Errorf("test with another matcher:\n%s", r.stdout)
	}
	r = c.mustRun("hooks", "test", "SessionStart")
	if !strings.Contains(r.stdout, ": allow") || !strings.Contains(r.stdout, "stdout: started") {
		t.Errorf("test SessionStart:\n%s", r.stdout)
	}
	r = c.run("hooks", "test", "Sometime")
	if r.code != 1 || !strings.Contains(r.stderr, "unknown hook event 'Sometime'; expected one of SessionStart, SessionEnd") {
		t.Errorf("unknown event: %v", r)
	}
}
