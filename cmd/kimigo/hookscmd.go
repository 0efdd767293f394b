package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/hooks"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/session"
)

// hooksUsage is `kimigo hooks --help`.
const hooksUsage = `Usage: kimigo hooks [list]
       kimigo hooks test <event> [--matcher <value>]

list (the default) shows the [[hooks]] of config.toml by event. test runs the
hooks of one event with a sample input, as kimigo would, and shows what each
one did and decided. Events: %s.
`

// runHooks is `kimigo hooks [list]` and `kimigo hooks test <event>`
// (issue 21).
func runHooks(args []string, env config.Env, p proc) int {
	var names []string
	for _, e := range hooks.Events() {
		names = append(names, string(e.Event))
	}
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
		fmt.Fprintf(p.stdout, hooksUsage, strings.Join(names, ", "))
		return exitOK
	}
	wd, err := p.getwd()
	if err != nil {
		return fail(p, fmt.Errorf("find the working directory: %w", err))
	}
	userHome, _ := p.userHome()
	home, err := config.HomeDir(env, userHome)
	if err != nil {
		return fail(p, err)
	}
	home = absolute(wd, home)
	cfg, warnings, err := config.Load(config.LoadOptions{Home: home, Env: env})
	for _, w := range warnings {
		fmt.Fprintf(p.stderr, "Warning: %s\n", w.Message)
	}
	if err != nil {
		return fail(p, err)
	}
	hs := make([]hooks.Hook, 0, len(cfg.Hooks))
	for _, h := range cfg.Hooks {
		hs = append(hs, hooks.Hook{Event: hooks.Event(h.Event), Matcher: h.Matcher, Command: h.Command,
			Timeout: time.Duration(h.Timeout) * time.Second, Source: hooks.SourceUser})
	}
	switch {
	case len(args) == 0 || (args[0] == "list" && len(args) == 1):
		listHooks(p, cfg.Path, hs)
		return exitOK
	case args[0] == "test":
		return testHooks(p, args[1:], names, home, wd, hs)
	}
	return printUsageError(p.stderr, usagef("unknown hooks command '%s'; expected list or test", strings.Join(args, " ")))
}

// listHooks shows the hooks by event, in the order of the v1 events.
func listHooks(p proc, path string, hs []hooks.Hook) {
	if len(hs) == 0 {
		fmt.Fprintf(p.stdout, "No hooks configured in %s.\n", path)
		return
	}
	for _, info := range hooks.Events() {
		var of []hooks.Hook
		for _, h := range hs {
			if h.Event == info.Event {
				of = append(of, h)
			}
		}
		if len(of) == 0 {
			continue
		}
		fmt.Fprintf(p.stdout, "%s (%s; matcher: %s)\n", info.Event, info.When, orAll(info.Matcher))
		for _, h := range of {
			t := h.Timeout
			if t <= 0 {
				t = hooks.DefaultTimeout
			}
			fmt.Fprintf(p.stdout, "  [%s] timeout %s: %s\n", orAll(h.Matcher), t, h.Command)
		}
	}
}

func orAll(m string) string {
	if m == "" {
		return "*"
	}
	return m
}

// testHooks runs one event's hooks with its sample input.
func testHooks(p proc, args, names []string, home, wd string, hs []hooks.Hook) int {
	var event, matcher string
	var matcherSet bool
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--matcher":
			if i+1 >= len(args) {
				return printUsageError(p.stderr, usagef("option '--matcher' needs a value"))
			}
			i++
			matcher, matcherSet = args[i], true
		case strings.HasPrefix(a, "-"):
			return printUsageError(p.stderr, usagef("unknown option '%s' for 'kimigo hooks test'", a))
		case event == "":
			event = a
		default:
			return printUsageError(p.stderr, usagef("'kimigo hooks test' takes one event"))
		}
	}
	sampleMatcher, input, ok := hooks.SampleInput(hooks.Event(event))
	if !ok {
		return printUsageError(p.stderr, usagef("unknown hook event '%s'; expected one of %s", event, strings.Join(names, ", ")))
	}
	if !matcherSet {
		matcher = sampleMatcher
	}
	e := hooks.New(hooks.Options{Hooks: hs, SessionID: "session_hooks_test", Cwd: wd, Trusted: session.Trusted(osenv.LocalFS{}, home, wd),
		Env: osenv.NewLocal(osenv.LocalOptions{Cwd: wd})})
	defer e.Close(context.Background())
	results := e.Trigger(context.Background(), hooks.Event(event), matcher, input)
	if len(results) == 0 {
		fmt.Fprintf(p.stdout, "No %s hook matches %q.\n", event, matcher)
		return exitOK
	}
	for _, r := range results {
		fmt.Fprintf(p.stdout, "%s [%s]: %s\n", event, orAll(r.Hook.Matcher), r.Hook.Command)
		fmt.Fprintf(p.stdout, "  exit %d in %s: %s", r.ExitCode, r.Duration.Round(time.Millisecond), r.Action)
		switch {
		case r.TimedOut:
			fmt.Fprint(p.stdout, " (timed out)")
		case r.Err != nil:
			fmt.Fprintf(p.stdout, " (did not run: %v)", r.Err)
		}
		fmt.Fprintln(p.stdout)
		if r.Reason != "" {
			fmt.Fprintf(p.stdout, "  reason: %s\n", r.Reason)
		}
		if s := strings.TrimSpace(r.Stdout); s != "" {
			fmt.Fprintf(p.stdout, "  stdout: %s\n", s)
		}
	}
	return exitOK
}
