package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/url"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/kimigo/kimigo/osenv"
)

// TransportKind is how kimigo talks to a server.
type TransportKind string

// Transports (spec 06 §7.4).
const (
	TransportStdio TransportKind = "stdio"
	TransportHTTP  TransportKind = "http"
	TransportSSE   TransportKind = "sse"
)

// Source is the configuration layer a server comes from (spec 06 §7.1).
type Source string

// Layers, in the order a later one wins per server name.
const (
	// SourceUser is <KIMIGO_HOME>/mcp.json.
	SourceUser Source = "user"
	// SourceProject is <project root>/.mcp.json, the Claude-compatible
	// file.
	SourceProject Source = "project"
	// SourceLocal is <work dir>/.kimi-code/mcp.json.
	SourceLocal Source = "local"
	// SourceCaller is handed over by the client (ACP mcpServers).
	SourceCaller Source = "caller"
)

// fromWorkspace reports whether a layer is a file of the workspace, which
// takes effect only in a trusted workspace (ERRATA 38).
func (s Source) fromWorkspace() bool { return s == SourceProject || s == SourceLocal }

// Server is one configured MCP server.
type Server struct {
	Name      string
	Transport TransportKind
	// stdio: the command line, its extra environment (over the parent's)
	// and its working directory (absolute; "" means the session's).
	Command string
	Args    []string
	Env     map[string]string
	Cwd     string
	// http and sse: the endpoint, static headers and the environment
	// variable whose value is sent as a bearer token.
	URL               string
	Headers           map[string]string
	BearerTokenEnvVar string
	// Disabled servers are listed but never started.
	Disabled bool
	// StartupTimeout and ToolTimeout override the manager's; 0 keeps it.
	StartupTimeout time.Duration
	ToolTimeout    time.Duration
	// EnabledTools, when non-nil, is the allow-list of server-side tool
	// names; DisabledTools is applied after it.
	EnabledTools  []string
	DisabledTools []string
	// Source and Path say where the server was configured.
	Source Source
	Path   string
	// Trusted is false for a workspace file's server in a workspace that
	// is not trusted: it is listed, not started.
	Trusted bool
}

// toolEnabled applies the allow-list, then the deny-list.
func (s Server) toolEnabled(name string) bool {
	if s.EnabledTools != nil && !slices.Contains(s.EnabledTools, name) {
		return false
	}
	return !slices.Contains(s.DisabledTools, name)
}

// ConfigError is an invalid MCP configuration file; the session reports
// it as config.invalid. Its message names the file, and the server and
// field at fault when there is one.
type ConfigError struct {
	Path   string
	Server string
	Field  string
	Detail string
	// ReadErr and JSONErr are set when the file could not be read or is
	// not JSON.
	ReadErr error
	JSONErr error
}

func (e *ConfigError) Error() string {
	switch {
	case e.ReadErr != nil:
		return fmt.Sprintf("Failed to read %s: %v", e.Path, e.ReadErr)
	case e.JSONErr != nil:
		return fmt.Sprintf("Invalid JSON in %s: %v", e.Path, e.JSONErr)
	case e.Server != "" && e.Field != "":
		return fmt.Sprintf("Invalid MCP server config in %s: server %q: %s: %s", e.Path, e.Server, e.Field, e.Detail)
	case e.Server != "":
		return fmt.Sprintf("Invalid MCP server config in %s: server %q: %s", e.Path, e.Server, e.Detail)
	}
	return fmt.Sprintf("Invalid MCP server config in %s: %s", e.Path, e.Detail)
}

func (e *ConfigError) Unwrap() error { return errors.Join(e.ReadErr, e.JSONErr) }

// maxTimeoutMs bounds the timeouts of a server entry.
const maxTimeoutMs = 2147483647

