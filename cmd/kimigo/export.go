package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/session"
)

// exportArgs is the command line of `kimigo export`.
type exportArgs struct {
	id        string
	out       string
	yes       bool
	globalLog bool
}

func parseExportArgs(args []string) (exportArgs, bool, error) {
	e := exportArgs{globalLog: true}
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, value, hasValue := strings.Cut(a, "=")
		switch {
		case a == "-h" || a == "--help":
			return e, true, nil
		case a == "-y" || a == "--yes":
			e.yes = true
		case a == "--no-include-global-log":
			e.globalLog = false
		case name == "-o" || name == "--output":
			if !hasValue {
				if i+1 >= len(args) {
					return e, false, usagef("option '-o, --output <path>' argument missing")
				}
				i++
				value = args[i]
			}
			e.out = value
		case strings.HasPrefix(a, "-") && a != "-":
			return e, false, usagef("unknown option '%s'", a)
		case e.id == "":
			e.id = strings.TrimSpace(a)
		default:
			return e, false, usagef("too many arguments for 'export'. Expected 0 to 1 arguments but got more.")
		}
	}
	return e, false, nil
}

// runExport is `kimigo export [sessionId] [-o path] [-y]
// [--no-include-global-log]` (spec 06 §4.4): it writes a session's debug
// ZIP and prints its absolute path. It changes no session file.
func runExport(args []string, env config.Env, p proc) int {
	e, help, err := parseExportArgs(args)
	if err != nil {
		return printUsageError(p.stderr, err)
	}
	if help {
		fmt.Fprint(p.stdout, "Usage: kimigo export [sessionId] [-o path] [-y] [--no-include-global-log]\n\n"+
			"Write a session (default: the latest of this directory) to a ZIP for a bug report.\n")
		return exitOK
	}
	cwd, err := p.getwd()
	if err != nil {
		return fail(p, fmt.Errorf("find the working directory: %w", err))
	}
	userHome, _ := p.userHome()
	home, err := config.HomeDir(env, userHome)
	if err != nil {
		return fail(p, err)
	}
	home = absolute(cwd, home)
	store := session.NewStore(session.StoreOptions{Root: home})
	var sum session.Summary
	if e.id == "" {
		var ok bool
		if sum, ok, err = store.Latest(cwd); err != nil {
			return fail(p, err)
		}
		if !ok {
			fmt.Fprintln(p.stderr, "No previous session found to export.")
			return exitFailure
		}
		if !e.yes && !confirm(p, fmt.Sprintf("Export previous session %q? [Y/n] ", sum.Label())) {
			fmt.Fprintln(p.stdout, "Export cancelled.")
			return exitOK
		}
	} else if sum, err = store.Find(e.id, cwd); err != nil {
		return fail(p, err)
	}
	out := filepath.Join(cwd, session.DefaultExportName(sum.ID, time.Now()))
	if e.out != "" {
		out = absolute(cwd, e.out)
		if fi, err := os.Stat(out); err == nil && fi.IsDir() { // -o <dir>: the default name in it
			out = filepath.Join(out, session.DefaultExportName(sum.ID, time.Now()))
		}
	}
	opts := session.ExportOptions{Version: versionString()}
	if e.globalLog {
		opts.GlobalLog = filepath.Join(home, "logs", "kimigo.log")
	}
	if err := store.ExportFile(context.Background(), sum, out, opts); err != nil {
		return fail(p, err)
	}
	fmt.Fprintln(p.stdout, out)
	return exitOK
}

// confirm asks question on stderr and reads the answer from stdin: blank,
// y or yes (any case) agree. The question is shown only when stdin is a
// terminal: a script's piped answer, or none (agree), needs no prompt.
func confirm(p proc, question string) bool {
	if p.stdinTTY {
		fmt.Fprint(p.stderr, question)
	}
	if p.stdin == nil {
		return true
	}
	line, _ := bufio.NewReader(p.stdin).ReadString('\n') // EOF: what was typed so far
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "", "y", "yes":
		return true
	}
	return false
}

// fail writes a subcommand's failure to stderr and returns exit code 1.
func fail(p proc, err error) int {
	fmt.Fprintln(p.stderr, err)
	return exitFailure
}
