package profile

import (
	"strings"
	"sync"
	"testing"
	"text/template"
)

func loadOne(t *testing.T, yaml string) *Profile {
	t.Helper()
	c, err := Load(yamlFS(map[string]string{"p.yaml": yaml}), "p.yaml")
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	p, _ := c.Get("p")
	return p
}

func TestTemplateVariables(t *testing.T) {
	p := loadOne(t, `name: p
tools: [Skill]
promptVars: {KIMI_OS: shadowed, greeting: hi}
systemPromptTemplate: |-
  {{.greeting}} {{.KIMI_OS}} {{.KIMI_SHELL}} {{.KIMI_NOW}} {{.KIMI_WORK_DIR}}
  {{- if eq .KIMI_OS "Windows"}} win{{end}}
  {{- with .KIMI_SKILLS}} <{{.}}>{{end}} {{$.ROLE_ADDITIONAL}}|{{.KIMI_GIT_BRANCH}}|{{.KIMI_GIT_DIRTY}}
`)
	pc := PromptContext{OS: "Linux", Now: fixedNow, WorkDir: "/ws", Skills: "S", RoleAdditional: "R",
		Git: GitState{Repo: true, Branch: "main", DirtyCount: 3}}
	pc.Shell.Name, pc.Shell.Path = "bash", "/bin/bash"
	got, err := p.SystemPrompt(pc)
	want := "hi Linux bash (`/bin/bash`) 2025-06-02 (Monday) /ws <S> R|main|3"
	if err != nil || got != want {
		t.Errorf("render = %q, %v\nwant      %q", got, err, want)
	}
}

// TestTemplateNoEscaping: prompt text is not HTML.
func TestTemplateNoEscaping(t *testing.T) {
	p := loadOne(t, "name: p\nsystemPromptTemplate: \"{{.KIMI_AGENTS_MD}}\"\n")
	got, err := p.SystemPrompt(PromptContext{AgentsMD: `<a href="x">&</a>`})
	if err != nil || got != `<a href="x">&</a>` {
		t.Errorf("render = %q, %v", got, err)
	}
}

func TestTemplateEmpty(t *testing.T) {
	p := loadOne(t, "name: p\n")
	if got, err := p.SystemPrompt(PromptContext{}); got != "" || err != nil {
		t.Errorf("a profile without a template renders %q, %v", got, err)
	}
}

func TestTemplatePromptVarPaths(t *testing.T) {
	c, err := Load(yamlFS(map[string]string{
		"d/p.yaml": "name: p\npromptVarPaths: {a: one.md, b: [one.md, two.md]}\nsystemPromptTemplate: \"{{.a}}|{{.b}}\"\n",
		"d/one.md": "one\n", "d/two.md": "\ntwo\n",
	}), "d/p.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, _ := c.Get("p")
	if got, _ := p.SystemPrompt(PromptContext{}); got != "one|one\n\ntwo" {
		t.Errorf("render = %q", got)
	}
	_, err = Load(yamlFS(map[string]string{"p.yaml": "name: p\npromptVarPaths: {a: gone.md}\n"}), "p.yaml")
	if err == nil || !strings.Contains(err.Error(), `read prompt variable "a" for "p" at p.yaml`) {
		t.Errorf("missing var file: %v", err)
	}
}

func TestRenderConcurrently(t *testing.T) {
	pc, _ := prepare(t, newEnv(t, smallRepo()), "/ws")
	c := builtin(t)
	want := render(t, c, "", pc)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if got, err := c.Default().SystemPrompt(pc); got != want || err != nil {
				t.Errorf("concurrent render differs (%v)", err)
			}
		})
	}
	wg.Wait()
}

// TestInheritedTemplateParsedOnce: profiles that inherit a template share
// one parse of it, and each still renders with its own variables.
func TestInheritedTemplateParsedOnce(t *testing.T) {
	c, err := Load(yamlFS(map[string]string{
		"p/base.yaml":  "name: base\nsystemPromptPath: base.md\npromptVars: {x: base}\n",
		"p/base.md":    "x={{.x}}",
		"p/child.yaml": "name: child\nextends: base\npromptVars: {x: child}\n",
		"p/other.yaml": "name: other\nsystemPromptTemplate: \"x={{.x}}\"\npromptVars: {x: other}\n",
	}), "p/base.yaml", "p/child.yaml", "p/other.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tmpl := func(name string) *template.Template {
		p, _ := c.Get(name)
		return p.prompt.(*templatePrompt).tmpl
	}
	if tmpl("base") != tmpl("child") {
		t.Error("base and child parsed the template they share twice")
	}
	if tmpl("other") == tmpl("base") {
		t.Error("other shares base's template")
	}
	for _, name := range c.Names() {
		p, _ := c.Get(name)
		if got, err := p.SystemPrompt(PromptContext{}); err != nil || got != "x="+name {
			t.Errorf("%s renders %q, %v; want %q", name, got, err, "x="+name)
		}
	}
	b, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	agent, _ := b.Get(DefaultName)
	for _, p := range b.Profiles() {
		if p.prompt.(*templatePrompt).tmpl != agent.prompt.(*templatePrompt).tmpl {
			t.Errorf("built-in %s parses system.md again", p.Name)
		}
	}
}
