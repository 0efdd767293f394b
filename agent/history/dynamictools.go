package history

import (
	"slices"
	"strings"
)

// Dynamic tool context (spec 02 §4.3): under progressive tool disclosure
// history holds schema messages (tool definitions, origin injection
// dynamic_tool_schema) and announcements (system reminders with origin
// system_trigger loadable-tools listing added and removed tools).

const (
	toolsAddedOpen    = "<tools_added>"
	toolsAddedClose   = "</tools_added>"
	toolsRemovedOpen  = "<tools_removed>"
	toolsRemovedClose = "</tools_removed>"
)

// IsToolSchemaMessage reports whether m carries tool definitions.
func IsToolSchemaMessage(m Message) bool { return len(m.Tools) > 0 }

// IsToolAnnouncement reports whether m announces loadable-tool changes.
func IsToolAnnouncement(m Message) bool {
	return m.Origin.Is(OriginSystemTrigger) && m.Origin.Name == TriggerNameLoadableTools
}

// StripDynamicToolContext removes the dynamic tool protocol from h, for a
// model without the capability and for the compaction summariser:
// announcements are dropped, schema messages lose their tools, and those
// left with no content and no calls are dropped. Without any protocol
// message it returns h itself; h is never modified.
func StripDynamicToolContext(h []Message) []Message {
	if !slices.ContainsFunc(h, func(m Message) bool { return IsToolSchemaMessage(m) || IsToolAnnouncement(m) }) {
		return h
	}
	out := make([]Message, 0, len(h))
	for _, m := range h {
		switch {
		case IsToolAnnouncement(m):
			continue
		case IsToolSchemaMessage(m):
			m.Tools = nil
			if len(m.Content) == 0 && len(m.ToolCalls) == 0 {
				continue
			}
		}
		out = append(out, m)
	}
	return out
}

// CollectLoadedDynamicToolNames is the union of the tool names declared by
// schema messages, in order of first appearance.
func CollectLoadedDynamicToolNames(h []Message) []string {
	var names []string
	seen := map[string]bool{}
	for _, m := range h {
		for _, t := range m.Tools {
			if !seen[t.Name] {
				seen[t.Name] = true
				names = append(names, t.Name)
			}
		}
	}
	return names
}

// ToolAnnouncement is the text of an announcement: a <tools_added> and a
// <tools_removed> block (each only when non-empty, one name per line) and
// a guidance sentence. ok is false when both lists are empty. Append it
// with SystemReminder and SystemTriggerOrigin(TriggerNameLoadableTools).
func ToolAnnouncement(added, removed []string) (text string, ok bool) {
	if len(added) == 0 && len(removed) == 0 {
		return "", false
	}
	var blocks []string
	if len(added) > 0 {
		blocks = append(blocks, toolsAddedOpen+"\n"+strings.Join(added, "\n")+"\n"+toolsAddedClose)
	}
	if len(removed) > 0 {
		blocks = append(blocks, toolsRemovedOpen+"\n"+strings.Join(removed, "\n")+"\n"+toolsRemovedClose)
	}
	blocks = append(blocks, oneText(toolsChangedMD))
	return strings.Join(blocks, "\n"), true
}

// FoldAnnouncedTools replays the announcements of h in order (within a
// message: removals, then additions) and returns the announced tool names
// in order of announcement.
func FoldAnnouncedTools(h []Message) []string {
	var names []string
	for _, m := range h {
		if !IsToolAnnouncement(m) {
			continue
		}
		text := textOf(m.Content)
		for _, r := range blockLines(text, toolsRemovedOpen, toolsRemovedClose) {
			names = slices.DeleteFunc(names, func(n string) bool { return n == r })
		}
		for _, a := range blockLines(text, toolsAddedOpen, toolsAddedClose) {
			if !slices.Contains(names, a) {
				names = append(names, a)
			}
		}
	}
	return names
}

// blockLines returns the non-blank trimmed lines between open and close.
func blockLines(text, open, close string) []string {
	_, rest, ok := strings.Cut(text, open)
	if !ok {
		return nil
	}
	body, _, ok := strings.Cut(rest, close)
	if !ok {
		return nil
	}
	var lines []string
	for _, l := range strings.Split(body, "\n") {
		if l = Trim(l); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}
