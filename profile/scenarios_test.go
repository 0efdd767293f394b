package profile

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// Spec 05 §12 scenarios 73–79 (profiles and prompt). Workspace /ws with a
// .git, POSIX.

func yamlFS(files map[string]string) fstest.MapFS {
	m := fstest.MapFS{}
	for name, data := range files {
		m[name] = &fstest.MapFile{Data: []byte(data)}
	}
	return m
}

func TestScenario73ExtendsOverride(t *testing.T) {
	fsys := yamlFS(map[string]string{
		"p/base.yaml": `name: base
description: B
systemPromptTemplate: "role={{ .ROLE_ADDITIONAL }} x={{ .x }}"
promptVars: {roleAdditional: r1, x: 1}
tools: [Read]
`,
		"p/child.yaml": `name: child
extends: base
promptVars: {roleAdditional: r2}
tools: [Bash]
`,
		"p/bare.yaml": "name: bare\nextends: base\n",
	})
	c, err := Load(fsys, "p/base.yaml", "p/child.yaml", "p/bare.yaml")
	if err != nil {
		t.Fatal(err)
	}
	child, _ := c.Get("child")
	got, err := child.SystemPrompt(PromptContext{})
	if err != nil || got != "role=r2 x=1" {
		t.Errorf("child renders %q, %v; want %q", got, err, "role=r2 x=1")
	}
	if diff := cmp.Diff([]string{"Bash"}, child.Tools); diff != "" {
		t.Errorf("child tools (-want +got):\n%s", diff)
	}
	if child.Description != "" {
		t.Errorf("child description = %q; descriptions are not inherited", child.Description)
	}
	bare, _ := c.Get("bare")
	if diff := cmp.Diff([]string{"Read"}, bare.Tools); diff != "" {
		t.Errorf("a child without tools inherits the parent's (-want +got):\n%s", diff)
	}
	base, _ := c.Get("base")
	if got, _ := base.SystemPrompt(PromptContext{}); got != "role=r1 x=1" {
		t.Errorf("base renders %q, want %q", got, "role=r1 x=1")
	}
}

