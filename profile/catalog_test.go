package profile

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func names(ps []*Profile) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Name)
	}
	return out
}

func TestCatalogResolve(t *testing.T) {
	c := builtin(t)
	if p, err := c.Resolve(""); err != nil || p.Name != "agent" {
		t.Errorf(`Resolve("") = %v, %v; want the default`, p, err)
	}
	if p, err := Resolve("explore"); err != nil || p.Name != "explore" {
		t.Errorf(`Resolve("explore") = %v, %v`, p, err)
	}
	_, err := c.Resolve("writer")
	if !errors.Is(err, ErrNotFound) || err.Error() != `agent profile "writer" was not found; available profiles: agent, coder, explore, plan` {
		t.Errorf(`Resolve("writer") error = %v`, err)
	}
}

func TestCatalogDelegates(t *testing.T) {
	c := builtin(t)
	if diff := cmp.Diff([]string{"coder", "explore", "plan"}, names(c.Delegates("agent"))); diff != "" {
		t.Errorf("agent delegates (-want +got):\n%s", diff)
	}
	// coder declares none, so it falls back to the default's set.
	if diff := cmp.Diff([]string{"coder", "explore", "plan"}, names(c.Delegates("coder"))); diff != "" {
		t.Errorf("coder delegates (-want +got):\n%s", diff)
	}
	// An explicit empty list means none.
	a, _ := c.Get("agent")
	solo := New(Profile{Name: "solo", Subagents: []string{}}, nil)
	c2, err := NewCatalog("agent", a, solo, mustGet(t, c, "coder"), mustGet(t, c, "explore"), mustGet(t, c, "plan"))
	if err != nil {
		t.Fatal(err)
	}
	if got := c2.Delegates("solo"); len(got) != 0 {
		t.Errorf("solo delegates to %v", names(got))
	}
	if got := c2.Delegates("nobody"); got != nil {
		t.Errorf("unknown profile delegates to %v", names(got))
	}
}

func TestNewCatalogErrors(t *testing.T) {
	a := New(Profile{Name: "a", Subagents: []string{"ghost"}}, nil)
	for _, tt := range []struct {
		name     string
		def      string
		profiles []*Profile
		want     string
	}{
		{"duplicate", "", []*Profile{New(Profile{Name: "x"}, nil), New(Profile{Name: "x"}, nil)}, `duplicate agent profile name: "x"`},
		{"missing default", "agent", []*Profile{New(Profile{Name: "x"}, nil)}, `default agent profile "agent" is not in the catalog`},
		{"unknown subagent", "", []*Profile{a}, `agent profile "a" declares subagent "ghost" but that agent profile was not found`},
	} {
		if _, err := NewCatalog(tt.def, tt.profiles...); err == nil || err.Error() != tt.want {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestProfileHasToolAndWithSubagents(t *testing.T) {
	p := New(Profile{Name: "p", Tools: []string{"Read", "Skill"}, DisallowedTools: []string{"Skill"}}, nil)
	if !p.HasTool("Read") || p.HasTool("Skill") || p.HasTool("Bash") {
		t.Error("HasTool ignores the deny-list or the allow-list")
	}
	if !New(Profile{Tools: []string{"*"}}, nil).HasTool("Bash") {
		t.Error(`"*" does not allow every tool`)
	}
	q := p.WithSubagents([]string{"b", "a", "b"})
	if diff := cmp.Diff([]string{"a", "b"}, q.Subagents); diff != "" || p.Subagents != nil {
		t.Errorf("WithSubagents (-want +got):\n%s; original now %v", diff, p.Subagents)
	}
}

func mustGet(t *testing.T, c *Catalog, name string) *Profile {
	t.Helper()
	p, ok := c.Get(name)
	if !ok {
		t.Fatalf("no profile %q", name)
	}
	return p
}
