package session

import (
	"context"

	"github.com/kimigo/kimigo/mcp"
	"github.com/kimigo/kimigo/tools"
)

// startMCP makes the MCP manager of the servers Options.MCPServers hands
// over (the ACP client's, spec 06 §8.9), before the agent is built; its
// tools join the main agent's tool manager as they arrive.
func (s *Session) startMCP(o Options) {
	if len(o.MCPServers) == 0 {
		return
	}
	s.mcp = mcp.New(mcp.Options{Env: o.Env, Version: o.Version, Logger: s.logger})
}

// followMCP keeps m's MCP tools in step with the session's servers.
func (s *Session) followMCP(m *tools.Manager) {
	if s.mcp == nil {
		return
	}
	s.stopMCP = m.FollowMCP(s.mcp, func(err error) { s.logger.Warn("MCP tool dropped", "err", err) })
}

// WaitMCP waits until every MCP server handed over at Open has connected
// or failed (each bounded by its startup timeout), or ctx ends. Without
// servers it returns at once.
func (s *Session) WaitMCP(ctx context.Context) error {
	if s.mcp == nil {
		return nil
	}
	return s.mcp.Wait(ctx)
}

// closeMCP stops following and closes every server.
func (s *Session) closeMCP(ctx context.Context) error {
	if s.mcp == nil {
		return nil
	}
	if s.stopMCP != nil {
		s.stopMCP()
	}
	return s.mcp.Close(ctx)
}

// MCPServers lists the session's MCP servers with their status, sorted
// by name (the /mcp command); nil without any.
func (s *Session) MCPServers() []mcp.ServerInfo {
	if s.mcp == nil {
		return nil
	}
	return s.mcp.Servers()
}
