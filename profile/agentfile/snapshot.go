package agentfile

import (
	"fmt"

	"github.com/kimigo/kimigo/profile"
)

const snapshotVersion = 1

// Snapshot is the file-backed part of a session's catalog, stored when the
// session is created so that resuming it finds the same custom agents even
// after their files changed or vanished (spec 05 §8.8). It is JSON.
type Snapshot struct {
	Version int `json:"version"`
	// SystemPrompt is the SYSTEM.md body; "" when there was none.
	SystemPrompt string `json:"systemPromptTemplate,omitempty"`
	// Profiles are the winning agent files with their tools and subagents
	// resolved.
	Profiles []Definition `json:"profiles,omitempty"`
}

// IsZero reports a snapshot of a catalog without agent files or SYSTEM.md,
// which a session need not store.
func (s Snapshot) IsZero() bool { return s.SystemPrompt == "" && len(s.Profiles) == 0 }

// Restore rebuilds a session's catalog from its snapshot: the stored
// profiles return as explicit files, so they win as they did when the
// session was created. Subagents that no longer exist are dropped with a
// warning.
func Restore(builtin *profile.Catalog, s Snapshot) (*profile.Catalog, []profile.Warning, error) {
	if s.Version != snapshotVersion && !s.IsZero() {
		return nil, nil, fmt.Errorf("agent profile snapshot version %d is not supported", s.Version)
	}
	var defs []Definition
	if s.SystemPrompt != "" {
		defs = append(defs, Definition{Name: profile.DefaultName, Prompt: s.SystemPrompt, Path: "SYSTEM.md", Source: SourceSystem, Override: true})
	}
	for _, d := range s.Profiles {
		d.Source, d.Override = SourceExplicit, true
		defs = append(defs, d)
	}
	cat, _, warnings, err := Merge(builtin, defs)
	return cat, warnings, err
}
