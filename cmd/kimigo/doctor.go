package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/session"
)

// runDoctor is `kimigo doctor [config|tui|sessions] [path]` (spec 06
// §1.9.1): it checks the configuration files strictly and never writes
// them; then it checks the session index and repairs it (checkSessions),
// the one thing doctor writes, and reports the lines of the session logs
// a resume would set aside (checkSessionLogs).
func runDoctor(args []string, env config.Env, p proc) int {
	var which, path string
	for _, a := range args {
		switch {
		case a == "-h" || a == "--help":
			fmt.Fprint(p.stdout, "Usage: kimigo doctor [config|tui|local|sessions] [path]\n\nCheck config.toml, tui.toml "+
				"and the project's .kimi-code/local.toml, and check and repair the session index; with a kind, "+
				"check only that (at path, when given).\n")
			return exitOK
		case strings.HasPrefix(a, "-"):
			return printUsageError(p.stderr, usagef("unknown option '%s'", a))
		case which == "" && (a == "config" || a == "tui" || a == "local" || a == "sessions"):
			which = a
		case which == "":
			return printUsageError(p.stderr, usagef("unknown check '%s' for 'doctor'. Expected config, tui, local or sessions.", a))
		case path == "":
			path = a
		default:
			return printUsageError(p.stderr, usagef("too many arguments for 'doctor'. Expected at most a kind and a path, got %q after %q.", a, path))
		}
	}
	cwd, err := p.getwd()
	if err != nil {
		return report(p.stderr, fmt.Errorf("find the working directory: %w", err), "", p.stderrColour)
	}
	userHome, _ := p.userHome()
	home, err := config.HomeDir(env, userHome)
	if err != nil {
		return report(p.stderr, &startupError{op: "run doctor", err: err}, "", p.stderrColour)
	}
	home = absolute(cwd, home)
	var results []doctorResult
	if which == "" || which == "config" {
		target, explicit := config.ConfigFile(home), path != ""
		if explicit {
			target = absolute(cwd, path)
		}
		c := config.Check(osenv.LocalFS{}, target, explicit)
		r := doctorResult{label: "config.toml", path: c.Path, status: string(c.Status), messages: c.Messages}
		if c.Status == config.CheckOK {
			if cfg, _, err := config.Load(config.LoadOptions{Path: target, Env: env}); err == nil {
				r = withRuleProblems(r, cfg.Permission)
			}
		}
		results = append(results, r)
	}
	if which == "" || which == "tui" {
		target, explicit := absolute(home, "tui.toml"), path != ""
		if explicit {
			target = absolute(cwd, path)
		}
		results = append(results, checkTUI(target, explicit))
	}
	if which == "" || which == "local" {
		target, explicit := filepath.Join(config.ProjectRoot(osenv.LocalFS{}, cwd), filepath.FromSlash(config.LocalFileName)), path != ""
		if explicit {
			target = absolute(cwd, path)
		}
		results = append(results, checkLocal(target, explicit, userHome))
	}
	if which == "" || which == "sessions" {
		root := home
		if which == "sessions" && path != "" {
			root = absolute(cwd, path)
		}
		results = append(results, checkSessions(root))
	}
	if which == "" {
		results = append(results, checkTrust(home, cwd), checkSandbox())
	}
	return printDoctor(p.stdout, p.stderr, results)
}

// doctorResult is one checked file.
type doctorResult struct {
	label, path, status string
	messages            []string
}

// checkTUI checks tui.toml as far as kimigo reads it yet: it must be TOML.
func checkTUI(path string, explicit bool) doctorResult {
	r := doctorResult{label: "tui.toml", path: path, status: string(config.CheckOK)}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && explicit:
		r.status, r.messages = string(config.CheckError), []string{"File does not exist."}
	case errors.Is(err, fs.ErrNotExist):
		r.status, r.messages = string(config.CheckSkip), []string{"File does not exist; built-in defaults will apply."}
	case err != nil:
		r.status, r.messages = string(config.CheckError), []string{fmt.Sprintf("Failed to read %s: %v", path, err)}
	default:
		var v map[string]any
		if _, err := toml.Decode(string(data), &v); err != nil {
			r.status, r.messages = string(config.CheckError), []string{fmt.Sprintf("Invalid TOML in %s: %v", path, err)}
		}
	}
	return r
}

