package session

// Trusted reports whether the workspace at workDir is trusted (ERRATA
// 38): only then do its project files widen what kimigo may do (the MCP
// servers of .mcp.json and .kimi-code/mcp.json; hooks of a project file
// once there are any). Trust will live under KIMIGO_HOME, never in the
// repository; until that store exists no workspace is trusted, and this
// one function is what it replaces.
func Trusted(workDir string) bool {
	_ = workDir
	return false
}