// ParseFile reads one mcp.json document: {"mcpServers": {"<name>":
// {…}}}. Other top-level keys are ignored. Blank content holds no
// servers. A relative stdio cwd resolves against base. The servers come
// back sorted by name.
func ParseFile(p string, data []byte, src Source, base string) ([]Server, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	var top any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&top); err != nil {
		return nil, &ConfigError{Path: p, JSONErr: err}
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &ConfigError{Path: p, JSONErr: fmt.Errorf("unexpected data after the top-level value at offset %d", dec.InputOffset())}
	}
	doc, ok := top.(map[string]any)
	if !ok {
		return nil, &ConfigError{Path: p, Detail: "expected a JSON object"}
	}
	raw, present := doc["mcpServers"]
	if !present || raw == nil {
		return nil, nil
	}
	entries, ok := raw.(map[string]any)
	if !ok {
		return nil, &ConfigError{Path: p, Detail: `"mcpServers" must be an object`}
	}
	var out []Server
	for _, name := range slices.Sorted(maps.Keys(entries)) {
		s, err := parseServer(p, name, entries[name], src, base)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// entry reads the fields of one server object.
type entry struct {
	path, name string
	m          map[string]any
}

func (e entry) fail(field, format string, args ...any) error {
	return &ConfigError{Path: e.path, Server: e.name, Field: field, Detail: fmt.Sprintf(format, args...)}
}

func (e entry) str(field string) (string, bool, error) {
	v, ok := e.m[field]
	if !ok || v == nil {
		return "", false, nil
	}
	s, isStr := v.(string)
	if !isStr {
		return "", true, e.fail(field, "must be a string")
	}
	return s, true, nil
}

func (e entry) strList(field string) ([]string, bool, error) {
	v, ok := e.m[field]
	if !ok || v == nil {
		return nil, false, nil
	}
	items, isList := v.([]any)
	if !isList {
		return nil, true, e.fail(field, "must be an array of strings")
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		s, isStr := it.(string)
		if !isStr {
			return nil, true, e.fail(field, "must be an array of strings")
		}
		out = append(out, s)
	}
	return out, true, nil
}

func (e entry) strMap(field string) (map[string]string, error) {
	v, ok := e.m[field]
	if !ok || v == nil {
		return nil, nil
	}
	obj, isObj := v.(map[string]any)
	if !isObj {
		return nil, e.fail(field, "must be an object of strings")
	}
	out := make(map[string]string, len(obj))
	for k, val := range obj {
		s, isStr := val.(string)
		if !isStr {
			return nil, e.fail(field+"."+k, "must be a string")
		}
		out[k] = s
	}
	return out, nil
}

func (e entry) timeout(field string) (time.Duration, error) {
	v, ok := e.m[field]
	if !ok || v == nil {
		return 0, nil
	}
	n, isNum := v.(json.Number)
	if !isNum {
		return 0, e.fail(field, "must be an integer from 1 to %d", maxTimeoutMs)
	}
	ms, err := n.Int64()
	if err != nil || ms < 1 || ms > maxTimeoutMs {
		return 0, e.fail(field, "must be an integer from 1 to %d, got %s", maxTimeoutMs, n)
	}
	return time.Duration(ms) * time.Millisecond, nil
}

func parseServer(p, name string, v any, src Source, base string) (Server, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return Server{}, &ConfigError{Path: p, Server: name, Detail: "expected a JSON object"}
	}
	e := entry{path: p, name: name, m: m}
	s := Server{Name: name, Source: src, Path: p, Trusted: !src.fromWorkspace()}
	kind, hasKind, err := e.str("transport")
	if err != nil {
		return Server{}, err
	}
	if !hasKind { // Claude's files say "type"
		if kind, hasKind, err = e.str("type"); err != nil {
			return Server{}, err
		}
	}
	cmd, hasCmd, err := e.str("command")
	if err != nil {
		return Server{}, err
	}
	rawURL, hasURL, err := e.str("url")
	if err != nil {
		return Server{}, err
	}
	switch {
	case hasKind && (kind == "streamable-http" || kind == "streamableHttp"):
		s.Transport = TransportHTTP
	case hasKind:
		s.Transport = TransportKind(kind)
	case hasCmd:
		s.Transport = TransportStdio
	case hasURL:
		s.Transport = TransportHTTP
	default:
		return Server{}, e.fail("command", "a server needs a \"command\" (stdio) or a \"url\" (http, sse)")
	}
	switch s.Transport {
	case TransportStdio:
		if err := s.parseStdio(e, cmd, base); err != nil {
			return Server{}, err
		}
	case TransportHTTP, TransportSSE:
		if err := s.parseRemote(e, rawURL, hasURL); err != nil {
			return Server{}, err
		}
	default:
		return Server{}, e.fail("transport", "must be stdio, http or sse, got %q", kind)
	}
	if en, ok := m["enabled"]; ok && en != nil {
		b, isBool := en.(bool)
		if !isBool {
			return Server{}, e.fail("enabled", "must be true or false")
		}
		s.Disabled = !b
	}
	if s.StartupTimeout, err = e.timeout("startupTimeoutMs"); err != nil {
		return Server{}, err
	}
	if s.ToolTimeout, err = e.timeout("toolTimeoutMs"); err != nil {
		return Server{}, err
	}
	var has bool
	if s.EnabledTools, has, err = e.strList("enabledTools"); err != nil {
		return Server{}, err
	} else if !has {
		s.EnabledTools = nil
	}
	if s.DisabledTools, _, err = e.strList("disabledTools"); err != nil {
		return Server{}, err
	}
	return s, nil
}

