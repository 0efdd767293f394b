package main

import (
	"fmt"
	"strings"

	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/session"
)

// runTrust is `kimigo trust [dir]`: it trusts the project of dir (the
// working directory by default), so that its .kimi-code/local.toml may
// add directories outside it (ERRATA 38). The store lives under the data
// root, never in the repository.
func runTrust(args []string, env config.Env, p proc) int {
	var dir string
	for _, a := range args {
		switch {
		case a == "-h" || a == "--help":
			fmt.Fprint(p.stdout, "Usage: kimigo trust [dir]\n\nTrust the project of dir (default: the working directory): "+
				"its .kimi-code/local.toml may then add directories outside it.\n")
			return exitOK
		case strings.HasPrefix(a, "-"):
			return printUsageError(p.stderr, usagef("unknown option '%s'", a))
		case dir == "":
			dir = a
		default:
			return printUsageError(p.stderr, usagef("too many arguments for 'trust'. Expected 0 or 1 argument but got %d.", len(args)))
		}
	}
	cwd, err := p.getwd()
	if err != nil {
		return report(p.stderr, fmt.Errorf("find the working directory: %w", err), "", p.stderrColour)
	}
	userHome, _ := p.userHome()
	home, err := config.HomeDir(env, userHome)
	if err != nil {
		return report(p.stderr, &startupError{op: "trust", err: err}, "", p.stderrColour)
	}
	home = absolute(cwd, home)
	if dir == "" {
		dir = cwd
	}
	fsys := osenv.LocalFS{}
	if fi, err := fsys.Stat(absolute(cwd, dir)); err != nil || !fi.IsDir() {
		return printUsageError(p.stderr, usagef("trust %s: not an existing directory", dir))
	}
	root := config.ProjectRoot(fsys, absolute(cwd, dir))
	if err := session.Trust(fsys, home, root); err != nil {
		return report(p.stderr, &startupError{op: "trust", err: err}, "", p.stderrColour)
	}
	fmt.Fprintf(p.stdout, "Trusted %s.\n", root)
	return exitOK
}
