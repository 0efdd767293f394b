package osenv

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// LocalOptions configure NewLocal. The zero value describes this process:
// its working directory, home and environment at the time of the call.
type LocalOptions struct {
	// Cwd is the working directory; "" means the process's.
	Cwd string
	// Home is the home directory; "" means the user's.
	Home string
	// Environ is the base environment as KEY=VALUE pairs; nil means the
	// process's. It is copied.
	Environ []string
}

// Local is the Env of the machine kimigo runs on. It snapshots the
// environment when built and never reads or changes process-global state
// afterwards (the working directory included).
type Local struct {
	LocalFS
	home  string
	env   map[string]string // never mutated after construction
	shell Shell
}

var _ Env = (*Local)(nil)

// NewLocal returns the local environment.
func NewLocal(opts LocalOptions) *Local {
	cwd := opts.Cwd
	if cwd == "" {
		if wd, err := os.Getwd(); err == nil {
			cwd = wd
		} else {
			cwd = "/"
		}
	}
	if abs, err := filepath.Abs(cwd); err == nil {
		cwd = abs
	}
	home := opts.Home
	if home == "" {
		home, _ = os.UserHomeDir() // unknown home: "~" paths then fail to resolve
	}
	environ := opts.Environ
	if environ == nil {
		environ = os.Environ()
	}
	return &Local{LocalFS: LocalFS{Dir: cwd}, home: home, env: parseEnviron(environ), shell: findShell()}
}

func parseEnviron(environ []string) map[string]string {
	m := make(map[string]string, len(environ))
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if ok && k != "" {
			m[k] = v
		}
	}
	return m
}

// shellCandidates are tried in order; the first that exists runs Bash
// commands (spec 05 §10).
var shellCandidates = []Shell{
	{Name: "bash", Path: "/bin/bash"},
	{Name: "bash", Path: "/usr/bin/bash"},
	{Name: "bash", Path: "/usr/local/bin/bash"},
}

func findShell() Shell {
	for _, s := range shellCandidates {
		if fi, err := os.Stat(s.Path); err == nil && !fi.IsDir() {
			return s
		}
	}
	return Shell{Name: "sh", Path: "/bin/sh"}
}

// PathClass is posix.
func (l *Local) PathClass() PathClass { return PathPOSIX }

// Normpath cleans p lexically.
func (l *Local) Normpath(p string) string { return Normpath(p) }

// Home is the home directory.
func (l *Local) Home() string { return l.home }

// Cwd is the working directory.
func (l *Local) Cwd() string { return l.Dir }

// WithCwd returns a copy working in dir.
func (l *Local) WithCwd(dir string) Env {
	c := *l
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(l.Dir, dir)
	}
	c.LocalFS = LocalFS{Dir: filepath.Clean(dir)}
	return &c
}

// WithEnv returns a copy with overlay applied.
func (l *Local) WithEnv(overlay map[string]string) Env {
	c := *l
	c.env = overlayEnv(l.env, overlay)
	return &c
}

func overlayEnv(base, overlay map[string]string) map[string]string {
	m := maps.Clone(base)
	for k, v := range overlay {
		if v == "" {
			delete(m, k)
		} else {
			m[k] = v
		}
	}
	return m
}

// Getenv reads a variable.
func (l *Local) Getenv(key string) string { return l.env[key] }

// Environ lists the environment, sorted.
func (l *Local) Environ() []string { return environList(l.env) }

func environList(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, k+"="+m[k])
	}
	return out
}

// TempDir is TMPDIR from the environment, else /tmp.
func (l *Local) TempDir() string {
	if d := l.env["TMPDIR"]; d != "" {
		return d
	}
	return "/tmp"
}

// Shell is the first bash found, else /bin/sh.
func (l *Local) Shell() Shell { return l.shell }

// Exec starts cmd in a new process group.
func (l *Local) Exec(cmd Cmd) (Process, error) {
	dir := cmd.Dir
	if dir == "" {
		dir = l.Dir
	} else if !filepath.IsAbs(dir) {
		dir = filepath.Join(l.Dir, dir)
	}
	return startProcess(cmd, dir, append(l.Environ(), cmd.Env...))
}
