package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/kimigo/kimigo/config"
	_ "github.com/kimigo/kimigo/internal/hugeheap" // huge pages for the heap of a start (see its doc)
	"github.com/kimigo/kimigo/sandbox"
)

func main() {
	sandbox.MaybeRunTrampoline() // a sandboxed command's start runs here, before anything else
	os.Exit(run(os.Args[1:], processProc()))
}

// proc is what the command takes from its process besides the arguments:
// the standard streams and how to read the environment, the working
// directory and the user's home. Only runs that need them read them, so
// --version and --help touch nothing.
type proc struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// stdoutWidth and stderrWidth are terminal widths, 0 for a stream
	// that is not a terminal; stderrColour allows the error colour.
	stdoutWidth, stderrWidth int
	stderrColour             bool
	stderrTTY                bool
	stdinTTY                 bool
	environ                  func() []string
	getwd                    func() (string, error)
	userHome                 func() (string, error)
}

func processProc() proc {
	return proc{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr,
		environ: os.Environ, getwd: os.Getwd, userHome: os.UserHomeDir}
}

// withTerminal fills in what the streams' terminals say; colour also
// needs NO_COLOR unset (spec 06 §1.8).
func (p proc) withTerminal(env config.Env) proc {
	if f, ok := p.stdin.(*os.File); ok {
		_, p.stdinTTY = terminal(f)
	}
	if f, ok := p.stdout.(*os.File); ok {
		p.stdoutWidth, _ = terminal(f)
	}
	if f, ok := p.stderr.(*os.File); ok {
		var tty bool
		p.stderrWidth, tty = terminal(f)
		_, noColour := env["NO_COLOR"]
		p.stderrColour = tty && !noColour
		p.stderrTTY = tty
	}
	return p
}

// run is the command: flags, then a subcommand, or validation and print
// mode (spec 06 §1). It returns the exit code.
func run(args []string, p proc) int {
	o, err := parseArgs(args)
	if err != nil {
		return printUsageError(p.stderr, err)
	}
	switch {
	case o.help:
		fmt.Fprint(p.stdout, usage)
		return exitOK
	case o.version:
		fmt.Fprintf(p.stdout, "kimigo %s\n", versionString())
		return exitOK
	}
	env := config.EnvFromList(p.environ())
	p = p.withTerminal(env)
	switch o.command {
	case "":
	case "doctor":
		return runDoctor(o.commandArgs, env, p)
	case "export":
		return runExport(o.commandArgs, env, p)
	case "sessions":
		return runSessions(o.commandArgs, env, p)
	case "acp":
		return runACP(o.commandArgs, env, p)
	case "trust":
		return runTrust(o.commandArgs, env, p)
	case "mcp", "hooks", "login", "logout":
		return runExtension(o.command, o.commandArgs, env, p)
	default:
		return printUsageError(p.stderr, usagef("'kimigo %s' is not available yet", o.command))
	}
	if err := validate(o, env); err != nil {
		return printUsageError(p.stderr, err)
	}
	if !o.promptMode() {
		return runInteractive(o, env, p)
	}
	if err := checkSkillsDirs(o, p); err != nil {
		return printUsageError(p.stderr, err)
	}
	prompt, err := promptInput(o, p.stdin, time.After(stdinWait))
	if err == nil && strings.TrimSpace(prompt) == "" {
		err = usagef("Prompt cannot be empty.")
	}
	if err != nil {
		return printUsageError(p.stderr, err)
	}
	return runPrint(o, prompt, env, p)
}
