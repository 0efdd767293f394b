package profile

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/llm/llmtest"
)

func TestDefaultPromptGolden(t *testing.T) {
	pc, _ := prepare(t, newEnv(t, smallRepo()), "/ws")
	llmtest.Golden(t, "default_prompt.md", []byte(render(t, builtin(t), "", pc)))
}

func TestSubagentPromptsGolden(t *testing.T) {
	pc, _ := prepare(t, newEnv(t, smallRepo()), "/ws")
	c := builtin(t)
	for _, name := range []string{"coder", "explore", "plan"} {
		t.Run(name, func(t *testing.T) {
			llmtest.Golden(t, name+"_prompt.md", []byte(render(t, c, name, pc)))
		})
	}
}

// TestDefaultPromptSize keeps the default prompt compact: with the default
// tool definitions (~16 KB) a one-word request must stay under 30 KB.
func TestDefaultPromptSize(t *testing.T) {
	pc, _ := prepare(t, newEnv(t, smallRepo()), "/ws")
	got := render(t, builtin(t), "", pc)
	const limit = 8 << 10
	if len(got) > limit {
		t.Errorf("default system prompt is %d bytes, over the %d-byte budget", len(got), limit)
	}
	t.Logf("default system prompt: %d bytes", len(got))
}

// TestRenderIsByteStable: gathering the context and rendering again for
// the same workspace gives the same bytes, so the prompt is a stable
// cache prefix.
func TestRenderIsByteStable(t *testing.T) {
	env := newEnv(t, smallRepo())
	c := builtin(t)
	for _, name := range c.Names() {
		pc1, _ := prepare(t, env, "/ws", "/ws/docs")
		pc2, _ := prepare(t, env, "/ws", "/ws/docs")
		pc1.Skills, pc2.Skills = "- review: Review a diff", "- review: Review a diff"
		a, b := render(t, c, name, pc1), render(t, c, name, pc2)
		if a != b {
			t.Errorf("%s: two renders differ:\n%s", name, cmp.Diff(a, b))
		}
	}
	// The date is day-granular: later the same day renders the same.
	pc, _ := prepare(t, env, "/ws")
	later := pc
	later.Now = pc.Now.Add(10 * 3600e9)
	if a, b := render(t, c, "", pc), render(t, c, "", later); a != b {
		t.Errorf("renders on one day differ:\n%s", cmp.Diff(a, b))
	}
}

func TestBuiltinProfiles(t *testing.T) {
	c := builtin(t)
	if diff := cmp.Diff([]string{"agent", "coder", "explore", "plan"}, c.Names()); diff != "" {
		t.Fatalf("names (-want +got):\n%s", diff)
	}
	if c.Default().Name != DefaultName {
		t.Errorf("default = %q, want %q", c.Default().Name, DefaultName)
	}
	agent, _ := c.Get("agent")
	if diff := cmp.Diff([]string{"coder", "explore", "plan"}, agent.Subagents); diff != "" {
		t.Errorf("agent subagents (-want +got):\n%s", diff)
	}
	for _, want := range []string{"Read", "Write", "Edit", "Glob", "Grep", "Bash", "ReadMediaFile", "FetchURL",
		"TodoList", "AskUserQuestion", "Agent", "AgentSwarm", "Skill", "TaskList", "TaskOutput", "TaskStop",
		"CronCreate", "EnterPlanMode", "CreateGoal", "mcp__*"} {
		if !slices.Contains(agent.Tools, want) {
			t.Errorf("agent lacks tool %s", want)
		}
	}
	for _, tt := range []struct {
		name          string
		tools         int
		has, lacks    []string
		whenToUseWord string
	}{
		{"coder", 20, []string{"Edit", "Write", "Bash", "Skill", "CronCreate", "mcp__*"}, []string{"Agent", "AgentSwarm", "CreateGoal", "AskUserQuestion"}, "engineering"},
		{"explore", 7, []string{"Bash", "Read", "Grep", "FetchURL"}, []string{"Edit", "Write", "Skill", "Agent"}, "thoroughness"},
		{"plan", 6, []string{"Read", "Glob", "Grep"}, []string{"Bash", "Edit", "Write", "Agent"}, "plan"},
	} {
		p, _ := c.Get(tt.name)
		if len(p.Tools) != tt.tools {
			t.Errorf("%s has %d tools, want %d: %v", tt.name, len(p.Tools), tt.tools, p.Tools)
		}
		for _, n := range tt.has {
			if !slices.Contains(p.Tools, n) {
				t.Errorf("%s lacks %s", tt.name, n)
			}
		}
		for _, n := range tt.lacks {
			if slices.Contains(p.Tools, n) {
				t.Errorf("%s must not have %s", tt.name, n)
			}
		}
		if p.Description == "" {
			t.Errorf("%s has no description; the agent profile's subagents entry should fill it", tt.name)
		}
		if !strings.Contains(p.WhenToUse, tt.whenToUseWord) {
			t.Errorf("%s whenToUse %q lacks %q", tt.name, p.WhenToUse, tt.whenToUseWord)
		}
		if p.Subagents != nil {
			t.Errorf("%s declares subagents %v; builtin subagents declare none", tt.name, p.Subagents)
		}
	}
}

