package acp_test

import (
	"os"
	"testing"

	"github.com/kimigo/kimigo/mcp/mcptest"
)

// TestMain lets the test binary serve as the MCP test server
// (mcptest.Stdio re-executes it).
func TestMain(m *testing.M) {
	mcptest.Serve()
	os.Exit(m.Run())
}
