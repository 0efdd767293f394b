package session

import (
	"context"
	"fmt"
	"time"

	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/mcp"
	"github.com/kimigo/kimigo/osenv"
)

// loadMCP reads the MCP configuration layers of spec 06 §7.1 (the user's
// <home>/mcp.json, the project's .mcp.json and .kimi-code/mcp.json, then
// the caller's servers); the workspace files' servers start only in a
// trusted workspace. A file that does not read or parse is a warning
// naming it, and the session opens without the servers of any file.
func loadMCP(o Options, warn func(string)) []mcp.Server {
	servers, err := mcp.Load(o.Env, mcp.LoadOptions{DataHome: o.Home, WorkDir: o.WorkDir,
		Caller: o.MCPServers, Trusted: Trusted(o.Store.fs, o.Home, o.WorkDir)})
	if err != nil {
		warn(fmt.Sprintf("MCP servers not started: %v", err))
		return o.MCPServers
	}
	return servers
}

// newMCP builds the session's MCP manager from [mcp] and the
// KIMI_MCP_*_TIMEOUT_MS overrides.
func newMCP(cfg *config.Config, env osenv.Env, version string, s *Session) *mcp.Manager {
	mo := mcp.Options{Env: env, Version: version, Logger: s.logger.With("component", "mcp")}
	if ms := cfg.MCP.StartupTimeoutMs; ms != nil {
		mo.StartupTimeout = time.Duration(*ms) * time.Millisecond
	}
	if ms := cfg.MCP.ToolTimeoutMs; ms != nil {
		mo.ToolTimeout = time.Duration(*ms) * time.Millisecond
	}
	return mcp.New(mo)
}

// startMCP publishes every server change as an event of the main agent
// and starts the servers; they connect in the background.
func (s *Session) startMCP(servers []mcp.Server) {
	s.mcpUnsub = s.mcp.Subscribe(func(c mcp.Change) {
		s.bus.Publish(event.WithAgent(event.MCPServer{Header: event.InTurn(event.NoTurn), Name: c.Info.Name,
			Status: string(c.Info.Status), ToolCount: c.Info.ToolCount, Error: c.Info.Error}, MainAgentID))
	})
	s.mcp.Start(servers)
}

// waitMCP lets the first prompt wait until every server connected or
// failed (spec 06 §7.3): its request then offers their tools. No server
// holds it longer than its startup timeout.
func (s *Session) waitMCP(ctx context.Context) error {
	var err error
	s.mcpWait.Do(func() { err = s.mcp.Wait(ctx) })
	return err
}

// MCPServers lists the session's MCP servers with their status now.
func (s *Session) MCPServers() []mcp.ServerInfo { return s.mcp.Servers() }

// ReconnectMCP connects MCP server name again (/mcp, spec 06 §7.3 step
// 6) with its configuration read anew from the layers, so file edits
// apply, and waits for the attempt: its failure is the error.
func (s *Session) ReconnectMCP(ctx context.Context, name string) error {
	servers, err := mcp.Load(s.env, mcp.LoadOptions{DataHome: s.home, WorkDir: s.workDir,
		Caller: s.mcpCaller, Trusted: Trusted(s.store.fs, s.home, s.workDir)})
	if err != nil {
		return err
	}
	for _, srv := range servers {
		if srv.Name == name {
			return s.mcp.Reconnect(ctx, srv)
		}
	}
	if _, ok := s.mcp.Server(name); ok {
		return fmt.Errorf("MCP server %q is no longer configured", name)
	}
	//lint:ignore ST1005 shown to the user as is (spec 06 §7.3)
	return fmt.Errorf("Unknown MCP server: %s", name)
}

// closeMCP stops following the servers and shuts them down.
func (s *Session) closeMCP(ctx context.Context) error {
	if s.mcpUnsub != nil {
		s.mcpUnsub()
	}
	if s.mcpFollow != nil {
		s.mcpFollow()
	}
	if s.mcp == nil { // the session failed to open before it had one
		return nil
	}
	return s.mcp.Close(ctx)
}

// WaitMCP waits until every MCP server has connected or failed (each
// bounded by its startup timeout), or ctx ends: a front end that hands
// servers over (the ACP client's) calls it before the first prompt.
func (s *Session) WaitMCP(ctx context.Context) error { return s.waitMCP(ctx) }
