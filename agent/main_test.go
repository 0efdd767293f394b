package agent_test

import (
	"os"
	"testing"

	"github.com/kimigo/kimigo/mcp/mcptest"
)

func TestMain(m *testing.M) {
	mcptest.Serve() // the MCP scenarios re-execute this binary as a test server
	os.Exit(m.Run())
}
