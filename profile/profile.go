package profile

import "slices"

// DefaultName is the name of the default profile, the main agent's persona
// unless --agent or --agent-file picks another.
const DefaultName = "agent"

// ModelPreference is the model a profile prefers when it is spawned as a
// subagent (the secondary-model experiment, spec 05 §5.14).
type ModelPreference string

// Model preferences. The zero value states no preference.
const (
	ModelPrimary   ModelPreference = "primary"
	ModelSecondary ModelPreference = "secondary"
)

// Profile is a resolved agent persona (spec 05 §8): its metadata, the tools
// it may use, the profiles it may delegate to, and a renderer for its
// system prompt. A Profile is immutable once built; callers must not modify
// its slices. It is safe for concurrent use.
type Profile struct {
	// Name is unique within a catalog.
	Name string
	// Description is shown in the Agent tool's list of subagent types.
	Description string
	// WhenToUse tells a delegating agent when this profile fits.
	WhenToUse string
	// Tools is the allow-list handed to the tool manager: exact tool names
	// plus mcp__ glob patterns. Names the manager does not know are ignored.
	Tools []string
	// DisallowedTools is the deny-list evaluated after Tools.
	DisallowedTools []string
	// Subagents names the profiles this one may delegate to, sorted. Nil
	// means none declared (see Catalog.Delegates); a custom agent file
	// always links a non-nil list.
	Subagents []string
	// ModelPreference is the default model choice when spawned.
	ModelPreference ModelPreference
	// Source names where the profile was defined: an embedded file, a
	// YAML path or an agent file path.
	Source string

	prompt Prompt
}

// Prompt renders the system prompt of a profile. Implementations must be
// safe for concurrent use and must return the same bytes for the same
// profile and context, because the prompt heads every request of a session
// and providers cache that prefix.
type Prompt interface {
	Render(p *Profile, pc PromptContext) (string, error)
}

// New returns a copy of p that renders its system prompt with prompt.
// Custom agent files (package agentfile) build their profiles this way.
func New(p Profile, prompt Prompt) *Profile {
	p.Tools = slices.Clone(p.Tools)
	p.DisallowedTools = slices.Clone(p.DisallowedTools)
	if p.Subagents != nil { // Clone keeps an empty list non-nil
		p.Subagents = slices.Clone(p.Subagents)
		slices.Sort(p.Subagents)
		p.Subagents = slices.Compact(p.Subagents)
	}
	p.prompt = prompt
	return &p
}

// SystemPrompt renders the profile's system prompt for a runtime context.
// It may be called from several goroutines.
func (p *Profile) SystemPrompt(pc PromptContext) (string, error) {
	if p.prompt == nil {
		return "", nil
	}
	return p.prompt.Render(p, pc)
}

// WithSubagents returns a copy of p that may delegate to names (sorted,
// duplicates dropped) and renders the same prompt.
func (p *Profile) WithSubagents(names []string) *Profile {
	c := *p
	if names == nil {
		names = []string{}
	}
	c.Subagents = names
	return New(c, p.prompt)
}

// HasTool reports whether the profile enables the tool named exactly name:
// it is in Tools (a lone "*" counts) and not in DisallowedTools. Patterns
// other than "*" are not expanded; they only concern MCP tools.
func (p *Profile) HasTool(name string) bool {
	allowed := slices.Contains(p.Tools, name) || slices.Contains(p.Tools, "*")
	return allowed && !slices.Contains(p.DisallowedTools, name)
}
