package mcptest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// EnvNpmDir names the directory .ci/run installs the npm MCP servers into
// (it holds node_modules). Without it tests look in the default cache
// directory.
const EnvNpmDir = "KIMIGO_MCP_NPM_DIR"

// The npm servers the tests run, at the versions .ci/run installs.
const (
	EverythingPackage = "@modelcontextprotocol/server-everything"
	FilesystemPackage = "@modelcontextprotocol/server-filesystem"
	NpmVersion        = "2026.8.31"
)

// NpmServer returns the node binary and the entry script of an npm MCP
// server package. It skips the test when Node.js is not installed; when
// the packages are missing it skips too, unless EnvNpmDir is set (CI
// installed them, so their absence is a failure).
func NpmServer(t testing.TB, pkg string) (node, script string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("Node.js is not installed; .ci/run installs it to run the real npm MCP servers")
	}
	dir := os.Getenv(EnvNpmDir)
	explicit := dir != ""
	if !explicit {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache", "kimigo", "npm-mcp")
	}
	script = filepath.Join(dir, "node_modules", filepath.FromSlash(pkg), "dist", "index.js")
	if _, err := os.Stat(script); err != nil {
		if explicit {
			t.Fatalf("%s=%s but %s is not installed there: %v", EnvNpmDir, dir, pkg, err)
		}
		t.Skipf("%s@%s is not installed in %s; run .ci/run (or npm install --prefix %s %s@%s)",
			pkg, NpmVersion, dir, dir, pkg, NpmVersion)
	}
	return node, script
}
