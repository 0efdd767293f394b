package main

import "github.com/kimigo/kimigo/config"

// runExtension dispatches the subcommands of the extensibility issue:
// mcp (mcpcmd.go), hooks (hookscmd.go), login and logout (login.go).
func runExtension(command string, args []string, env config.Env, p proc) int {
	switch command {
	case "mcp":
		return runMCP(args, env, p)
	case "hooks":
		return runHooks(args, env, p)
	case "login":
		return runLogin(args, env, p)
	case "logout":
		return runLogout(args, env, p)
	}
	return printUsageError(p.stderr, usagef("'kimigo %s' is not available", command))
}