// TestSubagentRoles: every subagent prompt carries the shared preamble and
// its own role; the main agent's carries neither.
func TestSubagentRoles(t *testing.T) {
	pc, _ := prepare(t, newEnv(t, smallRepo()), "/ws")
	c := builtin(t)
	preamble := "You are running as a subagent."
	for name, role := range map[string]string{
		"coder":   "Your final message is the whole handoff",
		"explore": "You are an exploration specialist.",
		"plan":    "You are a planning specialist",
	} {
		got := render(t, c, name, pc)
		if !strings.Contains(got, preamble) || !strings.Contains(got, role) {
			t.Errorf("%s prompt lacks its preamble or role %q", name, role)
		}
	}
	if got := render(t, c, "agent", pc); strings.Contains(got, preamble) {
		t.Error("agent prompt contains the subagent preamble")
	}
	// A role from the context replaces the profile's.
	pc.RoleAdditional = "You review one pull request."
	if got := render(t, c, "coder", pc); !strings.Contains(got, pc.RoleAdditional) || strings.Contains(got, preamble) {
		t.Error("PromptContext.RoleAdditional did not replace the coder role")
	}
}

func TestWindowsNotes(t *testing.T) {
	pc, _ := prepare(t, newEnv(t, smallRepo()), "/ws")
	c := builtin(t)
	if got := render(t, c, "", pc); strings.Contains(got, "Git Bash") {
		t.Error("Linux prompt mentions Git Bash")
	}
	pc.OS = "Windows"
	if got := render(t, c, "", pc); !strings.Contains(got, "Windows; commands run with bash (`/bin/bash`). On Windows, Bash runs through Git Bash") {
		t.Errorf("Windows prompt lacks the Windows notes:\n%s", got)
	}
}

func TestPluginSectionsAndAdditionalDirs(t *testing.T) {
	pc, _ := prepare(t, newEnv(t, smallRepo()), "/ws", "/ws/docs")
	pc.PluginSections = "<!-- From: plugin lint -->\nRun the linter."
	got := render(t, builtin(t), "", pc)
	for _, want := range []string{
		"# Plugin Instructions\n\nThe blocks below come from the user's installed plugins.",
		"<!-- From: plugin lint -->\nRun the linter.",
		"## Additional Directories\n\nThese directories belong to the workspace as well",
		"### /ws/docs\n└── design.md",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("prompt lacks %q", want)
		}
	}
}

// BenchmarkBuiltin is what every session open pays for the built-in
// catalog.
func BenchmarkBuiltin(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Builtin(); err != nil {
			b.Fatal(err)
		}
	}
}
