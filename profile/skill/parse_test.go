package skill_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/profile/skill"
)

func TestParseErrorsNameFileAndLine(t *testing.T) {
	const p = "/ws/.kimi-code/skills/x/SKILL.md"
	for _, tt := range []struct {
		name, src string
		want      []string // substrings of the error
	}{
		{"no frontmatter", "# Title\nbody\n", []string{"missing frontmatter in " + p, "line 1"}},
		{"unclosed fence", "---\nname: x\ndescription: y\n", []string{"missing closing frontmatter fence in " + p, "line 1"}},
		{"bad yaml", "---\nname: x\ndescription: [oops\n---\nbody\n", []string{"invalid frontmatter in " + p, "line 3"}},
		{"not a mapping", "---\n- a\n- b\n---\nbody\n", []string{"must be a mapping", p}},
		{"missing name", "---\ndescription: d\n---\nb\n", []string{`missing required frontmatter field "name" in ` + p}},
		{"missing description", "---\nname: x\n---\nb\n", []string{`"description"`, p}},
		{"type error names the line", "---\nname: x\ndescription: d\ndisable-model-invocation: sometimes\n---\nb\n",
			[]string{`"disable-model-invocation"`, p, "(line 4)"}},
		{"unsupported type", "---\nname: x\ndescription: d\n\ntype: macro\n---\nb\n", []string{`"macro"`, p, "(line 5)"}},
		{"arguments of the wrong kind", "---\nname: x\ndescription: d\narguments: {a: 1}\n---\nb\n",
			[]string{`"arguments"`, "(line 4)"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := skill.Parse(p, []byte(tt.src), skill.ParseOptions{})
			if err == nil {
				t.Fatal("Parse accepted it")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
	_, err := skill.Parse(p, []byte("---\nname: x\ndescription: d\ntype: macro\n---\n"), skill.ParseOptions{})
	if !errors.Is(err, skill.ErrUnsupportedType) {
		t.Errorf("an unknown type is %v; want ErrUnsupportedType (skipped by policy)", err)
	}
}

func TestParseFields(t *testing.T) {
	src := "\ufeff---\nname: review\ndescription: Review a change\nwhen-to-use: before merging\n" +
		"disable_model_invocation: false\ntype: inline\narguments: pr mode 3\nextra: kept\n---\n\n  Review $pr.\n"
	s, err := skill.Parse("/r/review/SKILL.md", []byte(src), skill.ParseOptions{Source: skill.SourceProject})
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "review" || s.WhenToUse != "before merging" || s.Type != skill.TypeInline || s.Body != "Review $pr." ||
		s.Dir != "/r/review" || strings.Join(s.Arguments, ",") != "pr,mode" || s.Metadata["extra"] != "kept" {
		t.Errorf("Parse = %+v", s)
	}
	flat, err := skill.Parse("/r/notes.md", []byte(strings.Repeat("w", 300)), skill.ParseOptions{Flat: true})
	if err != nil {
		t.Fatal(err)
	}
	if flat.Name != "notes" || len([]rune(flat.Description)) != 240 || !strings.HasSuffix(flat.Description, "…") {
		t.Errorf("flat = %q / %q; want the file name and a 240-character description", flat.Name, flat.Description)
	}
	empty, _ := skill.Parse("/r/empty.md", []byte(""), skill.ParseOptions{Flat: true})
	if empty.Description != "No description provided." {
		t.Errorf("empty flat description = %q", empty.Description)
	}
}

func TestBuiltinSkills(t *testing.T) {
	b := skill.Builtin()
	if len(b) == 0 {
		t.Fatal("no built-in skills")
	}
	invocable := 0
	for _, s := range b {
		if s.Source != skill.SourceBuiltin || !strings.HasPrefix(s.Path, "builtin://") || s.Body == "" {
			t.Errorf("built-in %+v", s)
		}
		if strings.Contains(strings.ToLower(s.Body), "kimi code") {
			t.Errorf("built-in %s names another product", s.Name)
		}
		if s.ModelInvocable() {
			invocable++
		}
	}
	if s, ok := skill.NewRegistry(nil, b).Lookup("mcp-config"); !ok || s.ModelInvocable() {
		t.Errorf("mcp-config = %+v; want a built-in only the user starts", s)
	}
	if invocable == 0 {
		t.Error("no built-in skill is model-invocable")
	}
}
