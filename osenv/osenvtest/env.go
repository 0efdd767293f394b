package osenvtest

import (
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/kimigo/kimigo/osenv"
)

// Options configure New. The zero value is a workspace /ws, a home
// /home/user, an empty environment and a runner whose commands succeed
// silently.
type Options struct {
	// Cwd is the working directory, created; default /ws.
	Cwd string
	// Home is the home directory, created; default /home/user.
	Home string
	// Environ is the environment as KEY=VALUE pairs.
	Environ []string
	// Files are written before New returns: path → content.
	Files map[string]string
	// Run decides what each started command does; nil: exit 0, no output.
	Run func(cmd osenv.Cmd) Result
}

// Env is an in-memory osenv.Env: a MemFS plus an environment and a
// recording process runner. WithCwd and WithEnv copies share the files and
// the runner. It is safe for concurrent use.
type Env struct {
	*MemFS
	home   string
	env    map[string]string // never mutated after construction
	runner *Runner
}

var _ osenv.Env = (*Env)(nil)

// New returns an in-memory environment.
func New(opts Options) *Env {
	cwd, home := opts.Cwd, opts.Home
	if cwd == "" {
		cwd = "/ws"
	}
	if home == "" {
		home = "/home/user"
	}
	fs := NewMemFS(cwd)
	if err := fs.MkdirAll(home, 0o755); err != nil {
		panic(err) // cannot happen on a fresh tree
	}
	for _, name := range slices.Sorted(maps.Keys(opts.Files)) {
		if err := fs.WriteFile(name, []byte(opts.Files[name]), 0o644); err != nil {
			panic(err) // a fixture that names a file below a file
		}
	}
	env := map[string]string{}
	for _, kv := range opts.Environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	return &Env{MemFS: fs, home: path.Clean(home), env: env, runner: &Runner{run: opts.Run}}
}

// Runner returns the recording process runner.
func (e *Env) Runner() *Runner { return e.runner }

// PathClass is posix.
func (e *Env) PathClass() osenv.PathClass { return osenv.PathPOSIX }

// Normpath cleans p lexically.
func (e *Env) Normpath(p string) string { return osenv.Normpath(p) }

// Home is the home directory.
func (e *Env) Home() string { return e.home }

// Cwd is the working directory.
func (e *Env) Cwd() string { return e.MemFS.Dir() }

// WithCwd returns a copy working in dir.
func (e *Env) WithCwd(dir string) osenv.Env {
	c := *e
	c.MemFS = e.MemFS.WithDir(dir)
	return &c
}

// WithEnv returns a copy with overlay applied; "" unsets.
func (e *Env) WithEnv(overlay map[string]string) osenv.Env {
	c := *e
	c.env = maps.Clone(e.env)
	for k, v := range overlay {
		if v == "" {
			delete(c.env, k)
		} else {
			c.env[k] = v
		}
	}
	return &c
}

// Getenv reads a variable.
func (e *Env) Getenv(key string) string { return e.env[key] }

// Environ lists the environment, sorted.
func (e *Env) Environ() []string {
	out := make([]string, 0, len(e.env))
	for _, k := range slices.Sorted(maps.Keys(e.env)) {
		out = append(out, k+"="+e.env[k])
	}
	return out
}

// TempDir is /tmp.
func (e *Env) TempDir() string { return "/tmp" }

// Shell is bash at /bin/bash.
func (e *Env) Shell() osenv.Shell { return osenv.Shell{Name: "bash", Path: "/bin/bash"} }

// Exec records cmd (with Dir resolved and the full environment) and
// starts a fake process.
func (e *Env) Exec(cmd osenv.Cmd) (osenv.Process, error) {
	if cmd.Dir == "" {
		cmd.Dir = e.Cwd()
	} else if !path.IsAbs(cmd.Dir) {
		cmd.Dir = path.Join(e.Cwd(), cmd.Dir)
	}
	cmd.Env = append(e.Environ(), cmd.Env...)
	return e.runner.start(cmd)
}
