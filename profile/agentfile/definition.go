package agentfile

import (
	"path"
	"strings"

	"github.com/kimigo/kimigo/profile"
)

// Source is where an agent file was found. It decides priority when
// several files define the same name (spec 05 §8.8).
type Source string

// Sources, highest priority first. System is <data home>/SYSTEM.md, which
// competes as a user file for the name "agent" and wins over user files.
const (
	SourceExplicit Source = "explicit" // --agent-file
	SourceProject  Source = "project"  // <project root>/.kimi-code/agents, <project root>/.agents/agents
	SourceExtra    Source = "extra"    // config extra_agent_dirs
	SourceUser     Source = "user"     // <data home>/agents, ~/.agents/agents
	SourcePlugin   Source = "plugin"   // enabled plugins' agent directories
	SourceSystem   Source = "system"   // <data home>/SYSTEM.md
)

// priority orders sources: a higher value wins.
func (s Source) priority() int {
	switch s {
	case SourceExplicit:
		return 40
	case SourceProject:
		return 30
	case SourceExtra:
		return 20
	case SourceUser, SourceSystem:
		return 10
	case SourcePlugin:
		return 5
	}
	return 0
}

// Definition is one parsed agent file: frontmatter plus the prompt body
// (spec 05 §8.8). It is plain data, so a session can store the definitions
// it was created with (Snapshot) and rebuild its catalog on resume.
type Definition struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	WhenToUse   string `json:"whenToUse,omitempty"`
	// Override lets the file replace a built-in profile of the same name;
	// explicit files always may.
	Override bool `json:"override,omitempty"`
	// Tools is the allow-list; nil means the effective default profile's.
	Tools []string `json:"tools"`
	// DisallowedTools is passed to the tool manager as is.
	DisallowedTools []string `json:"disallowedTools,omitempty"`
	// Subagents names the profiles it may delegate to; nil means all.
	Subagents       []string                `json:"subagents"`
	ModelPreference profile.ModelPreference `json:"modelPreference,omitempty"`
	// Prompt is the trimmed body, a ${var} template.
	Prompt string `json:"prompt"`
	Path   string `json:"path"`
	Source Source `json:"source"`
}

// overrides reports whether the definition may replace a built-in.
func (d Definition) overrides() bool {
	return d.Override || d.Source == SourceExplicit || d.Source == SourceSystem
}

// defaultName is an agent file's name when its frontmatter has none: the
// file name without its extension.
func defaultName(p string) string {
	base := path.Base(p)
	return strings.TrimSuffix(base, path.Ext(base))
}

// isKebab reports a name of the form ^[a-z0-9]+(-[a-z0-9]+)*$.
func isKebab(s string) bool {
	if s == "" || s[0] == '-' || s[len(s)-1] == '-' || strings.Contains(s, "--") {
		return false
	}
	for _, r := range s {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '-' {
			return false
		}
	}
	return true
}
