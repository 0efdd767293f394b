package skill_test

import (
	"strings"
	"testing"

	"github.com/kimigo/kimigo/osenv/osenvtest"
	"github.com/kimigo/kimigo/profile"
	"github.com/kimigo/kimigo/profile/skill"
)

// TestScenario75ListingInThePrompt puts a real registry's listing into the
// built-in profiles' prompts: the profiles with the Skill tool show the
// section, the others do not, and no invocable skill means no section.
func TestScenario75ListingInThePrompt(t *testing.T) {
	env := osenvtest.New(osenvtest.Options{Cwd: "/ws", Files: map[string]string{
		"/ws/.git/HEAD":                         "x",
		"/ws/.kimi-code/skills/review/SKILL.md": skillMD("review", "Review the current diff for bugs", "Look closely."),
	}})
	reg, warnings := skill.Load(env, skill.Roots(env, skill.RootOptions{DataHome: "/home/user/.kimigo"}))
	if len(warnings) > 0 {
		t.Fatal(warnings)
	}
	c, err := profile.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	render := func(name, listing string) string {
		t.Helper()
		pc, _, err := profile.PrepareContext(t.Context(), env, "/ws", nil, "/home/user/.kimigo")
		if err != nil {
			t.Fatal(err)
		}
		pc.Skills = listing
		p, err := c.Resolve(name)
		if err != nil {
			t.Fatal(err)
		}
		out, err := p.SystemPrompt(pc)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	line := "- review: Review the current diff for bugs\n  Path: /ws/.kimi-code/skills/review/SKILL.md"
	for name, want := range map[string]bool{"agent": true, "explore": false} {
		got := render(name, reg.Listing())
		if has := strings.Contains(got, "# Skills") && strings.Contains(got, line); has != want {
			t.Errorf("%s: skills section = %v; want %v", name, has, want)
		}
	}
	none := skill.NewRegistry(nil, nil)
	if got := render("agent", none.Listing()); strings.Contains(got, "# Skills") {
		t.Error("a prompt without invocable skills has a skills section")
	}
}
