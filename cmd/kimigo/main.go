// Command kimigo is a terminal coding agent.
package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
)

// version is set with -ldflags "-X main.version=…" in release builds.
var version = ""

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run parses args and returns the exit code. It does no config, disk or
// network work for --version and --help.
func run(args []string, stdout, stderr io.Writer) int {
	for _, a := range args {
		switch a {
		case "-V", "--version":
			fmt.Fprintf(stdout, "kimigo %s\n", versionString())
			return 0
		case "-h", "--help":
			fmt.Fprint(stdout, usage)
			return 0
		case "-p", "--prompt":
			fmt.Fprintln(stderr, "kimigo: print mode (-p) is not available in this build yet; see kimigo --help")
			return 2
		}
	}
	if len(args) == 0 {
		fmt.Fprintln(stderr, "kimigo: interactive mode is not available yet; see kimigo --help")
		return 2
	}
	fmt.Fprintf(stderr, "kimigo: unknown option %q; see kimigo --help\n", args[0])
	return 2
}

func versionString() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

const usage = `kimigo — a terminal coding agent

Usage:
  kimigo [options]

Options:
  -h, --help      show this help and exit
  -V, --version   print the version and exit
`
