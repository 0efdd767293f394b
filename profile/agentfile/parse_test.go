package agentfile

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/profile"
)

func TestParse(t *testing.T) {
	got, err := Parse("/a/agents/code-reviewer.md", SourceProject, []byte(`---
description: Reviews diffs
whenToUse: after a change
override: true
tools: Read, Grep ,, Glob
disallowedTools: [Bash]
subagents: "*"
model_preference: secondary
extra: ignored
---

Review ${cwd}.
`))
	want := Definition{
		Name: "code-reviewer", Description: "Reviews diffs", WhenToUse: "after a change", Override: true,
		Tools: []string{"Read", "Grep", "Glob"}, DisallowedTools: []string{"Bash"},
		ModelPreference: profile.ModelSecondary, Prompt: "Review ${cwd}.",
		Path: "/a/agents/code-reviewer.md", Source: SourceProject,
	}
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestParseListsAndStar(t *testing.T) {
	d, err := Parse("x.md", SourceUser, []byte("---\nname: x\ndescription: d\ntools: ['*']\nsubagents: []\n---\nbody"))
	if err != nil {
		t.Fatal(err)
	}
	if d.Tools != nil || d.Subagents == nil || len(d.Subagents) != 0 {
		t.Errorf(`tools ["*"] must be unrestricted (nil) and subagents [] an empty list; got %#v, %#v`, d.Tools, d.Subagents)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tt := range []struct{ name, file, text, want string }{
		{"no frontmatter", "x.md", "hello", "missing frontmatter in x.md"},
		{"unclosed frontmatter", "x.md", "---\ndescription: d\n", "missing frontmatter in x.md"},
		{"bad YAML", "x.md", "---\ndescription: [d\n---\nb", "invalid frontmatter in x.md: [1:14]"},
		{"not a mapping", "x.md", "---\n- a\n---\nb", "frontmatter in x.md must be a mapping at the top level"},
		{"name not a string", "x.md", "---\nname: 3\ndescription: d\n---\nb", `frontmatter field "name" in x.md must be a non-empty string`},
		{"name not kebab", "x.md", "---\nname: Code_Reviewer\ndescription: d\n---\nb", `invalid agent name "Code_Reviewer" in x.md: expected kebab-case (e.g. "code-reviewer")`},
		{"file name not kebab", "Reviewer.md", "---\ndescription: d\n---\nb", `invalid agent name "Reviewer" in Reviewer.md: expected kebab-case`},
		{"no description", "x.md", "---\nname: x\n---\nb", `missing required frontmatter field "description" in x.md`},
		{"override not bool", "x.md", "---\ndescription: d\noverride: yes please\n---\nb", `frontmatter field "override" in x.md must be a boolean`},
		{"tools a map", "x.md", "---\ndescription: d\ntools: {a: 1}\n---\nb", `frontmatter field "tools" in x.md must be a comma-separated string or a list of strings`},
		{"tools with blank", "x.md", "---\ndescription: d\ntools: [Read, '']\n---\nb", `frontmatter field "tools" in x.md must be a list of non-empty strings`},
		{"bad model preference", "x.md", "---\ndescription: d\nmodel_preference: fast\n---\nb", `frontmatter field "model_preference" in x.md must be "primary" or "secondary"`},
		{"no body", "x.md", "---\ndescription: d\n---\n \n", "missing prompt body in x.md"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.file, SourceUser, []byte(tt.text))
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("err = %v, want prefix %q", err, tt.want)
			}
		})
	}
}

func TestIsKebab(t *testing.T) {
	for s, want := range map[string]bool{"a": true, "code-reviewer": true, "v2-x9": true, "": false, "-a": false, "a-": false, "a--b": false, "A": false, "a_b": false} {
		if isKebab(s) != want {
			t.Errorf("isKebab(%q) = %v", s, !want)
		}
	}
}
