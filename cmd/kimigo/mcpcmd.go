package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/mcp"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/session"
)

// mcpUsage is `kimigo mcp --help`.
const mcpUsage = `Usage: kimigo mcp <command>

Manage the MCP servers kimigo connects to.

Commands:
  list                                   List the servers of every layer and check their connection
  get <name>                             Show one server and check its connection
  add [options] <name> <command|url> [args...]
                                         Add a server
  remove [-s <scope>] <name>             Remove a server

Options of add:
  -s, --scope <user|project|local>       Where to write it: user (<KIMIGO_HOME>/mcp.json, the default),
                                         project (.mcp.json at the project root) or local
                                         (.kimi-code/mcp.json in the work dir)
  -t, --transport <stdio|http|sse>       Transport (default stdio)
  -e, --env <KEY=value>                  An environment variable of a stdio server (repeatable)
  -H, --header <"Name: value">           A header of an http or sse server (repeatable)

Servers of project and local files start only in a trusted workspace.
`

// mcpCommand is what the mcp subcommands share: where the layers are.
type mcpCommand struct {
	p       proc
	env     config.Env
	home    string // KIMIGO_HOME
	workDir string
}

// runMCP is `kimigo mcp list | get | add | remove` (issue 21, Claude's
// command shape).
func runMCP(args []string, env config.Env, p proc) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(p.stdout, mcpUsage)
		if len(args) == 0 {
			return exitFailure
		}
		return exitOK
	}
	c := mcpCommand{p: p, env: env}
	wd, err := p.getwd()
	if err != nil {
		return fail(p, fmt.Errorf("find the working directory: %w", err))
	}
	userHome, _ := p.userHome()
	home, err := config.HomeDir(env, userHome)
	if err != nil {
		return fail(p, err)
	}
	c.home, c.workDir = absolute(wd, home), wd
	switch args[0] {
	case "list":
		if len(args) > 1 {
			return printUsageError(p.stderr, usagef("'kimigo mcp list' takes no arguments"))
		}
		return c.list("")
	case "get":
		if len(args) != 2 {
			return printUsageError(p.stderr, usagef("'kimigo mcp get' takes one server name"))
		}
		return c.list(args[1])
	case "add":
		return c.add(args[1:])
	case "remove":
		return c.remove(args[1:])
	}
	return printUsageError(p.stderr, usagef("unknown mcp command '%s'; expected list, get, add or remove", args[0]))
}

// scopes are the files add and remove write, by scope name.
func (c mcpCommand) scopes() map[string]string {
	return map[string]string{
		"user":    filepath.Join(c.home, "mcp.json"),
		"project": filepath.Join(config.ProjectRoot(osenv.LocalFS{}, c.workDir), ".mcp.json"),
		"local":   filepath.Join(c.workDir, ".kimi-code", "mcp.json"),
	}
}

// list connects the configured servers (or only name) and shows each with
// its status; get shows one in detail.
func (c mcpCommand) list(name string) int {
	servers, err := mcp.Load(osenv.LocalFS{}, mcp.LoadOptions{DataHome: c.home, WorkDir: c.workDir,
		Trusted: session.Trusted(osenv.LocalFS{}, c.home, c.workDir)})
	if err != nil {
		return fail(c.p, err)
	}
	if name != "" {
		i := slices.IndexFunc(servers, func(s mcp.Server) bool { return s.Name == name })
		if i < 0 {
			return fail(c.p, fmt.Errorf("no MCP server named %q in %s", name, strings.Join(c.files(), ", ")))
		}
		servers = servers[i : i+1]
	}
	if len(servers) == 0 {
		fmt.Fprintf(c.p.stdout, "No MCP servers configured. Add one with: kimigo mcp add <name> <command|url>\n")
		return exitOK
	}
	local := osenv.NewLocal(osenv.LocalOptions{Cwd: c.workDir, Environ: c.environ()})
	m := mcp.New(mcp.Options{Env: local, Version: versionString(), StartupTimeout: c.startupTimeout()})
	m.Start(servers)
	ctx := context.Background()
	_ = m.Wait(ctx) // each server is bounded by its startup timeout
	infos := m.Servers()
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := m.Close(cctx); err != nil {
		fmt.Fprintf(c.p.stderr, "Warning: stop the MCP servers: %v\n", err)
	}
	if name != "" {
		c.detail(infos[0])
		return exitOK
	}
	for _, in := range infos {
		fmt.Fprintf(c.p.stdout, "%s: %s - %s\n", in.Name, target(in), status(in))
	}
	return exitOK
}

