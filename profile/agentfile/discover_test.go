package agentfile

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/osenv"
)

func agentMD(name, desc string) string {
	return fmt.Sprintf("---\nname: %s\ndescription: %s\n---\nBody of %s.\n", name, desc, name)
}

func TestRoots(t *testing.T) {
	env := newEnv(map[string]string{
		dataHome + "/agents/a.md":              "",
		"/home/user/.agents/agents/b.md":       "",
		"/ws/.kimi-code/agents/c.md":           "",
		"/ws/.agents/agents/d.md":              "",
		"/ws/extra/e.md":                       "",
		"/home/user/more/f.md":                 "",
		"/plug/g.md":                           "",
		"/ws/sub/.kimi-code/agents/ignored.md": "",
	})
	got := Roots(env, Options{WorkDir: "/ws/sub", DataHome: dataHome,
		ExtraDirs: []string{"extra", "~/more", "/nope", "extra/"}, PluginDirs: []string{"/plug"}})
	want := []Root{
		{dataHome + "/agents", SourceUser}, {"/home/user/.agents/agents", SourceUser},
		{"/ws/extra", SourceExtra}, {"/home/user/more", SourceExtra},
		{"/ws/.kimi-code/agents", SourceProject}, {"/ws/.agents/agents", SourceProject},
		{"/plug", SourcePlugin},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("roots (-want +got):\n%s", diff)
	}
}

// failing makes ReadDir fail for the listed directories.
type failing struct {
	osenv.FS
	dirs map[string]bool
}

func (f failing) ReadDir(name string) ([]fs.DirEntry, error) {
	if f.dirs[name] {
		return nil, &fs.PathError{Op: "open", Path: name, Err: errors.New("permission denied")}
	}
	return f.FS.ReadDir(name)
}

func TestDiscover(t *testing.T) {
	files := map[string]string{
		"/r/b.md":                   agentMD("bee", "from b"),
		"/r/a/deep.md":              agentMD("bee", "shadowed within the source"),
		"/r/.hidden/h.md":           agentMD("hidden", "skipped"),
		"/r/node_modules/n.md":      agentMD("nm", "skipped"),
		"/r/notes.txt":              "not markdown",
		"/r/broken.md":              "no frontmatter",
		"/r/1/2/3/4/5/6/7/8/ok.md":  agentMD("deep-ok", "depth 8"),
		"/r/1/2/3/4/5/6/7/8/9/x.md": agentMD("too-deep", "depth 9"),
		"/s/b.md":                   agentMD("bee", "other source"),
	}
	fail := map[string]bool{}
	for i := range 7 {
		d := fmt.Sprintf("/r/locked%d", i)
		files[d+"/x.md"] = agentMD("locked", "unreadable")
		fail[d] = true
	}
	env := newEnv(files)
	defs, warns := Discover(failing{FS: env, dirs: fail}, []Root{{"/r", SourceUser}, {"/s", SourceProject}})
	var got []string
	for _, d := range defs {
		got = append(got, fmt.Sprintf("%s %s %s", d.Source, d.Name, d.Description))
	}
	want := []string{"user deep-ok depth 8", "user bee shadowed within the source", "project bee other source"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("definitions (-want +got):\n%s", diff)
	}
	var msgs []string
	for _, w := range warns {
		if w.Code != WarningAgentFile {
			t.Errorf("warning code %q", w.Code)
		}
		msgs = append(msgs, w.Message)
	}
	all := strings.Join(msgs, "\n")
	if !strings.Contains(all, "skipped agent file: missing frontmatter in /r/broken.md") {
		t.Errorf("no warning for the broken file:\n%s", all)
	}
	if n := strings.Count(all, "skipped unreadable agent directory"); n != 5 {
		t.Errorf("%d unreadable-directory warnings, want 5:\n%s", n, all)
	}
	if !strings.Contains(all, "skipped 2 more unreadable agent directories, among them /r/locked5, /r/locked6") {
		t.Errorf("no summary of the suppressed directories:\n%s", all)
	}
}

func TestDeadPatterns(t *testing.T) {
	env := newEnv(map[string]string{
		"/ws/.kimi-code/agents/x.md": "---\ndescription: d\ntools: [Read, Raed, 'Bas*', mcp__gh, mcp__gh__*, mcp__gh__list]\ndisallowedTools: ['*']\n---\nb\n",
	})
	l := load(t, env, Options{})
	var msgs []string
	for _, w := range l.Warnings {
		msgs = append(msgs, w.Message)
	}
	want := []string{
		`agent file /ws/.kimi-code/agents/x.md: tools entry "Raed" is not the name of a built-in tool; check the spelling`,
		`agent file /ws/.kimi-code/agents/x.md: tools entry "Bas*" uses a wildcard, which only works in mcp__ patterns; it matches nothing`,
		`agent file /ws/.kimi-code/agents/x.md: tools entry "mcp__gh" names an MCP server but no tool (write mcp__<server>__<tool> or mcp__<server>__*); it matches nothing`,
		`agent file /ws/.kimi-code/agents/x.md: disallowedTools entry "*" uses a wildcard, which only works in mcp__ patterns; it matches nothing`,
	}
	if diff := cmp.Diff(want, msgs); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

func TestUnknownSubagentWarns(t *testing.T) {
	env := newEnv(map[string]string{
		"/ws/.kimi-code/agents/lead.md": "---\ndescription: d\nsubagents: explore, ghost\n---\nb\n",
	})
	l := load(t, env, Options{})
	p, _ := l.Catalog.Get("lead")
	if !cmp.Equal([]string{"explore"}, p.Subagents) || !warningsContain(l.Warnings, `agent file profile "lead" declares subagent "ghost" but that agent profile was not found`) {
		t.Errorf("subagents %v, warnings %+v", p.Subagents, l.Warnings)
	}
}
