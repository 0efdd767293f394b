package skill

import "strings"

// Source says where a skill was found; it is also the listing group.
type Source string

// Skill sources, in precedence order: a name found in an earlier source
// hides the same name in a later one.
const (
	SourceProject Source = "project"
	SourceUser    Source = "user"
	SourceExtra   Source = "extra"
	SourceBuiltin Source = "builtin"
)

// Type says who may load a skill (spec 05 §9.3).
type Type string

// Skill types. Prompt and inline are the same; an absent type is prompt.
const (
	TypePrompt Type = "prompt"
	TypeInline Type = "inline"
	// TypeFlow skills are started by the user only.
	TypeFlow Type = "flow"
	// TypeReference skills are listed nowhere and loaded by nobody; they
	// are files other skills point at.
	TypeReference Type = "reference"
)

// Skill is one discovered skill.
type Skill struct {
	Name        string
	Description string
	WhenToUse   string
	// Path is the skill's file (SKILL.md or a flat .md), or
	// builtin://<name> for a built-in skill.
	Path string
	// Dir is the directory the skill's resources live in.
	Dir string
	// Body is the instructions: the file after its frontmatter, trimmed.
	Body   string
	Source Source
	Type   Type
	// DisableModelInvocation keeps the model from loading the skill; the
	// user still can.
	DisableModelInvocation bool
	// Arguments are the declared argument names, in order.
	Arguments []string
	// SubSkill marks a skill nested in a parent that enables sub-skills;
	// its name is "<parent>.<name>".
	SubSkill bool
	// HasSubSkills says the skill's directory holds sub-skills.
	HasSubSkills bool
	// Metadata is the whole frontmatter as parsed.
	Metadata map[string]any
}

// ModelInvocable reports whether the Skill tool may load s: model
// invocation is not disabled and its type is prompt or inline.
func (s Skill) ModelInvocable() bool {
	return !s.DisableModelInvocation && (s.Type == TypePrompt || s.Type == TypeInline || s.Type == "")
}

// UserInvocable reports whether /skill:<name> may load s: prompt, inline
// and flow skills.
func (s Skill) UserInvocable() bool {
	return s.Type == TypePrompt || s.Type == TypeInline || s.Type == TypeFlow || s.Type == ""
}

// key is the case-insensitive identity of a skill name.
func key(name string) string { return strings.ToLower(name) }