// files are the layer files, for messages.
func (c mcpCommand) files() []string {
	s := c.scopes()
	return []string{s["user"], s["project"], s["local"]}
}

// environ is the process environment for stdio servers.
func (c mcpCommand) environ() []string {
	out := make([]string, 0, len(c.env))
	for k, v := range c.env {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}

// startupTimeout is KIMI_MCP_STARTUP_TIMEOUT_MS when set, else the
// default; list does not read config.toml.
func (c mcpCommand) startupTimeout() time.Duration {
	var ms int
	if _, err := fmt.Sscanf(c.env["KIMI_MCP_STARTUP_TIMEOUT_MS"], "%d", &ms); err == nil && ms > 0 {
		return time.Duration(ms) * time.Millisecond
	}
	return 0
}

// target is a server's command line or URL.
func target(in mcp.ServerInfo) string {
	if in.URL != "" {
		return in.URL + " (" + string(in.Transport) + ")"
	}
	return strings.Join(append([]string{in.Command}, in.Args...), " ")
}

// status is a server's status as list shows it.
func status(in mcp.ServerInfo) string {
	switch in.Status {
	case mcp.StatusConnected:
		return fmt.Sprintf("connected (%d tools)", in.ToolCount)
	case mcp.StatusFailed, mcp.StatusDisabled:
		if in.Error != "" {
			return string(in.Status) + ": " + firstLineOf(in.Error)
		}
	}
	return string(in.Status)
}

func firstLineOf(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

// detail is get's view of one server; secrets stay out: of the
// environment and the headers only the names are shown.
func (c mcpCommand) detail(in mcp.ServerInfo) {
	w := c.p.stdout
	fmt.Fprintf(w, "%s:\n", in.Name)
	fmt.Fprintf(w, "  Scope: %s (%s)\n", in.Source, in.Path)
	fmt.Fprintf(w, "  Status: %s\n", status(in))
	fmt.Fprintf(w, "  Type: %s\n", in.Transport)
	if in.URL != "" {
		fmt.Fprintf(w, "  URL: %s\n", in.URL)
	} else {
		fmt.Fprintf(w, "  Command: %s\n", in.Command)
		fmt.Fprintf(w, "  Args: %s\n", strings.Join(in.Args, " "))
	}
	if len(in.EnvKeys) > 0 {
		fmt.Fprintf(w, "  Environment: %s\n", strings.Join(in.EnvKeys, ", "))
	}
	if len(in.HeaderKeys) > 0 {
		fmt.Fprintf(w, "  Headers: %s\n", strings.Join(in.HeaderKeys, ", "))
	}
	if in.Error != "" && in.Status == mcp.StatusFailed {
		fmt.Fprintf(w, "  Error: %s\n", strings.TrimSpace(in.Error))
	}
	fmt.Fprintf(w, "\nTo remove this server: kimigo mcp remove %s -s %s\n", in.Name, scopeOf(in.Source))
}

// scopeOf is the scope name of a layer.
func scopeOf(s mcp.Source) string {
	switch s {
	case mcp.SourceProject:
		return "project"
	case mcp.SourceLocal:
		return "local"
	}
	return "user"
}

// add writes one server into the file of its scope.
func (c mcpCommand) add(args []string) int {
	scope, transport := "user", "stdio"
	var envs, headers, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if len(pos) >= 2 { // the command's own arguments, after an optional --
			rest := args[i:]
			if rest[0] == "--" {
				rest = rest[1:]
			}
			pos = append(pos, rest...)
			break
		}
		value := func() (string, bool) {
			if i+1 >= len(args) {
				return "", false
			}
			i++
			return args[i], true
		}
		var ok bool
		switch a {
		case "-s", "--scope":
			scope, ok = value()
		case "-t", "--transport":
			transport, ok = value()
		case "-e", "--env":
			var v string
			v, ok = value()
			envs = append(envs, v)
		case "-H", "--header":
			var v string
			v, ok = value()
			headers = append(headers, v)
		case "--":
			pos = append(pos, args[i+1:]...)
			i, ok = len(args), true
		default:
			if strings.HasPrefix(a, "-") {
				return printUsageError(c.p.stderr, usagef("unknown option '%s' for 'kimigo mcp add'", a))
			}
			pos, ok = append(pos, a), true
		}
		if !ok {
			return printUsageError(c.p.stderr, usagef("option '%s' needs a value", a))
		}
	}
	if len(pos) < 2 {
		return printUsageError(c.p.stderr, usagef("'kimigo mcp add' needs a name and a command or URL"))
	}
	file, ok := c.scopes()[scope]
	if !ok {
		return printUsageError(c.p.stderr, usagef("invalid scope '%s'; expected user, project or local", scope))
	}
	name := pos[0]
	entry := map[string]any{}
	switch transport {
	case "stdio":
		entry["command"] = pos[1]
		if len(pos) > 2 {
			entry["args"] = pos[2:]
		}
		if len(headers) > 0 {
			return printUsageError(c.p.stderr, usagef("--header applies to http and sse servers, not stdio"))
		}
		if len(envs) > 0 {
			m := map[string]any{}
			for _, kv := range envs {
				k, v, ok := strings.Cut(kv, "=")
				if !ok || k == "" {
					return printUsageError(c.p.stderr, usagef("--env %q is not KEY=value", kv))
				}
				m[k] = v
			}
			entry["env"] = m
		}
	case "http", "sse":
		entry["type"], entry["url"] = transport, pos[1]
		if len(pos) > 2 {
			return printUsageError(c.p.stderr, usagef("an %s server takes a URL and no arguments; got %q", transport, pos[2:]))
		}
		if len(envs) > 0 {
			return printUsageError(c.p.stderr, usagef("--env applies to stdio servers, not %s", transport))
		}
		if len(headers) > 0 {
			m := map[string]any{}
			for _, h := range headers {
				k, v, ok := strings.Cut(h, ":")
				if !ok || strings.TrimSpace(k) == "" {
					return printUsageError(c.p.stderr, usagef("--header %q is not \"Name: value\"", h))
				}
				m[strings.TrimSpace(k)] = strings.TrimSpace(v)
			}
			entry["headers"] = m
		}
	default:
		return printUsageError(c.p.stderr, usagef("invalid transport '%s'; expected stdio, http or sse", transport))
	}
	err := editMCPFile(file, func(servers map[string]any) error {
		if _, exists := servers[name]; exists {
			return fmt.Errorf("MCP server %q already exists in %s; remove it first", name, file)
		}
		servers[name] = entry
		return nil
	})
	if err != nil {
		return fail(c.p, err)
	}
	fmt.Fprintf(c.p.stdout, "Added %s MCP server %s to %s\n", transport, name, file)
	if scope != "user" && !session.Trusted(osenv.LocalFS{}, c.home, c.workDir) {
		fmt.Fprintf(c.p.stderr, "Warning: servers of %s start only in a trusted workspace, and this one is not trusted.\n", file)
	}
	return exitOK
}

// remove deletes a server from the file of its scope; without a scope,
// from the one file that has it.
func (c mcpCommand) remove(args []string) int {
	scope, name := "", ""
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-s" || a == "--scope":
			if i+1 >= len(args) {
				return printUsageError(c.p.stderr, usagef("option '%s' needs a value", a))
			}
			i++
			scope = args[i]
		case strings.HasPrefix(a, "-"):
			return printUsageError(c.p.stderr, usagef("unknown option '%s' for 'kimigo mcp remove'", a))
		case name == "":
			name = a
		default:
			return printUsageError(c.p.stderr, usagef("'kimigo mcp remove' takes one server name"))
		}
	}
	if name == "" {
		return printUsageError(c.p.stderr, usagef("'kimigo mcp remove' needs a server name"))
	}
	scopes := c.scopes()
	var candidates []string
	if scope != "" {
		if _, ok := scopes[scope]; !ok {
			return printUsageError(c.p.stderr, usagef("invalid scope '%s'; expected user, project or local", scope))
		}
		candidates = []string{scope}
	} else {
		for _, s := range []string{"user", "project", "local"} {
			if has, err := mcpFileHas(scopes[s], name); err != nil {
				return fail(c.p, err)
			} else if has {
				candidates = append(candidates, s)
			}
		}
		if len(candidates) > 1 {
			return fail(c.p, fmt.Errorf("MCP server %q is in more than one scope (%s); name one with -s",
				name, strings.Join(candidates, ", ")))
		}
	}
	if len(candidates) == 0 {
		return fail(c.p, fmt.Errorf("no MCP server named %q in %s", name, strings.Join(c.files(), ", ")))
	}
	file := scopes[candidates[0]]
	err := editMCPFile(file, func(servers map[string]any) error {
		if _, ok := servers[name]; !ok {
			return fmt.Errorf("no MCP server named %q in %s", name, file)
		}
		delete(servers, name)
		return nil
	})
	if err != nil {
		return fail(c.p, err)
	}
	fmt.Fprintf(c.p.stdout, "Removed MCP server %s from %s\n", name, file)
	return exitOK
}

