package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/mcp"
	"github.com/kimigo/kimigo/mcp/mcptest"
)

func TestMain(m *testing.M) {
	mcptest.Serve() // the re-executed test binary is a test server
	os.Exit(m.Run())
}

// start runs a manager over servers and waits for their first attempts.
func start(t *testing.T, o mcp.Options, servers ...mcp.Server) *mcp.Manager {
	t.Helper()
	m := mcp.New(o)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := m.Close(ctx); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	m.Start(servers)
	if err := m.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	return m
}

// tool finds a tool by its qualified name.
func tool(t *testing.T, m *mcp.Manager, name string) loop.ExecutableTool {
	t.Helper()
	for _, tl := range m.Tools() {
		if tl.Definition().Name == name {
			return tl
		}
	}
	t.Fatalf("no tool %s among %v", name, toolNames(m))
	return nil
}

func toolNames(m *mcp.Manager) []string {
	var out []string
	for _, tl := range m.Tools() {
		out = append(out, tl.Definition().Name)
	}
	return out
}

// call runs a tool the way the loop does; a returned error is what the
// loop wraps as `Tool "<name>" failed: …`.
func call(ctx context.Context, t *testing.T, tl loop.ExecutableTool, args string) (loop.ToolResult, error) {
	t.Helper()
	ex, res, err := tl.ResolveExecution(json.RawMessage(args))
	if err != nil || res != nil {
		t.Fatalf("ResolveExecution = %v, %v", res, err)
	}
	return ex.Execute(ctx, loop.ExecCtx{ToolCallID: "c1", OnUpdate: func(loop.ProgressUpdate) {},
		OnForegroundTaskStart: func(string) {}})
}

func info(t *testing.T, m *mcp.Manager, name string) mcp.ServerInfo {
	t.Helper()
	in, ok := m.Server(name)
	if !ok {
		t.Fatalf("no server %s", name)
	}
	return in
}

// waitFor polls cond until it holds; the test's deadline bounds it.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-t.Context().Done():
			t.Fatalf("gave up waiting for %s", what)
		case <-tick.C:
		}
	}
}

func contains(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
