package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/kimigo/kimigo/hooks"
	"github.com/kimigo/kimigo/mcp"
	"github.com/kimigo/kimigo/profile/skill"
	"github.com/kimigo/kimigo/ui/render"
)

// Optional capabilities of the extension points (issue 21); the session
// has them all.
type (
	// mcpLister lists the MCP servers with their status now (/mcp).
	mcpLister interface {
		MCPServers() []mcp.ServerInfo
	}
	// mcpReconnecter connects an MCP server again with its configuration
	// reread (/mcp reconnect <name>).
	mcpReconnecter interface {
		ReconnectMCP(ctx context.Context, name string) error
	}
	// hookLister lists the lifecycle hooks the session may run (/hooks).
	hookLister interface {
		Hooks() []hooks.Hook
	}
	// skillLister lists the skills the user may call as /skill:<name>.
	skillLister interface {
		Skills() []skill.Skill
	}
)

// mcpStatusLabel is how /mcp names a server's status: pending is still
// connecting.
func mcpStatusLabel(s mcp.Status) string {
	if s == mcp.StatusPending {
		return "connecting"
	}
	return string(s)
}

// cmdMCP is /mcp: every MCP server with its status, transport, tool
// count and, for a failed or disabled one, why (spec 06 §7.3); /mcp
// reconnect <name> connects one again.
func cmdMCP(c *Ctx, args string) tea.Cmd {
	l, ok := c.m.sess.(mcpLister)
	if !ok {
		c.Warn("This session has no MCP servers to show.")
		return nil
	}
	if sub, name, _ := strings.Cut(args, " "); sub != "" {
		name = strings.TrimSpace(name)
		rc, ok := c.m.sess.(mcpReconnecter)
		switch {
		case sub != "reconnect" || name == "":
			c.Fail(fmt.Sprintf("Unknown /mcp argument %q: use /mcp or /mcp reconnect <server>.", args))
			return nil
		case !ok:
			c.Warn("This session cannot reconnect MCP servers.")
			return nil
		}
		c.Info("Reconnecting MCP server " + name + "…")
		return c.m.calls.Run(func(ctx context.Context) tea.Msg {
			if err := rc.ReconnectMCP(ctx, name); err != nil {
				return noticeMsg{level: render.Error, text: "MCP server " + name + " did not reconnect", detail: err.Error()}
			}
			return noticeMsg{level: render.Success, text: "MCP server " + name + " connected."}
		})
	}
	servers := l.MCPServers()
	if len(servers) == 0 {
		c.Info("No MCP servers configured (add them with `kimigo mcp add` or in .mcp.json).")
		return nil
	}
	slices.SortFunc(servers, func(a, b mcp.ServerInfo) int { return strings.Compare(a.Name, b.Name) })
	var lines []string
	for _, s := range servers {
		line := fmt.Sprintf("%s  %s · %s", s.Name, mcpStatusLabel(s.Status), s.Transport)
		if s.Status == mcp.StatusConnected {
			line += fmt.Sprintf(" · %d %s", s.ToolCount, plural(s.ToolCount, "tool", "tools"))
		}
		if s.Source != "" {
			line += " · " + string(s.Source)
		}
		lines = append(lines, line)
		if s.Error != "" {
			for _, l := range strings.Split(strings.TrimSpace(s.Error), "\n") {
				lines = append(lines, "  "+l)
			}
		}
	}
	if _, ok := c.m.sess.(mcpReconnecter); ok {
		lines = append(lines, "/mcp reconnect <server> connects one again.")
	}
	c.Notice(fmt.Sprintf("MCP servers (%d)", len(servers)), strings.Join(lines, "\n"))
	return nil
}

// mcpStartupFailures shows the MCP servers of a session just shown that
// failed before its events reached the interface (spec 06 §5.2).
func (m *Model) mcpStartupFailures() {
	l, ok := m.sess.(mcpLister)
	if !ok {
		return
	}
	for _, s := range l.MCPServers() {
		if s.Status == mcp.StatusFailed {
			m.mcpFailure(s.Name, s.Error)
		}
	}
}

// mcpFailure shows that MCP server name failed, once per reason.
func (m *Model) mcpFailure(name, reason string) {
	if r, seen := m.mcpFailed[name]; seen && r == reason {
		return
	}
	if m.mcpFailed == nil {
		m.mcpFailed = map[string]string{}
	}
	m.mcpFailed[name] = reason
	first, _, _ := strings.Cut(strings.TrimSpace(reason), "\n")
	m.notice(render.Warning, fmt.Sprintf("MCP server %s failed: %s (/mcp shows more).", name, first))
}

// cmdHooks is /hooks: the configured hooks by event, in the order of the
// events, as `kimigo hooks list` shows them.
func cmdHooks(c *Ctx, _ string) tea.Cmd {
	l, ok := c.m.sess.(hookLister)
	if !ok {
		c.Warn("This session has no hooks to show.")
		return nil
	}
	hs := l.Hooks()
	if len(hs) == 0 {
		c.Info("No hooks configured (add [[hooks]] to config.toml).")
		return nil
	}
	var lines []string
	for _, info := range hooks.Events() {
		first := true
		for _, h := range hs {
			if h.Event != info.Event {
				continue
			}
			if first {
				lines = append(lines, fmt.Sprintf("%s (%s)", info.Event, info.When))
				first = false
			}
			t := h.Timeout
			if t <= 0 {
				t = hooks.DefaultTimeout
			}
			m := h.Matcher
			if m == "" {
				m = "*"
			}
			src := ""
			if h.Source != "" && h.Source != hooks.SourceUser {
				src = " (" + string(h.Source) + ")"
			}
			lines = append(lines, fmt.Sprintf("  [%s] %s%s: %s", m, t.Round(time.Second), src, h.Command))
		}
	}
	c.Notice(fmt.Sprintf("Hooks (%d)", len(hs)), strings.Join(lines, "\n"))
	return nil
}

// skillItems are the /skill:<name> completions for a typed name: the
// skills whose "skill:<name>" starts with it.
func (m *Model) skillItems(typed string) []choice {
	l, ok := m.sess.(skillLister)
	if !ok || typed == "" || !strings.HasPrefix("skill:", typed) && !strings.HasPrefix(typed, "skill:") {
		return nil
	}
	var out []choice
	for _, s := range l.Skills() {
		name := "skill:" + s.Name
		if !strings.HasPrefix(name, typed) {
			continue
		}
		d := s.Description
		if i := strings.IndexByte(d, '\n'); i >= 0 {
			d = d[:i]
		}
		out = append(out, choice{label: "/" + name, detail: d, value: name})
	}
	slices.SortFunc(out, func(a, b choice) int { return strings.Compare(a.label, b.label) })
	return out
}
