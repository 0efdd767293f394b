package session_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/mcp"
	"github.com/kimigo/kimigo/mcp/mcptest"
	"github.com/kimigo/kimigo/session"
)

func writeMCP(t *testing.T, path string, servers map[string]any) {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"mcpServers": servers})
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// The session loads the MCP layers: the user's server starts (and fails
// here, naming why) before the first request; the project's is listed
// disabled because the workspace is not trusted (ERRATA 38); a broken
// file is a warning naming it, and the session still opens.
func TestSessionLoadsMCPLayers(t *testing.T) {
	r := newRig(t, "hi")
	writeMCP(t, filepath.Join(r.root, "mcp.json"), map[string]any{"broken": map[string]any{"command": filepath.Join(r.root, "nope")}})
	writeMCP(t, filepath.Join(r.workDir, ".mcp.json"), map[string]any{"project": map[string]any{"command": "true"}})
	s := r.ran(t, "hello")
	got := map[string]mcp.ServerInfo{}
	for _, in := range s.MCPServers() {
		got[in.Name] = in
	}
	if b := got["broken"]; b.Status != mcp.StatusFailed || !strings.Contains(b.Error, "nope") {
		t.Errorf("broken = %+v", b)
	}
	if p := got["project"]; p.Status != mcp.StatusDisabled || !strings.Contains(p.Error, "not trusted") {
		t.Errorf("project = %+v", p)
	}

	if err := os.WriteFile(filepath.Join(r.workDir, ".mcp.json"), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.srv.Add(llmtest.Text("again"))
	r.notices = nil
	r.ran(t, "hello")
	var warned bool
	for _, n := range r.notices {
		warned = warned || (n.Warning && strings.Contains(n.Text, ".mcp.json"))
	}
	if !warned {
		t.Errorf("no warning naming the broken .mcp.json: %+v", r.notices)
	}
}

// ReconnectMCP reads the layers again, so a fixed mcp.json applies: the
// failed server connects with its tools. A server no longer in the files,
// or never configured, is an error naming it.
func TestReconnectMCP(t *testing.T) {
	r := newRig(t)
	path := filepath.Join(r.root, "mcp.json")
	writeMCP(t, path, map[string]any{"srv": map[string]any{"command": filepath.Join(r.root, "nope")}})
	s, err := session.Open(t.Context(), r.opts(""))
	if err != nil {
		t.Fatal(err)
	}
	defer closeSession(t, s)
	if err := s.WaitMCP(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := s.ReconnectMCP(t.Context(), "srv"); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("reconnect of a still broken server: %v", err)
	}
	good := mcptest.Stdio(t, "srv", mcptest.Spec{Tools: []mcptest.Tool{{Name: "echo", Echo: true}}})
	writeMCP(t, path, map[string]any{"srv": map[string]any{"command": good.Command, "args": good.Args, "env": good.Env}})
	if err := s.ReconnectMCP(t.Context(), "srv"); err != nil {
		t.Fatalf("reconnect after the fix: %v", err)
	}
	if in := s.MCPServers(); len(in) != 1 || in[0].Status != mcp.StatusConnected || in[0].ToolCount != 1 {
		t.Errorf("after reconnect: %+v", in)
	}
	if err := s.ReconnectMCP(t.Context(), "other"); err == nil || err.Error() != "Unknown MCP server: other" {
		t.Errorf("reconnect of an unknown server: %v", err)
	}
	writeMCP(t, path, map[string]any{})
	if err := s.ReconnectMCP(t.Context(), "srv"); err == nil || !strings.Contains(err.Error(), `"srv" is no longer configured`) {
		t.Errorf("reconnect of a removed server: %v", err)
	}
}
