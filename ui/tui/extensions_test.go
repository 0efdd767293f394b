package tui

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/hooks"
	"github.com/kimigo/kimigo/mcp"
	"github.com/kimigo/kimigo/profile/skill"
	"github.com/kimigo/kimigo/session"
)

// extended is a recorder with MCP servers, hooks and skills.
type extended struct {
	*recorder
	servers []mcp.ServerInfo
	hooks   []hooks.Hook
	skills  []skill.Skill
}

func (e *extended) MCPServers() []mcp.ServerInfo { return e.servers }
func (e *extended) Hooks() []hooks.Hook          { return e.hooks }
func (e *extended) Skills() []skill.Skill        { return e.skills }
func (e *extended) ReconnectMCP(_ context.Context, name string) error {
	e.log("reconnect %s", name)
	if name == "broken" {
		return errors.New("exec: \"nope\": executable file not found in $PATH")
	}
	return nil
}

func extendedRig(t *testing.T, e *extended) *rig {
	e.recorder = newRecorder()
	r := newRig(t, func(o *Options) { o.Session = e })
	r.sess = e.recorder
	return r
}

func (r *rig) do(line string) {
	r.t.Helper()
	r.key("ctrl+u")
	r.typeText(line)
	r.key("enter")
}

// /mcp lists every server with its status (connecting, connected with its
// tool count, failed with the reason, disabled), its transport and where
// it was configured.
func TestMCPCommand(t *testing.T) {
	e := &extended{}
	r := extendedRig(t, e)
	r.do("/mcp")
	r.contains(r.screen(), "No MCP servers configured")

	e.servers = []mcp.ServerInfo{
		{Name: "fs", Transport: mcp.TransportStdio, Status: mcp.StatusConnected, ToolCount: 14, Source: mcp.SourceUser},
		{Name: "broken", Transport: mcp.TransportStdio, Status: mcp.StatusFailed, Source: mcp.SourceProject,
			Error: "exec: \"nope\": executable file not found in $PATH"},
		{Name: "slow", Transport: mcp.TransportHTTP, Status: mcp.StatusPending, Source: mcp.SourceUser},
		{Name: "off", Transport: mcp.TransportSSE, Status: mcp.StatusDisabled, Source: mcp.SourceUser, Error: "disabled in mcp.json"},
	}
	r.do("/mcp")
	s := r.screen()
	r.contains(s, "MCP servers (4)")
	r.contains(s, "fs  connected · stdio · 14 tools · user")
	r.contains(s, "broken  failed · stdio · project")
	r.contains(s, `exec: "nope": executable file not found in $PATH`)
	r.contains(s, "slow  connecting · http · user")
	r.contains(s, "off  disabled · sse · user")
	r.contains(s, "disabled in mcp.json")
	r.contains(s, "/mcp reconnect <server> connects one again.")
	r.expectCalls()

	r.do("/mcp reconnect fs")
	r.expectCalls("reconnect fs")
	r.contains(r.screen(), "MCP server fs connected.")
	r.do("/mcp reconnect broken")
	r.expectCalls("reconnect broken")
	r.contains(r.screen(), "MCP server broken did not reconnect")
	r.do("/mcp restart")
	r.contains(r.screen(), `Unknown /mcp argument "restart": use /mcp or /mcp reconnect <server>.`)
	r.expectCalls()
}

// /hooks lists the hooks by event in the events' order, with matcher,
// timeout and command; nothing configured says where to add them.
func TestHooksCommand(t *testing.T) {
	e := &extended{}
	r := extendedRig(t, e)
	r.do("/hooks")
	r.contains(r.screen(), "No hooks configured (add [[hooks]] to config.toml).")

	e.hooks = []hooks.Hook{
		{Event: hooks.Stop, Command: "notify-send done", Source: hooks.SourceUser},
		{Event: hooks.PreToolUse, Matcher: "Bash", Command: "./guard.sh", Timeout: 5 * time.Second, Source: hooks.SourceProject},
	}
	r.do("/hooks")
	s := r.screen()
	r.contains(s, "Hooks (2)")
	r.contains(s, "PreToolUse (")
	r.contains(s, "[Bash] 5s (project): ./guard.sh")
	r.contains(s, "[*] "+hooks.DefaultTimeout.String()+": notify-send done")
	if pre, stop := strings.Index(s, "PreToolUse ("), strings.Index(s, "Stop ("); pre < 0 || stop < pre {
		t.Errorf("PreToolUse at %d, Stop at %d: want the events' order", pre, stop)
	}
}

// Typing /sk offers the skills as /skill:<name> with their description;
// accepting one runs it as a prompt the session expands.
func TestSkillCompletion(t *testing.T) {
	e := &extended{skills: []skill.Skill{
		{Name: "review", Description: "Review the current diff"},
		{Name: "release", Description: "Cut a release\nwith notes"},
	}}
	r := extendedRig(t, e)
	r.typeText("/skill:re")
	live := r.live()
	r.contains(live, "/skill:release")
	r.contains(live, "Cut a release")
	r.lacks(live, "with notes")
	r.contains(live, "/skill:review")
	r.typeText("v")
	r.lacks(r.live(), "/skill:release")
	r.key("tab")
	r.typeText("src/")
	r.key("enter")
	r.expectCalls(`prompt "/skill:review src/"`)

	r.key("ctrl+u")
	r.typeText("/mc")
	r.lacks(r.live(), "/skill:")
}

// The session lists its MCP servers, hooks and skills.
var (
	_ mcpLister      = (*session.Session)(nil)
	_ hookLister     = (*session.Session)(nil)
	_ skillLister    = (*session.Session)(nil)
	_ mcpReconnecter = (*session.Session)(nil)
)

// An MCP server that failed shows once as a warning: one that failed
// before the interface subscribed when the session is shown, later ones
// as their events arrive.
func TestMCPFailureNotices(t *testing.T) {
	e := &extended{servers: []mcp.ServerInfo{{Name: "early", Transport: mcp.TransportStdio, Status: mcp.StatusFailed,
		Error: "exec: no such file\nstderr tail"}}}
	e.recorder = newRecorder()
	r := newRig(t, func(o *Options) { o.Session = e })
	r.sess = e.recorder
	r.contains(r.screen(), "MCP server early failed: exec: no such file (/mcp shows more).")
	r.event(event.MCPServer{Name: "early", Status: "failed", Error: "exec: no such file\nstderr tail"})
	r.event(event.MCPServer{Name: "late", Status: "connected", ToolCount: 3})
	r.event(event.MCPServer{Name: "late", Status: "failed", Error: "connection closed"})
	s := r.screen()
	if n := strings.Count(s, "MCP server early failed"); n != 1 {
		t.Errorf("the early failure shows %d times:\n%s", n, s)
	}
	r.contains(s, "MCP server late failed: connection closed")
	r.lacks(s, "stderr tail")
	r.event(event.MCPServer{Name: "late", Status: "connected", ToolCount: 3})
	r.event(event.MCPServer{Name: "late", Status: "failed", Error: "connection closed"})
	if n := strings.Count(r.screen(), "MCP server late failed"); n != 2 {
		t.Errorf("a failure after a reconnect shows %d times in all; want 2", n)
	}
}