func TestScenario74ProfileErrors(t *testing.T) {
	for _, tt := range []struct {
		name  string
		files map[string]string
		want  []string // substrings of the error
	}{
		{"duplicate name", map[string]string{
			"a.yaml": "name: agent\n", "b.yaml": "name: agent\n",
		}, []string{`duplicate agent profile name: "agent"`}},
		{"extends cycle", map[string]string{
			"a.yaml": "name: a\nextends: b\n", "b.yaml": "name: b\nextends: a\n",
		}, []string{"agent profile extends cycle detected: a -> b -> a"}},
		{"unknown parent", map[string]string{
			"a.yaml": "name: a\nextends: nope\n",
		}, []string{`agent profile "a" extends "nope" but parent profile was not found`}},
		{"unknown subagent", map[string]string{
			"a.yaml": "name: a\nsubagents: {ghost: {}}\n",
		}, []string{`agent profile "a" declares subagent "ghost" but that agent profile was not found`}},
		{"undefined variable, inline", map[string]string{
			"a.yaml": "name: a\nsystemPromptTemplate: \"hello\\n{{ .MISSING }}\"\n",
		}, []string{`system prompt for agent profile "a"`, "a.yaml#systemPromptTemplate:2:", `unknown variable "MISSING"`}},
		{"undefined variable, template file", map[string]string{
			"d/a.yaml": "name: a\nsystemPromptPath: a.md\n",
			"d/a.md":   "# Role\n\n{{if .KIMI_SKILLS}}{{.KIMI_SKILL}}{{end}}\n",
		}, []string{`system prompt for agent profile "a"`, "d/a.md:3:", `unknown variable "KIMI_SKILL"`}},
		{"bad template syntax", map[string]string{
			"a.yaml": "name: a\nsystemPromptTemplate: \"{{if .KIMI_OS}}open\"\n",
		}, []string{`system prompt for agent profile "a"`, "a.yaml#systemPromptTemplate:1"}},
		{"bad YAML", map[string]string{
			"a.yaml": "name: [a\n",
		}, []string{"invalid agent profile YAML at a.yaml: [1:7]"}},
		{"no name", map[string]string{
			"a.yaml": "description: x\n",
		}, []string{"invalid agent profile at a.yaml: name must be a non-empty string"}},
		{"bad model preference", map[string]string{
			"a.yaml": "name: a\nmodelPreference: fast\n",
		}, []string{`invalid agent profile at a.yaml: modelPreference must be "primary" or "secondary"`}},
		{"missing template file", map[string]string{
			"a.yaml": "name: a\nsystemPromptPath: gone.md\n",
		}, []string{`read system prompt template for "a" at gone.md`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var names []string
			for n := range tt.files {
				if strings.HasSuffix(n, ".yaml") {
					names = append(names, n)
				}
			}
			slices.Sort(names)
			_, err := Load(yamlFS(tt.files), names...)
			if err == nil {
				t.Fatal("Load succeeded; want an error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// TestScenario74RenderError: a failure while executing a template names
// the profile (compile-time checks catch undefined names first).
func TestScenario74RenderError(t *testing.T) {
	c, err := Load(yamlFS(map[string]string{"a.yaml": "name: a\nsystemPromptTemplate: \"{{ index .KIMI_OS 99 }}\"\n"}), "a.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, _ := c.Get("a")
	_, err = p.SystemPrompt(PromptContext{OS: "Linux"})
	if err == nil || !strings.Contains(err.Error(), `render system prompt for agent profile "a": template: a.yaml#systemPromptTemplate:1:`) {
		t.Errorf("render error = %v; want one naming the profile and the template position", err)
	}
}

func TestScenario75SkillsGating(t *testing.T) {
	pc, _ := prepare(t, newEnv(t, smallRepo()), "/ws")
	c := builtin(t)
	pc.Skills = "### Project\n- review: Review the current diff for bugs"
	for name, want := range map[string]bool{"agent": true, "coder": true, "explore": false, "plan": false} {
		got := render(t, c, name, pc)
		has := strings.Contains(got, "\n# Skills\n") && strings.Contains(got, "- review: Review the current diff for bugs")
		if has != want {
			t.Errorf("%s: skills section present = %v, want %v", name, has, want)
		}
	}
	pc.Skills = ""
	for _, name := range c.Names() {
		if got := render(t, c, name, pc); strings.Contains(got, "# Skills") {
			t.Errorf("%s has a skills section without skills", name)
		}
	}
}

func TestScenario76AgentsMDPrecedence(t *testing.T) {
	files := map[string]string{
		"/ws/.git/HEAD":                  "ref: refs/heads/main\n",
		"/home/user/.kimigo/AGENTS.md":   "u1\n",
		"/home/user/.agents/agents.md":   "u2\n",
		"/ws/AGENTS.md":                  "root\n",
		"/ws/pkg/.kimi-code/AGENTS.md":   "brand\n",
		"/ws/pkg/AGENTS.md":              "  leaf  \n",
		"/ws/pkg/agents.md":              "ignored\n",
		"/ws/pkg/sub/AGENTS.md":          "below the cwd\n",
		"/ws/pkg/.kimi-code/x/AGENTS.md": "not a candidate\n",
	}
	pc, warns := prepare(t, newEnv(t, files), "/ws/pkg")
	want := strings.Join([]string{
		"<!-- From: /home/user/.kimigo/AGENTS.md -->\nu1",
		"<!-- From: /home/user/.agents/agents.md -->\nu2",
		"<!-- From: /ws/AGENTS.md -->\nroot",
		"<!-- From: /ws/pkg/.kimi-code/AGENTS.md -->\nbrand",
		"<!-- From: /ws/pkg/AGENTS.md -->\nleaf",
	}, "\n\n")
	if diff := cmp.Diff(want, pc.AgentsMD); diff != "" {
		t.Errorf("KIMI_AGENTS_MD (-want +got):\n%s", diff)
	}
	if len(warns) != 0 {
		t.Errorf("warnings = %v, want none", warns)
	}
	got := render(t, builtin(t), "", pc)
	if !strings.Contains(got, "```````\n"+want+"\n```````") {
		t.Error("the prompt does not carry the merged AGENTS.md in a 7-backtick fence")
	}

	// An empty AGENTS.md is skipped; with none left the prompt says so.
	files = map[string]string{"/ws/.git/HEAD": "x", "/ws/AGENTS.md": " \n\t\n"}
	pc, _ = prepare(t, newEnv(t, files), "/ws")
	if pc.AgentsMD != "" {
		t.Errorf("blank AGENTS.md contributed %q", pc.AgentsMD)
	}
	if got := render(t, builtin(t), "", pc); strings.Contains(got, "```````") || !strings.Contains(got, "No `AGENTS.md` was found") {
		t.Error("a prompt without AGENTS.md content must have no fence and say none was found")
	}
}

// TestScenario76ReadOnce: a file reachable by two rules (here the data
// root is the project's .kimi-code directory) is read once.
func TestScenario76ReadOnce(t *testing.T) {
	env := newEnv(t, map[string]string{"/ws/.kimi-code/AGENTS.md": "brand\n", "/ws/AGENTS.md": "root\n"})
	pc, _, err := PrepareContext(t.Context(), env, "/ws", nil, "/ws/sub/../.kimi-code")
	if err != nil {
		t.Fatal(err)
	}
	want := "<!-- From: /ws/.kimi-code/AGENTS.md -->\nbrand\n\n<!-- From: /ws/AGENTS.md -->\nroot"
	if diff := cmp.Diff(want, pc.AgentsMD); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestScenario77AgentsMDWarning(t *testing.T) {
	header := "<!-- From: /ws/AGENTS.md -->\n"
	body := strings.Repeat("x", 40960-len(header))
	pc, warns := prepare(t, newEnv(t, map[string]string{"/ws/.git/HEAD": "x", "/ws/AGENTS.md": body}), "/ws")
	if len(pc.AgentsMD) != 40960 || !strings.HasSuffix(pc.AgentsMD, body) {
		t.Fatalf("merged AGENTS.md is %d bytes, want all 40960", len(pc.AgentsMD))
	}
	if len(warns) != 1 || warns[0].Code != WarningAgentsMDOversized ||
		!strings.HasPrefix(warns[0].Message, "AGENTS.md total 40 KB exceeds the recommended 32 KB.") {
		t.Fatalf("warnings = %+v; want one agents-md-oversized warning for 40 KB", warns)
	}
	if got := render(t, builtin(t), "", pc); !strings.Contains(got, body) {
		t.Error("the oversized content was cut from the prompt")
	}
	// Exactly 32 KiB is within the recommendation; one decimal past it.
	_, warns = prepare(t, newEnv(t, map[string]string{"/ws/AGENTS.md": strings.Repeat("y", 32768-len(header))}), "/ws")
	if len(warns) != 0 {
		t.Errorf("32 KiB drew warnings %v", warns)
	}
	for n, want := range map[int]string{40960: "40", 33 * 1024: "33", 33000: "32.2"} {
		if got := kib(n); got != want {
			t.Errorf("kib(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestScenario78Rerender: the profile half of the refresh after
// compaction. A prompt rendered from the old context keeps the old
// AGENTS.md; gathering the context again picks up the edit.
func TestScenario78Rerender(t *testing.T) {
	env := newEnv(t, map[string]string{"/ws/.git/HEAD": "x", "/ws/AGENTS.md": "old rules\n"})
	c := builtin(t)
	before, _ := prepare(t, env, "/ws")
	if err := env.WriteFile("/ws/AGENTS.md", []byte("new rules\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := render(t, c, "", before); !strings.Contains(got, "old rules") || strings.Contains(got, "new rules") {
		t.Error("a render from the old context changed")
	}
	after, _ := prepare(t, env, "/ws")
	if got := render(t, c, "", after); !strings.Contains(got, "new rules") || strings.Contains(got, "old rules") {
		t.Error("the re-gathered context lacks the edited AGENTS.md")
	}
}

func TestScenario79DirectoryListing(t *testing.T) {
	env := newEnv(t, map[string]string{
		"/ws/.github/workflows/ci.yml": "",
		"/ws/src/index.ts":             "",
		"/ws/package.json":             "{}",
	})
	pc, _ := prepare(t, env, "/ws")
	want := "├── .github/\n├── src/\n│   └── index.ts\n└── package.json"
	if diff := cmp.Diff(want, pc.WorkDirListing); diff != "" {
		t.Errorf("listing (-want +got):\n%s", diff)
	}
	if got := render(t, builtin(t), "", pc); !strings.Contains(got, "```\n"+want+"\n```") {
		t.Error("the prompt lacks the fenced listing")
	}

	files := map[string]string{}
	for i := range 35 {
		files[fmt.Sprintf("/many/f%02d.txt", i)] = ""
	}
	got := listDirectory(newEnv(t, files), "/many", collapseHidden)
	lines := strings.Split(got, "\n")
	if len(lines) != 31 || lines[29] != "├── f29.txt" || lines[30] != "└── ... and 5 more entries" {
		t.Errorf("35 files list as:\n%s", got)
	}
}
