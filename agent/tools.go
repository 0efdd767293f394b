package agent

import (
	"context"
	"slices"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/tools"
)

// historyView is the agent's history as a turn sees it (turn.History):
// each read snapshots history under the state lock and projects it with no
// lock held.
type historyView struct{ a *Agent }

// View projects the current history for p.
func (h historyView) View(p loop.Projection) []llm.Message {
	snap := h.a.History()
	return h.a.mem.View(snap, p)
}

// CloseEvents returns the events that close every pending call.
func (h historyView) CloseEvents(output string) []loop.ToolResultEvent {
	h.a.mu.Lock()
	defer h.a.mu.Unlock()
	return h.a.mem.CloseEvents(output)
}

// loadedTools are the dynamic tools whose schemas history carries.
func (a *Agent) loadedTools() []string {
	return history.CollectLoadedDynamicToolNames(a.History())
}

// toolTable is the tool table of the next step: the manager's table, then
// the fixed tools of Options.
func (a *Agent) toolTable(context.Context) ([]loop.ExecutableTool, error) {
	if a.manager == nil {
		return a.o.Tools, nil
	}
	return append(a.manager.Tools(a.loadedTools()), a.o.Tools...), nil
}

// describeMissingTool words the result of a call to an unknown tool.
func (a *Agent) describeMissingTool(name string) (string, bool) {
	if a.manager == nil {
		return "", false
	}
	return a.manager.MissingToolDescriber(a.loadedTools())(name)
}

// toolDefinitions are the definitions the next request offers: deferred
// tools are executable but not offered.
func (a *Agent) toolDefinitions(ctx context.Context) []llm.Tool {
	table, _ := a.toolTable(ctx) // the table never fails
	defs := make([]llm.Tool, 0, len(table))
	for _, t := range table {
		if d := t.Definition(); !d.Deferred {
			defs = append(defs, d)
		}
	}
	return defs
}

// toolNames lists the names of the current table, for resume checks.
func (a *Agent) toolNames(ctx context.Context) []string {
	table, _ := a.toolTable(ctx)
	names := make([]string, 0, len(table))
	for _, t := range table {
		names = append(names, t.Definition().Name)
	}
	return slices.Clip(names)
}

// SetActiveTools makes at the tool activation of the agent's manager (a
// profile's tool list) and records it (tools.set_active_tools), so a
// resumed agent offers the same tools. An agent without a tool manager
// records nothing.
func (a *Agent) SetActiveTools(ctx context.Context, at tools.ActiveTools) error {
	if a.manager == nil {
		return nil
	}
	_, err := a.commitPayload(ctx, tools.SetActiveToolsRecordType, at)
	return err
}
