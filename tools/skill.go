package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/profile/skill"
	"github.com/kimigo/kimigo/workspace"
)

// NameSkill is the Skill tool's name.
const NameSkill = "Skill"

// MaxSkillDepth bounds nested skill activations (spec 05 §9.5).
const MaxSkillDepth = 3

//go:embed skill.md
var skillMD string

//go:embed skill_loaded.md
var skillLoadedMD string

const skillSchema = `{
  "type": "object",
  "properties": {
    "skill": {"type": "string", "minLength": 1, "description": "The exact name of a listed skill."},
    "args": {"type": "string", "description": "Optional arguments for the skill."}
  },
  "required": ["skill"],
  "additionalProperties": false
}`

// SkillOptions configure the Skill tool.
type SkillOptions struct {
	Registry SkillRegistry
	Context  ContextAppender
	// Depth is how deep in nested skill activations this tool runs.
	Depth int
	// SessionID fills ${KIMI_SESSION_ID}.
	SessionID string
}

// Skill is the Skill tool (spec 05 §9.5): it renders a skill's
// instructions and appends them as a user message right after its result.
type Skill struct {
	o   SkillOptions
	def llm.Tool
}

// NewSkill returns the Skill tool.
func NewSkill(o SkillOptions) *Skill {
	return &Skill{o: o, def: definition(NameSkill, skillMD, nil, skillSchema)}
}

// Definition implements loop.ExecutableTool.
func (t *Skill) Definition() llm.Tool { return t.def }

// ErrSkillTooDeep refuses a skill loaded from within too many others.
type ErrSkillTooDeep struct{ Name string }

func (e ErrSkillTooDeep) Error() string {
	return fmt.Sprintf("Nested skill invocation %q exceeded the maximum depth of %d — refusing to recurse further.", e.Name, MaxSkillDepth)
}

// ResolveExecution implements loop.ExecutableTool.
func (t *Skill) ResolveExecution(raw json.RawMessage) (loop.Execution, *loop.ToolResult, error) {
	var a struct {
		Skill string `json:"skill"`
		Args  string `json:"args"`
	}
	if r := decodeArgs(NameSkill, raw, &a); r != nil {
		return loop.Execution{}, r, nil
	}
	name := strings.TrimSpace(a.Skill)
	return loop.Execution{
		Description:  "Invoke skill " + name,
		ApprovalRule: NameSkill,
		MatchesRule:  workspace.StringRuleMatcher(name),
		Execute: func(ctx context.Context, _ loop.ExecCtx) (loop.ToolResult, error) {
			return t.invoke(ctx, name, a.Args)
		},
	}, nil, nil
}

func (t *Skill) invoke(ctx context.Context, name, args string) (loop.ToolResult, error) {
	if t.o.Depth >= MaxSkillDepth {
		return loop.ToolResult{}, ErrSkillTooDeep{Name: name}
	}
	s, ok := t.o.Registry.Lookup(name)
	switch {
	case !ok:
		return loop.ErrorResult(fmt.Sprintf("Skill %q not found in the current skill listing.", name)), nil
	case s.DisableModelInvocation:
		return loop.ErrorResult(fmt.Sprintf("Skill %q can only be triggered by the user (model invocation is disabled).", s.Name)), nil
	case !s.ModelInvocable():
		return loop.ErrorResult(fmt.Sprintf("Skill %q is not an inline skill and cannot be invoked by the model in v1.", s.Name)), nil
	}
	trigger := "model-tool"
	if t.o.Depth > 0 {
		trigger = "nested-skill"
	}
	a := SkillActivation{Name: s.Name, Args: args, Source: string(s.Source), Dir: s.Dir, Path: s.Path,
		Type: string(s.Type), Trigger: trigger}
	a.Text = SkillMessage(s, args, trigger, t.o.SessionID)
	if err := t.o.Context.AppendSkill(ctx, a); err != nil {
		return loop.ToolResult{}, err
	}
	return loop.TextResult(fmt.Sprintf("Skill %q loaded inline. Follow its instructions.", s.Name)), nil
}

// SkillMessage is the user message that carries a skill's rendered
// instructions: a line saying they were loaded for this request, then the
// <kimi-skill-loaded> block (the tag name keeps skill files written for
// other tools working).
func SkillMessage(s skill.Skill, args, trigger, sessionID string) string {
	attrs := []string{attr("name", s.Name), attr("trigger", trigger), attr("source", string(s.Source)), attr("dir", s.Dir)}
	if args != "" {
		attrs = append(attrs, attr("args", args))
	}
	return strings.TrimSpace(skillLoadedMD) + "\n\n<kimi-skill-loaded " + strings.Join(attrs, " ") + ">\n" +
		skill.Render(s, args, sessionID) + "\n</kimi-skill-loaded>"
}

func attr(k, v string) string {
	r := strings.NewReplacer("&", "&amp;", `"`, "&quot;", "<", "&lt;", ">", "&gt;")
	return k + `="` + r.Replace(v) + `"`
}