// mcpFileHas reports whether the mcp.json at path configures name.
func mcpFileHas(path, name string) (bool, error) {
	doc, err := readMCPFile(path)
	if err != nil || doc == nil {
		return false, err
	}
	servers, _ := doc["mcpServers"].(map[string]any)
	_, ok := servers[name]
	return ok, nil
}

// readMCPFile decodes the mcp.json at path; nil when it does not exist.
// A file that does not parse is an error naming it.
func readMCPFile(path string) (map[string]any, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if _, err := mcp.ParseFile(path, data, mcp.SourceUser, filepath.Dir(path)); err != nil {
		return nil, err
	}
	doc := map[string]any{}
	if len(bytes.TrimSpace(data)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if err := dec.Decode(&doc); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return doc, nil
}

// editMCPFile changes the mcpServers of the file at path (created when
// missing) and writes it back atomically; its other keys are kept. The
// result must parse, or nothing is written.
func editMCPFile(path string, change func(servers map[string]any) error) error {
	doc, err := readMCPFile(path)
	if err != nil {
		return err
	}
	if doc == nil {
		doc = map[string]any{}
	}
	servers, _ := doc["mcpServers"].(map[string]any)
	if servers == nil {
		servers = map[string]any{}
	}
	if err := change(servers); err != nil {
		return err
	}
	doc["mcpServers"] = servers
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	if _, err := mcp.ParseFile(path, data, mcp.SourceUser, filepath.Dir(path)); err != nil {
		return err
	}
	return writeFileAtomic(path, data)
}

// writeFileAtomic replaces path with data through a temporary file in the
// same directory, synced before the rename.
func writeFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // after a successful rename there is nothing to remove
	if err := f.Chmod(0o600); err == nil {
		_, err = f.Write(data)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	} else {
		f.Close()
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
