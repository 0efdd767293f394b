package tools

import (
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/mcp"
)

// FollowMCP keeps the manager's MCP tools in step with m (spec 05 §2.4):
// the tools of every connected server now, and from then on each change
// of a server replaces its tools (a server that leaves connected takes
// them along). A tool name another server already holds is dropped and
// reported to onCollision, if set. It returns the function that stops
// following.
func (m *Manager) FollowMCP(src *mcp.Manager, onCollision func(error)) (stop func()) {
	apply := func(server string, ts []loop.ExecutableTool) {
		if err := m.SetMCPTools(server, ts); err != nil && onCollision != nil {
			onCollision(err)
		}
	}
	stop = src.Subscribe(func(c mcp.Change) { apply(c.Info.Name, c.Tools) })
	for _, info := range src.Servers() {
		apply(info.Name, src.ServerTools(info.Name))
	}
	return stop
}
