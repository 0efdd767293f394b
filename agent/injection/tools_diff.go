package injection

import (
	"context"
	"slices"

	"github.com/kimigo/kimigo/agent/history"
)

// ToolsDiff announces the tools select_tools may load (spec 05 §2.6): it
// folds the announcements already in history (in order, removals before
// additions within one) into the announced set, compares it with the
// loadable set, and only when they differ appends a reminder with a
// <tools_added> and/or <tools_removed> block (origin system_trigger
// loadable-tools). It keeps no ledger, so undo, compaction and resume
// heal by folding again. It runs before every step, so tools that arrive
// mid-turn (an MCP server that connected late or changed its list) are
// announced at the next step; appending never changes the request prefix.
type ToolsDiff struct{}

// Inject implements Injector.
func (ToolsDiff) Inject(ctx context.Context, h Host) error {
	loadable, on := h.LoadableTools()
	if !on {
		return nil
	}
	announced := history.FoldAnnouncedTools(h.History())
	var added, removed []string
	for _, n := range loadable {
		if !slices.Contains(announced, n) {
			added = append(added, n)
		}
	}
	for _, n := range announced {
		if !slices.Contains(loadable, n) {
			removed = append(removed, n)
		}
	}
	slices.Sort(removed)
	text, ok := history.ToolAnnouncement(added, removed)
	if !ok {
		return nil
	}
	return h.AppendMessage(ctx, history.SystemReminder(text, history.SystemTriggerOrigin(history.TriggerNameLoadableTools)))
}

// OnClear implements Injector; the fold needs no bookkeeping.
func (ToolsDiff) OnClear() {}

// OnCompacted implements Injector.
func (ToolsDiff) OnCompacted() {}

// OnMessageRemoved implements Injector.
func (ToolsDiff) OnMessageRemoved(int) {}