func (s *Server) parseStdio(e entry, cmd, base string) error {
	if strings.TrimSpace(cmd) == "" {
		return e.fail("command", "must be a non-empty string")
	}
	s.Command = cmd
	var err error
	if s.Args, _, err = e.strList("args"); err != nil {
		return err
	}
	if s.Env, err = e.strMap("env"); err != nil {
		return err
	}
	cwd, _, err := e.str("cwd")
	if err != nil {
		return err
	}
	switch {
	case cwd != "" && !path.IsAbs(cwd) && base != "":
		s.Cwd = path.Join(base, cwd)
	case cwd != "":
		s.Cwd = path.Clean(cwd)
	case e.path != "" && strings.HasSuffix(e.path, "/.mcp.json"):
		s.Cwd = base // Claude's project file runs its servers at the project root
	}
	executor, _, err := e.str("executor")
	switch {
	case err != nil:
		return err
	case executor == "kaos":
		return e.fail("executor", "MCP stdio executor 'kaos' is not yet implemented")
	case executor != "" && executor != "local":
		return e.fail("executor", "must be \"local\", got %q", executor)
	}
	return nil
}

func (s *Server) parseRemote(e entry, rawURL string, hasURL bool) error {
	if !hasURL {
		return e.fail("url", "is required for the %s transport", s.Transport)
	}
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return e.fail("url", "invalid URL %q (want http:// or https://)", rawURL)
	}
	s.URL = rawURL
	if s.Headers, err = e.strMap("headers"); err != nil {
		return err
	}
	tok, has, err := e.str("bearerTokenEnvVar")
	if err != nil {
		return err
	}
	if has && strings.TrimSpace(tok) == "" {
		return e.fail("bearerTokenEnvVar", "must name an environment variable")
	}
	s.BearerTokenEnvVar = tok
	if a, _, err := e.str("auth"); err != nil {
		return err
	} else if a != "" && a != "oauth" {
		return e.fail("auth", "must be \"oauth\", got %q", a)
	}
	return nil
}

// LoadOptions say where the configuration layers are.
type LoadOptions struct {
	// DataHome is kimigo's data directory; its mcp.json is the user layer.
	DataHome string
	// WorkDir is the session's work directory; the project root is its
	// nearest ancestor holding .git (else the work dir itself).
	WorkDir string
	// Caller are the servers a client handed over; they shadow every file.
	Caller []Server
	// Trusted says the workspace is trusted: only then do the servers of
	// .mcp.json and .kimi-code/mcp.json start (ERRATA 38).
	Trusted bool
}

// Load reads the layers (spec 06 §7.1) and merges them: a later layer wins
// per server name, except that an untrusted workspace file never shadows
// a server of a trusted layer. A missing file holds no servers; a file
// that cannot be read or parsed is a *ConfigError naming it. The result is
// sorted by name.
func Load(fsys osenv.FS, o LoadOptions) ([]Server, error) {
	root := projectRoot(fsys, o.WorkDir)
	layers := []struct {
		path string
		src  Source
		base string
	}{
		{path.Join(o.DataHome, "mcp.json"), SourceUser, o.WorkDir},
		{path.Join(root, ".mcp.json"), SourceProject, root},
		{path.Join(o.WorkDir, ".kimi-code", "mcp.json"), SourceLocal, o.WorkDir},
	}
	merged := map[string]Server{}
	put := func(s Server) {
		if prev, ok := merged[s.Name]; ok && prev.Trusted && !s.Trusted {
			return
		}
		merged[s.Name] = s
	}
	for _, l := range layers {
		if l.src == SourceUser && o.DataHome == "" {
			continue
		}
		data, err := fsys.ReadFile(l.path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, &ConfigError{Path: l.path, ReadErr: err}
		}
		servers, err := ParseFile(l.path, data, l.src, l.base)
		if err != nil {
			return nil, err
		}
		for _, s := range servers {
			if l.src.fromWorkspace() {
				s.Trusted = o.Trusted
			}
			put(s)
		}
	}
	for _, s := range o.Caller {
		s.Source, s.Trusted = SourceCaller, true
		put(s)
	}
	out := make([]Server, 0, len(merged))
	for _, name := range slices.Sorted(maps.Keys(merged)) {
		out = append(out, merged[name])
	}
	return out, nil
}

// projectRoot is the nearest ancestor of dir (dir included) holding a
// .git entry, or dir itself.
func projectRoot(fsys osenv.FS, dir string) string {
	for d := dir; d != ""; d = path.Dir(d) {
		if _, err := fsys.Lstat(path.Join(d, ".git")); err == nil {
			return d
		}
		if d == "/" || d == "." {
			break
		}
	}
	return dir
}
