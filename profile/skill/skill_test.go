package skill_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/osenv/osenvtest"
	"github.com/kimigo/kimigo/profile/skill"
)

func skillMD(name, desc, body string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n---\n" + body + "\n"
}

func TestScenario83DiscoveryPrecedence(t *testing.T) {
	env := osenvtest.New(osenvtest.Options{Cwd: "/ws", Home: "/home/u", Files: map[string]string{
		"/ws/.git/HEAD":                         "ref: refs/heads/main\n",
		"/ws/.kimi-code/skills/review/SKILL.md": skillMD("review", "project review", "Review it."),
		"/kg/skills/review/SKILL.md":            skillMD("review", "user review", "Old."),
		"/kg/skills/update-config/SKILL.md":     skillMD("update-config", "my own", "Mine."),
		"/kg/skills/broken/SKILL.md":            "---\nname: broken\n---\nno description\n",
	}})
	roots := skill.Roots(env, skill.RootOptions{DataHome: "/kg"})
	want := []skill.Root{{Dir: "/ws/.kimi-code/skills", Source: skill.SourceProject}, {Dir: "/kg/skills", Source: skill.SourceUser}}
	if d := cmp.Diff(want, roots); d != "" {
		t.Fatalf("roots (-want +got):\n%s", d)
	}
	reg, warnings := skill.Load(env, roots)
	s, ok := reg.Lookup("REVIEW")
	if !ok || s.Source != skill.SourceProject || s.Description != "project review" {
		t.Errorf("Lookup(review) = %+v; want the project skill", s)
	}
	if s, _ := reg.Lookup("update-config"); s.Source != skill.SourceUser {
		t.Errorf("update-config is %s; a user skill shadows the built-in", s.Source)
	}
	if _, ok := reg.Lookup("broken"); ok {
		t.Error("a SKILL.md without description was registered")
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0].Message, "/kg/skills/broken/SKILL.md") ||
		!strings.Contains(warnings[0].Message, `"description"`) {
		t.Errorf("warnings = %v; want one naming the broken file and the missing field", warnings)
	}
	if s, ok := reg.Lookup("write-goal"); !ok || s.Source != skill.SourceBuiltin || s.Path != "builtin://write-goal" {
		t.Errorf("built-in write-goal = %+v, %v", s, ok)
	}
}

func TestRootsWithSkillsDirReplaceDiscovery(t *testing.T) {
	env := osenvtest.New(osenvtest.Options{Cwd: "/ws/sub", Home: "/home/u", Files: map[string]string{
		"/ws/.git/HEAD":                    "x",
		"/ws/.kimi-code/skills/a/SKILL.md": skillMD("a", "d", "b"),
		"/ws/.agents/skills/x.md":          "x",
		"/home/u/.agents/skills/y.md":      "y",
		"/ws/mine/z.md":                    "z",
		"/home/u/team/t.md":                "t",
		"/kg/skills/k.md":                  "k",
	}})
	for _, tt := range []struct {
		name string
		o    skill.RootOptions
		want []skill.Root
	}{
		{"discovery", skill.RootOptions{DataHome: "/kg", ExtraDirs: []string{"~/team"}}, []skill.Root{
			{"/ws/.kimi-code/skills", skill.SourceProject}, {"/ws/.agents/skills", skill.SourceProject},
			{"/kg/skills", skill.SourceUser}, {"/home/u/.agents/skills", skill.SourceUser},
			{"/home/u/team", skill.SourceExtra}}},
		{"first only", skill.RootOptions{DataHome: "/kg", FirstOnly: true}, []skill.Root{
			{"/ws/.kimi-code/skills", skill.SourceProject}, {"/kg/skills", skill.SourceUser}}},
		{"--skills-dir replaces discovery, relative to the project root",
			skill.RootOptions{DataHome: "/kg", Dirs: []string{"mine", "missing"}, ExtraDirs: []string{"~/team"}},
			[]skill.Root{{"/ws/mine", skill.SourceUser}, {"/home/u/team", skill.SourceExtra}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, skill.Roots(env, tt.o)); d != "" {
				t.Errorf("Roots (-want +got):\n%s", d)
			}
		})
	}
}

func TestDiscoverShapes(t *testing.T) {
	env := osenvtest.New(osenvtest.Options{Files: map[string]string{
		"/r/flat.md":                    "\n\n  Summarise the diff briefly.\nMore.\n",
		"/r/deep/nested/inner/SKILL.md": skillMD("inner", "deep one", "x"),
		"/r/node_modules/pkg/SKILL.md":  skillMD("npm", "never", "x"),
		"/r/.hidden/SKILL.md":           skillMD("hidden-dir", "a dot-directory skill counts", "x"),
		"/r/.cache/x/SKILL.md":          skillMD("cached", "never", "x"),
		"/r/parent/SKILL.md":            "---\nname: parent\ndescription: p\nmetadata:\n  has-sub-skill: true\n---\nP\n",
		"/r/parent/child/SKILL.md":      skillMD("child", "c", "x"),
		"/r/parent/pre/SKILL.md":        skillMD("parent.pre", "already prefixed", "x"),
		"/r/plain/SKILL.md":             skillMD("plain", "no sub-skills", "x"),
		"/r/plain/ignored/SKILL.md":     skillMD("ignored", "not entered", "x"),
		"/r/dup/SKILL.md":               skillMD("dup", "directory wins", "x"),
		"/r/dup.md":                     "flat loses",
		"/r/sub/notflat.md":             "only top-level flat files count",
		"/r/policy/SKILL.md":            "---\nname: policy\ndescription: d\ntype: macro\n---\nx\n",
		"/r/ref/SKILL.md":               "---\nname: ref\ndescription: d\ntype: reference\n---\nx\n",
	}})
	got, warnings := skill.Discover(env, []skill.Root{{Dir: "/r", Source: skill.SourceExtra}})
	want := []string{"dup", "flat", "hidden-dir", "inner", "parent", "parent.child", "parent.pre", "plain", "ref"}
	var gotNames []string
	for _, s := range got {
		gotNames = append(gotNames, s.Name)
	}
	if d := cmp.Diff(want, gotNames); d != "" {
		t.Fatalf("skills (-want +got):\n%s", d)
	}
	// child became parent.child
	for _, s := range got {
		if s.Name == "child" {
			t.Error("a sub-skill kept its bare name")
		}
	}
	reg := skill.NewRegistry(got, nil)
	if s, ok := reg.Lookup("parent.child"); !ok || !s.SubSkill {
		t.Errorf("parent.child = %+v, %v; want a sub-skill", s, ok)
	}
	if s, _ := reg.Lookup("flat"); s.Description != "Summarise the diff briefly." || s.Dir != "/r" {
		t.Errorf("flat skill = %+v; want its first line as description and the root as its dir", s)
	}
	var msgs []string
	for _, w := range warnings {
		msgs = append(msgs, w.Message)
	}
	joined := strings.Join(msgs, "\n")
	for _, want := range []string{"/r/dup.md", `"macro"`} {
		if !strings.Contains(joined, want) {
			t.Errorf("warnings do not mention %s:\n%s", want, joined)
		}
	}
}
