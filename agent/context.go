package agent

import (
	"context"
	"slices"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/tools"
)

// The agent as the tools that load context see it (tools.ContextAppender):
// select_tools appends schema messages, Skill the instructions of a skill.
// Both go through the normal append path, so they are records, they wait
// behind an open tool exchange, and a resume replays them.

var _ tools.ContextAppender = storeCommitter{}

// AppendToolSchemas appends a schema message: a system message without
// content that carries defs (origin injection, dynamic_tool_schema).
func (c storeCommitter) AppendToolSchemas(ctx context.Context, defs []llm.Tool) error {
	m := history.Message{Message: llm.Message{Role: llm.RoleSystem, Tools: slices.Clone(defs)},
		Origin: history.InjectionOrigin(history.VariantDynamicToolSchema)}
	return c.a.appendMessage(ctx, m)
}

// AppendSkill appends the user message of a skill the model loaded, with
// its skill_activation origin.
func (c storeCommitter) AppendSkill(ctx context.Context, s tools.SkillActivation) error {
	o := &history.Origin{Kind: history.OriginSkillActivation, ActivationID: c.a.o.NewUUID(),
		Trigger: history.Trigger(s.Trigger), SkillName: s.Name, SkillArgs: s.Args, SkillType: s.Type,
		SkillPath: s.Path, SkillSource: s.Source}
	return c.a.appendMessage(ctx, history.Message{Message: llm.UserMessage(s.Text), Origin: o})
}

// LoadedTools are the dynamic tools whose schemas history carries.
func (c storeCommitter) LoadedTools() []string { return c.a.loadedTools() }

// disclosure reports whether the current model gets progressively
// disclosed tools.
func (a *Agent) disclosure() bool { return a.manager != nil && a.manager.DisclosureEnabled() }

// shapeDynamicTools narrows the schema messages of h to tools the manager
// still registers (a tool whose server went away is not offered again);
// schema messages left empty go. h is not modified.
func (a *Agent) shapeDynamicTools(h []history.Message) []history.Message {
	known := map[string]bool{}
	for _, info := range a.manager.Infos() {
		known[info.Name] = true
	}
	var out []history.Message
	changed := false
	for i, m := range h {
		if !history.IsToolSchemaMessage(m) {
			if changed {
				out = append(out, m)
			}
			continue
		}
		kept := slices.DeleteFunc(slices.Clone(m.Tools), func(t llm.Tool) bool { return !known[t.Name] })
		if len(kept) == len(m.Tools) {
			if changed {
				out = append(out, m)
			}
			continue
		}
		if !changed {
			out, changed = append(out, h[:i]...), true
		}
		if len(kept) == 0 && len(m.Content) == 0 && len(m.ToolCalls) == 0 {
			continue
		}
		m.Tools = kept
		out = append(out, m)
	}
	if !changed {
		return h
	}
	return out
}
