package agentfile

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/osenv/osenvtest"
	"github.com/kimigo/kimigo/profile"
)

// Spec 05 §12 scenarios 80–82 (agent files). Workspace /ws with a .git,
// data root /home/user/.kimigo.

const dataHome = "/home/user/.kimigo"

func newEnv(files map[string]string) *osenvtest.Env {
	all := map[string]string{"/ws/.git/HEAD": "ref: refs/heads/main\n"}
	for k, v := range files {
		all[k] = v
	}
	return osenvtest.New(osenvtest.Options{Cwd: "/ws", Home: "/home/user", Files: all})
}

func builtin(t *testing.T) *profile.Catalog {
	t.Helper()
	c, err := profile.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func load(t *testing.T, env *osenvtest.Env, opts Options) Loaded {
	t.Helper()
	if opts.DataHome == "" {
		opts.DataHome = dataHome
	}
	l, err := Load(env, builtin(t), opts)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return l
}

func promptContext(t *testing.T, env *osenvtest.Env) profile.PromptContext {
	t.Helper()
	pc, _, err := profile.PrepareContext(t.Context(), env, "/ws", nil, dataHome)
	if err != nil {
		t.Fatal(err)
	}
	pc.OS, pc.Now = "Linux", time.Date(2025, 6, 2, 0, 0, 0, 0, time.UTC)
	return pc
}

func prompt(t *testing.T, c *profile.Catalog, name string, pc profile.PromptContext) string {
	t.Helper()
	p, err := c.Resolve(name)
	if err != nil {
		t.Fatal(err)
	}
	s, err := p.SystemPrompt(pc)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func warningsContain(ws []profile.Warning, sub string) bool {
	return slices.ContainsFunc(ws, func(w profile.Warning) bool { return strings.Contains(w.Message, sub) })
}

func delegateNames(c *profile.Catalog, name string) []string {
	var out []string
	for _, p := range c.Delegates(name) {
		out = append(out, p.Name)
	}
	return out
}

func TestScenario80AgentFileOverride(t *testing.T) {
	coder := "---\ndescription: My coder\n%s---\nYou write code my way.\n"
	files := map[string]string{
		"/ws/.kimi-code/agents/coder.md": strings.Replace(coder, "%s", "", 1),
		dataHome + "/agents/reviewer.md": "---\ndescription: Reviews diffs for bugs\n---\nReview carefully.\n",
		dataHome + "/agents/Reviewer.md": "---\ndescription: Not kebab\n---\nBody\n",
	}
	l := load(t, newEnv(files), Options{WorkDir: "/ws"})
	c := l.Catalog
	if p, _ := c.Get("coder"); p.Source != "builtin/coder.yaml" {
		t.Errorf("coder comes from %s; a file without override must not replace it", p.Source)
	}
	if !warningsContain(l.Warnings, `agent file profile "coder" ignored: a same-name builtin profile exists; set "override: true" in the frontmatter to replace it`) {
		t.Errorf("warnings lack the same-name builtin warning: %+v", l.Warnings)
	}
	r, ok := c.Get("reviewer")
	if !ok || r.Description != "Reviews diffs for bugs" {
		t.Fatalf("reviewer = %+v, %v", r, ok)
	}
	if diff := cmp.Diff([]string{"coder", "explore", "plan", "reviewer"}, delegateNames(c, "agent")); diff != "" {
		t.Errorf("main agent delegates (-want +got):\n%s", diff)
	}
	if _, ok := c.Get("Reviewer"); ok || !warningsContain(l.Warnings, `invalid agent name "Reviewer"`) {
		t.Errorf("Reviewer.md was not skipped with a warning: %+v", l.Warnings)
	}

	files["/ws/.kimi-code/agents/coder.md"] = strings.Replace(coder, "%s", "override: true\n", 1)
	env := newEnv(files)
	c = load(t, env, Options{WorkDir: "/ws"}).Catalog
	p, _ := c.Get("coder")
	if p.Source != "/ws/.kimi-code/agents/coder.md" || p.Description != "My coder" {
		t.Errorf("coder = %s %q; want the override file", p.Source, p.Description)
	}
	if got := prompt(t, c, "coder", promptContext(t, env)); got != "You write code my way." {
		t.Errorf("coder prompt = %q", got)
	}
	if !slices.Contains(delegateNames(c, "agent"), "coder") {
		t.Error("the main agent lost its coder")
	}
}

func TestScenario81AgentFileRendering(t *testing.T) {
	env := newEnv(map[string]string{
		"/ws/.agents/agents/greeter.md": "---\ndescription: Greets\n---\nHello ${cwd} ${unknown} {{x}} ${base_prompt}\n",
	})
	c := load(t, env, Options{}).Catalog
	pc := promptContext(t, env)
	base := prompt(t, c, "agent", pc)
	want := "Hello /ws ${unknown} {{x}} " + base
	if got := prompt(t, c, "greeter", pc); got != want {
		t.Errorf("greeter prompt:\n%s", cmp.Diff(want, got))
	}
	g, _ := c.Get("greeter")
	def, _ := builtin(t).Get("agent")
	if diff := cmp.Diff(def.Tools, g.Tools); diff != "" {
		t.Errorf("omitted tools must be the default profile's (-want +got):\n%s", diff)
	}
	// Omitted subagents: every profile.
	if diff := cmp.Diff([]string{"agent", "coder", "explore", "greeter", "plan"}, g.Subagents); diff != "" {
		t.Errorf("greeter subagents (-want +got):\n%s", diff)
	}
}

func TestScenario82SystemMD(t *testing.T) {
	files := map[string]string{dataHome + "/SYSTEM.md": "\nHouse rules for ${cwd}.\n\n${base_prompt}\n"}
	env := newEnv(files)
	l := load(t, env, Options{WorkDir: "/ws"})
	pc := promptContext(t, env)
	want := "House rules for /ws.\n\n" + prompt(t, builtin(t), "agent", pc)
	if got := prompt(t, l.Catalog, "agent", pc); got != want {
		t.Errorf("main prompt:\n%s", cmp.Diff(want, got))
	}
	a, _ := l.Catalog.Get("agent")
	def, _ := builtin(t).Get("agent")
	if diff := cmp.Diff(def.Tools, a.Tools); diff != "" || a.Description != def.Description || !slices.Equal(a.Subagents, def.Subagents) {
		t.Errorf("SYSTEM.md changed more than the prompt: tools diff %s, %q, %v", diff, a.Description, a.Subagents)
	}

	// A project agent.md with override beats SYSTEM.md.
	files["/ws/.kimi-code/agents/agent.md"] = "---\ndescription: Project main\noverride: true\n---\nProject main agent.\n"
	env = newEnv(files)
	c := load(t, env, Options{WorkDir: "/ws"}).Catalog
	if got := prompt(t, c, "agent", promptContext(t, env)); got != "Project main agent." {
		t.Errorf("main prompt = %q; the project override must win", got)
	}
	// A user-directory agent.md, even with override, loses to SYSTEM.md.
	delete(files, "/ws/.kimi-code/agents/agent.md")
	files[dataHome+"/agents/agent.md"] = "---\ndescription: User main\noverride: true\n---\nUser main agent.\n"
	env = newEnv(files)
	c = load(t, env, Options{WorkDir: "/ws"}).Catalog
	if got := prompt(t, c, "agent", promptContext(t, env)); !strings.HasPrefix(got, "House rules for /ws.") {
		t.Errorf("main prompt = %q; SYSTEM.md must beat user agent files", got[:min(len(got), 60)])
	}
}

func TestExplicitFile(t *testing.T) {
	files := map[string]string{
		dataHome + "/SYSTEM.md": "System body.",
		"/ws/my/agent.md":       "---\nname: agent\ndescription: Explicit main\ntools: [Read]\n---\nExplicit ${base_prompt}\n",
		"/ws/one.md":            "---\nname: solo\ndescription: first\n---\nfirst\n",
		"/ws/two.md":            "---\nname: solo\ndescription: second\n---\nsecond\n",
	}
	env := newEnv(files)
	l := load(t, env, Options{WorkDir: "/ws", Explicit: []string{"my/agent.md"}})
	a, _ := l.Catalog.Get("agent")
	if l.Selected != "agent" || a.Description != "Explicit main" || !slices.Equal(a.Tools, []string{"Read"}) {
		t.Errorf("selected %q, agent %+v", l.Selected, a)
	}
	// ${base_prompt} is SYSTEM.md's prompt, never the file's own.
	if got := prompt(t, l.Catalog, "agent", promptContext(t, env)); got != "Explicit System body." {
		t.Errorf("prompt = %q", got)
	}
	// Of two explicit files with one name, the last wins.
	l = load(t, env, Options{WorkDir: "/ws", Explicit: []string{"/ws/one.md", "/ws/two.md"}})
	if p, _ := l.Catalog.Get("solo"); l.Selected != "solo" || p.Description != "second" {
		t.Errorf("solo = %q, selected %q", p.Description, l.Selected)
	}
	// An explicit file that is missing or invalid fails the load.
	for f, want := range map[string]string{
		"/ws/gone.md": `read agent file "/ws/gone.md"`,
		"/ws/bad.md":  `invalid agent file "/ws/bad.md": missing frontmatter in /ws/bad.md`,
	} {
		files["/ws/bad.md"] = "no frontmatter"
		_, err := Load(newEnv(files), builtin(t), Options{Explicit: []string{f}})
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("Load(%s) error = %v, want %q", f, err, want)
		}
	}
}

// TestScenario82MergeOrder: SYSTEM.md beats user agent files whatever
// order Merge receives them in.
func TestScenario82MergeOrder(t *testing.T) {
	user := Definition{Name: "agent", Description: "user main", Override: true, Prompt: "user", Source: SourceUser, Path: "/u/agent.md"}
	system := Definition{Name: "agent", Prompt: "system", Source: SourceSystem, Path: "SYSTEM.md"}
	for _, defs := range [][]Definition{{user, system}, {system, user}} {
		c, _, _, err := Merge(builtin(t), defs)
		if err != nil {
			t.Fatal(err)
		}
		if got := prompt(t, c, "agent", profile.PromptContext{}); got != "system" {
			t.Errorf("order %s, %s: main prompt %q, want SYSTEM.md's", defs[0].Source, defs[1].Source, got)
		}
	}
}
