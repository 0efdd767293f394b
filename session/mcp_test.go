package session_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/mcp"
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
