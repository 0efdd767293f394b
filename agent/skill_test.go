package agent_test

import (
	"strings"
	"testing"

	"github.com/kimigo/kimigo/agent/agenttest"
	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/scripted"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/profile/skill"
	"github.com/kimigo/kimigo/tools"
)

// The Skill tool scenarios of spec 05 §12 through the real agent.

func skillRegistry() *skill.Registry {
	return skill.NewRegistry([]skill.Skill{
		{Name: "review", Description: "Review a change", Source: skill.SourceProject, Type: skill.TypePrompt,
			Dir: "/ws/.kimi-code/skills/review", Path: "/ws/.kimi-code/skills/review/SKILL.md",
			Body: "Review $0 in $1 mode. Dir ${KIMI_SKILL_DIR}"},
		{Name: "plain", Description: "No placeholders", Source: skill.SourceUser, Type: skill.TypePrompt,
			Dir: "/u/plain", Path: "/u/plain/SKILL.md", Body: "Just do it."},
		{Name: "manual-only", Description: "User only", Source: skill.SourceUser, DisableModelInvocation: true, Body: "x"},
		{Name: "wizard", Description: "A flow", Source: skill.SourceUser, Type: skill.TypeFlow, Body: "x"},
	}, nil)
}

func withSkills(reg tools.SkillRegistry, depth int) agenttest.Option {
	return agenttest.ToolManager(func(env osenv.Env, c tools.StoreCommitter) *tools.Manager {
		return tools.New(tools.Options{Base: tools.Base{Env: env}, Committer: c, Skills: reg, SkillDepth: depth,
			SessionID: "session-1"})
	})
}

func TestScenario84SkillTool(t *testing.T) {
	h := newHarness(t, withSkills(skillRegistry(), 0))
	h.Model(call("c1", "Skill", `{"skill":"review","args":"#12 fast"}`),
		call("c2", "Skill", `{"skill":"plain","args":"#12 fast"}`), scripted.Text("reviewed"))
	h.Prompt("review PR 12")
	reqs := h.Requests()
	if text, _ := toolResultText(reqs[1], "c1"); text != `Skill "review" loaded inline. Follow its instructions.` {
		t.Errorf("c1 = %q", text)
	}
	msgs := reqs[1].Messages
	last := llm.ExtractText(msgs[len(msgs)-1], "")
	for _, want := range []string{
		`<kimi-skill-loaded name="review" trigger="model-tool" source="project" dir="/ws/.kimi-code/skills/review" args="#12 fast">`,
		"Review #12 in fast mode. Dir /ws/.kimi-code/skills/review",
		"</kimi-skill-loaded>",
	} {
		if !strings.Contains(last, want) {
			t.Errorf("the message after the tool result lacks %q:\n%s", want, last)
		}
	}
	if msgs[len(msgs)-2].Role != llm.RoleTool {
		t.Error("the skill's instructions do not follow the tool result")
	}
	msgs = reqs[2].Messages
	if last := llm.ExtractText(msgs[len(msgs)-1], ""); !strings.Contains(last, "Just do it.\n\nARGUMENTS: #12 fast") {
		t.Errorf("a body without placeholders = %q", last)
	}
	var origins []string
	for _, m := range agentOf(h).History() {
		if m.Origin.Is(history.OriginSkillActivation) {
			origins = append(origins, m.Origin.SkillName+"/"+string(m.Origin.Trigger)+"/"+m.Origin.SkillSource)
		}
	}
	if strings.Join(origins, ",") != "review/model-tool/project,plain/model-tool/user" {
		t.Errorf("skill_activation origins = %v", origins)
	}
	h.ExpectResumeMatches()
}

func TestScenario85SkillBadInput(t *testing.T) {
	h := newHarness(t, withSkills(skillRegistry(), 0))
	h.Model(call("c1", "Skill", `{"skill":"nope"}`), call("c2", "Skill", `{"skill":"manual-only"}`),
		call("c3", "Skill", `{"skill":"wizard"}`), scripted.Text("ok"))
	h.Prompt("go")
	want := map[string]string{
		"c1": `Skill "nope" not found in the current skill listing.`,
		"c2": `Skill "manual-only" can only be triggered by the user (model invocation is disabled).`,
		"c3": `Skill "wizard" is not an inline skill and cannot be invoked by the model in v1.`,
	}
	for i, id := range []string{"c1", "c2", "c3"} {
		if text, _ := toolResultText(h.Requests()[i+1], id); !strings.Contains(text, want[id]) {
			t.Errorf("%s = %q; want %q", id, text, want[id])
		}
	}

	deep := newHarness(t, withSkills(skillRegistry(), tools.MaxSkillDepth))
	deep.Model(call("c1", "Skill", `{"skill":"review"}`), scripted.Text("ok"))
	deep.Prompt("go")
	if text, _ := toolResultText(deep.Requests()[1], "c1"); !strings.Contains(text, "exceeded the maximum depth of 3") {
		t.Errorf("a skill at depth 3 = %q", text)
	}
}

func TestNoSkillToolWithoutInvocableSkills(t *testing.T) {
	reg := skill.NewRegistry([]skill.Skill{{Name: "x", Description: "y", DisableModelInvocation: true}}, nil)
	h := newHarness(t, withSkills(reg, 0))
	h.Model(scripted.Text("ok"))
	h.Prompt("hi")
	if slicesContain(toolNamesOf(h.Requests()[0]), "Skill") {
		t.Error("the Skill tool is offered with no skill the model may load")
	}
	withOne := newHarness(t, withSkills(skillRegistry(), 0))
	withOne.Model(scripted.Text("ok"))
	withOne.Prompt("hi")
	if !slicesContain(toolNamesOf(withOne.Requests()[0]), "Skill") {
		t.Error("the Skill tool is missing")
	}
}
