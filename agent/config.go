package agent

import (
	"context"
	"slices"

	"github.com/kimigo/kimigo/agent/records"
)

// TypeConfigUpdate is the record of a configuration change (spec 02 §6.3):
// the fields that changed, with their new values.
const TypeConfigUpdate records.Type = "config.update"

// Config is the agent's configuration state: what the session chose for
// it. Only the system prompt changes what a request sends; the rest is
// kept for resume, UIs and the session (which maps the alias and profile
// back to a provider and a profile).
type Config struct {
	Cwd            string   `json:"cwd,omitempty"`
	ModelAlias     string   `json:"modelAlias,omitempty"`
	ProfileName    string   `json:"profileName,omitempty"`
	SubagentNames  []string `json:"subagentNames,omitempty"`
	ThinkingEffort string   `json:"thinkingEffort,omitempty"`
	SystemPrompt   string   `json:"systemPrompt,omitempty"`
}

// ConfigUpdate is the payload of config.update: nil fields are unchanged.
type ConfigUpdate struct {
	Cwd            *string   `json:"cwd,omitempty"`
	ModelAlias     *string   `json:"modelAlias,omitempty"`
	ProfileName    *string   `json:"profileName,omitempty"`
	SubagentNames  *[]string `json:"subagentNames,omitempty"`
	ThinkingEffort *string   `json:"thinkingEffort,omitempty"`
	SystemPrompt   *string   `json:"systemPrompt,omitempty"`
}

// updateConfig records a configuration change and applies it; the next
// request uses it.
func (a *Agent) updateConfig(ctx context.Context, u ConfigUpdate) error {
	_, err := a.commitPayload(ctx, TypeConfigUpdate, u)
	return err
}

// apply is the apply of config.update.
func (c *Config) apply(u ConfigUpdate) {
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	set(&c.Cwd, u.Cwd)
	set(&c.ModelAlias, u.ModelAlias)
	set(&c.ProfileName, u.ProfileName)
	set(&c.ThinkingEffort, u.ThinkingEffort)
	set(&c.SystemPrompt, u.SystemPrompt)
	if u.SubagentNames != nil {
		c.SubagentNames = slices.Clone(*u.SubagentNames)
	}
}

// asUpdate is the update that sets every non-empty field of c.
func (c Config) asUpdate() ConfigUpdate {
	var u ConfigUpdate
	str := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	u.Cwd, u.ModelAlias, u.ProfileName = str(c.Cwd), str(c.ModelAlias), str(c.ProfileName)
	u.ThinkingEffort, u.SystemPrompt = str(c.ThinkingEffort), str(c.SystemPrompt)
	if c.SubagentNames != nil {
		names := slices.Clone(c.SubagentNames)
		u.SubagentNames = &names
	}
	return u
}

func (c Config) isZero() bool {
	return c.Cwd == "" && c.ModelAlias == "" && c.ProfileName == "" && c.SubagentNames == nil &&
		c.ThinkingEffort == "" && c.SystemPrompt == ""
}

func (c Config) clone() Config {
	c.SubagentNames = slices.Clone(c.SubagentNames)
	return c
}