// checkLocal checks a project's .kimi-code/local.toml as a session reads
// it: the file must load, and what it drops (rules, unknown keys) is
// listed.
func checkLocal(path string, explicit bool, userHome string) doctorResult {
	r := doctorResult{label: "local.toml", path: path, status: string(config.CheckOK)}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		r.status, r.messages = string(config.CheckSkip), []string{"File does not exist."}
		if explicit {
			r.status = string(config.CheckError)
		}
		return r
	}
	// local.toml lives in <project>/.kimi-code/; the loader takes the
	// project root.
	local, warnings, err := config.LoadLocal(config.LocalOptions{ProjectRoot: filepath.Dir(filepath.Dir(path)), UserHome: userHome})
	if filepath.Base(filepath.Dir(path)) != ".kimi-code" || filepath.Base(path) != "local.toml" {
		err = fmt.Errorf("a local settings file must be .kimi-code/local.toml, got %s", path)
	}
	if err != nil {
		r.status, r.messages = string(config.CheckError), []string{err.Error()}
		return r
	}
	for _, w := range warnings {
		r.messages = append(r.messages, w.Message)
	}
	return withRuleProblems(r, local.Rules)
}

// withRuleProblems marks r an ERROR listing the rules a session would drop
// (a tool name nobody knows, a rule that can never match), each with its
// file and line.
func withRuleProblems(r doctorResult, rules []config.PermissionRule) doctorResult {
	problems := session.RuleProblems(rules)
	if len(problems) == 0 {
		return r
	}
	r.status = string(config.CheckError)
	r.messages = append(r.messages, "These permission rules are dropped when a session loads them:")
	for _, p := range problems {
		r.messages = append(r.messages, "  "+p)
	}
	return r
}

// checkSessions checks the session index under the data root and repairs
// it: corrupt lines move to the side file next to it (their bytes kept),
// and entries it lacks are rebuilt from the session directories and their
// records. A repaired index is OK, with what was done; an index that could
// not be repaired is an ERROR.
func checkSessions(root string) doctorResult {
	store := session.NewStore(session.StoreOptions{Root: root})
	r := doctorResult{label: "sessions", path: filepath.Join(root, session.IndexFileName), status: string(config.CheckOK)}
	if _, err := os.Stat(filepath.Join(root, session.SessionsDirName)); errors.Is(err, fs.ErrNotExist) {
		r.status, r.messages = string(config.CheckSkip), []string{"No sessions yet."}
		return r
	}
	rep, err := store.RepairIndex()
	if err != nil {
		r.status, r.messages = string(config.CheckError), []string{fmt.Sprintf("Could not repair the session index: %v", err)}
		return r
	}
	for _, n := range rep.Corrupt {
		r.messages = append(r.messages, fmt.Sprintf("Line %d was corrupt; moved it to %s.", n, rep.SideFile))
	}
	if n := rep.Reindex.Added; n > 0 {
		r.messages = append(r.messages, fmt.Sprintf("Rebuilt %d missing %s from the session directories.", n, plural(n, "entry", "entries")))
	}
	if n := rep.Reindex.Repaired; n > 0 {
		r.messages = append(r.messages, fmt.Sprintf("Repaired %d stale %s.", n, plural(n, "entry", "entries")))
	}
	r.messages = append(r.messages, store.CheckLogs(context.Background())...)
	return r
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// printDoctor writes the report: to stdout when every file passed, else to
// stderr with the number of failing files; the exit code is 1 then.
func printDoctor(stdout, stderr io.Writer, results []doctorResult) int {
	var b strings.Builder
	issues := 0
	for _, r := range results {
		if r.status == string(config.CheckError) {
			issues++
		}
		fmt.Fprintf(&b, "%s %-12s %s\n", r.status, r.label, r.path)
		for _, m := range r.messages {
			for line := range strings.SplitSeq(m, "\n") {
				fmt.Fprintf(&b, "  %s\n", line)
			}
		}
	}
	if issues == 0 {
		fmt.Fprintf(stdout, "kimigo doctor\n\n%s\nAll checked config files are valid.\n", b.String())
		return exitOK
	}
	noun := "issues"
	if issues == 1 {
		noun = "issue"
	}
	fmt.Fprintf(stderr, "kimigo doctor found %d %s.\n\n%s", issues, noun, b.String())
	return exitFailure
}
