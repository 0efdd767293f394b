package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/osenv"
)

// Default timeouts (spec 06 §7.2); the caller resolves
// KIMI_MCP_*_TIMEOUT_MS and [mcp] into Options.
const (
	DefaultStartupTimeout = 30 * time.Second
	DefaultToolTimeout    = 60 * time.Second
)

// Status is a server's connection state (spec 06 §7.3).
type Status string

// Statuses.
const (
	// StatusPending: connecting.
	StatusPending   Status = "pending"
	StatusConnected Status = "connected"
	StatusFailed    Status = "failed"
	// StatusDisabled: configured off, or a workspace server in an
	// untrusted workspace; never started.
	StatusDisabled Status = "disabled"
)

// untrustedReason is a workspace server's error in an untrusted workspace.
const untrustedReason = "not started: this MCP server comes from a workspace file and the workspace is not trusted"

// ServerInfo is one server as a list shows it. Secrets stay out: of the
// environment and the headers only the names are shown.
type ServerInfo struct {
	Name      string
	Transport TransportKind
	Status    Status
	// ToolCount is the number of enabled tools while connected, else 0.
	ToolCount int
	// Error says why the server failed or is disabled: the reason, and
	// for a stdio server the tail of its stderr.
	Error  string
	Source Source
	Path   string
	// Command and Args (stdio) or URL (http, sse).
	Command    string
	Args       []string
	URL        string
	EnvKeys    []string
	HeaderKeys []string
	// Collisions are tools dropped because another tool of the server has
	// the same qualified name.
	Collisions []string
}

// Change is a server's state after it changed; Tools are its tools while
// it is connected (nil otherwise), for the tool manager.
type Change struct {
	Info  ServerInfo
	Tools []loop.ExecutableTool
}

// Options configure a Manager. The zero value is usable.
type Options struct {
	// Env spawns stdio servers and holds the bearer-token variables; nil
	// means the local OS.
	Env osenv.Env
	// HTTPClient reaches remote servers; nil means one that honours the
	// proxy variables.
	HTTPClient *http.Client
	// StartupTimeout bounds connect, initialize and tools/list; 0 means
	// DefaultStartupTimeout. ToolTimeout bounds a call; 0 means
	// DefaultToolTimeout. A server's own values win.
	StartupTimeout time.Duration
	ToolTimeout    time.Duration
	// Version is sent as the client version in initialize.
	Version string
	Logger  *slog.Logger
}

// Manager is a session's MCP connections (spec 06 §7.3): it connects the
// configured servers in parallel without blocking its caller, keeps each
// server's status, tools and connection, follows tool-list changes and
// unexpected closes, and tells its subscribers. One server's failure never
// touches another. Every method is safe for concurrent use.
type Manager struct {
	o    Options
	log  *slog.Logger
	env  osenv.Env
	http *http.Client

	root   context.Context // ends at Close: connect attempts and refreshes stop
	cancel context.CancelFunc
	wg     sync.WaitGroup // attempts, watchers and refreshes; Add under mu

	pubMu sync.Mutex // serializes publishing, so subscribers see changes in order

	mu      sync.Mutex
	servers map[string]*server   // guarded by mu
	subs    map[int]func(Change) // guarded by mu
	nextSub int                  // guarded by mu
	closed  bool                 // guarded by mu
}

// server is one configured server's state; its fields are guarded by
// Manager.mu.
type server struct {
	cfg        Server
	status     Status
	err        string
	attempt    int
	settled    chan struct{} // closed when the current attempt settled
	conn       *connection
	tools      []*Tool
	collisions []string
}

// New returns a manager with no servers.
func New(o Options) *Manager {
	m := &Manager{o: o, log: o.Logger, env: o.Env, http: o.HTTPClient, servers: map[string]*server{},
		subs: map[int]func(Change){}}
	if m.log == nil {
		m.log = slog.New(slog.DiscardHandler)
	}
	if m.env == nil {
		m.env = osenv.NewLocal(osenv.LocalOptions{})
	}
	if m.http == nil {
		m.http = &http.Client{Transport: http.DefaultTransport}
	}
	if m.o.StartupTimeout <= 0 {
		m.o.StartupTimeout = DefaultStartupTimeout
	}
	if m.o.ToolTimeout <= 0 {
		m.o.ToolTimeout = DefaultToolTimeout
	}
	m.root, m.cancel = context.WithCancel(context.Background())
	return m
}

// Start registers servers and connects the enabled, trusted ones in
// parallel. It returns at once; Wait waits for the first attempts. Every
// server is published as pending or disabled first. Calling Start again
// adds servers (a name already known is replaced by Reconnect only).
func (m *Manager) Start(servers []Server) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	var started []string
	for _, cfg := range servers {
		if _, known := m.servers[cfg.Name]; known {
			continue
		}
		srv := &server{cfg: cfg, settled: make(chan struct{})}
		m.servers[cfg.Name] = srv
		switch {
		case cfg.Disabled:
			srv.status = StatusDisabled
			close(srv.settled)
		case !cfg.Trusted:
			srv.status, srv.err = StatusDisabled, untrustedReason
			close(srv.settled)
		default:
			srv.status, srv.attempt = StatusPending, 1
			m.wg.Add(1)
			if cfg.Source.fromWorkspace() {
				m.log.Info("starting project MCP server", "server", cfg.Name, "command", cfg.Command, "url", cfg.URL)
			}
			go m.connect(srv, 1, cfg, srv.settled) // owned by m: Close waits
		}
		started = append(started, cfg.Name)
	}
	m.mu.Unlock()
	for _, name := range started {
		m.publish(name)
	}
}

// Wait blocks until every server Start connected has succeeded or failed,
// or ctx ends (its error is returned). The first model request waits here
// so it sees the MCP tools (spec 06 §7.3); no server can hold it longer
// than its startup timeout.
func (m *Manager) Wait(ctx context.Context) error {
	m.mu.Lock()
	pending := make([]chan struct{}, 0, len(m.servers))
	for _, srv := range m.servers {
		pending = append(pending, srv.settled)
	}
	m.mu.Unlock()
	for _, ch := range pending {
		select {
		case <-ch:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
	return nil
}

// Servers lists every server, sorted by name.
func (m *Manager) Servers() []ServerInfo {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]ServerInfo, 0, len(m.servers))
	for _, srv := range m.servers {
		out = append(out, srv.info())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Server describes one server; ok is false for an unknown name.
func (m *Manager) Server(name string) (ServerInfo, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	srv, ok := m.servers[name]
	if !ok {
		return ServerInfo{}, false
	}
	return srv.info(), true
}

// Tools returns the tools of every connected server, sorted by name.
func (m *Manager) Tools() []loop.ExecutableTool {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []loop.ExecutableTool
	for _, srv := range m.servers {
		for _, t := range srv.tools {
			out = append(out, t)
		}
	}
	slices.SortFunc(out, func(a, b loop.ExecutableTool) int {
		return compareStrings(a.Definition().Name, b.Definition().Name)
	})
	return out
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Subscribe calls f with every change, in order, from the goroutine that
// made it, with no lock of the manager held; f must not block for long.
// It returns the function that ends the subscription.
func (m *Manager) Subscribe(f func(Change)) (unsubscribe func()) {
	m.mu.Lock()
	id := m.nextSub
	m.nextSub++
	m.subs[id] = f
	m.mu.Unlock()
	return func() {
		m.mu.Lock()
		delete(m.subs, id)
		m.mu.Unlock()
	}
}

// publish tells the subscribers the current state of server name. Reading
// the state under pubMu keeps the order: the last call always carries the
// latest state.
func (m *Manager) publish(name string) {
	m.pubMu.Lock()
	defer m.pubMu.Unlock()
	m.mu.Lock()
	srv, ok := m.servers[name]
	if !ok {
		m.mu.Unlock()
		return
	}
	ch := Change{Info: srv.info()}
	if srv.status == StatusConnected {
		for _, t := range srv.tools {
			ch.Tools = append(ch.Tools, t)
		}
	}
	subs := make([]func(Change), 0, len(m.subs))
	for _, id := range slices.Sorted(maps.Keys(m.subs)) {
		subs = append(subs, m.subs[id])
	}
	m.mu.Unlock()
	for _, f := range subs {
		m.notify(f, ch)
	}
}

func (m *Manager) notify(f func(Change), ch Change) {
	defer func() {
		if r := recover(); r != nil {
			m.log.Error("mcp subscriber panicked", "server", ch.Info.Name, "panic", fmt.Sprint(r))
		}
	}()
	f(ch)
}

// Reconnect replaces server cfg.Name's connection with a new attempt using
// cfg (the caller re-reads the configuration, so edits apply) and waits
// for it. Concurrent reconnects of one server join the attempt in flight.
// There is no automatic reconnect.
func (m *Manager) Reconnect(ctx context.Context, cfg Server) error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return errors.New("MCP manager is closed")
	}
	srv, ok := m.servers[cfg.Name]
	switch {
	case !ok:
		m.mu.Unlock()
		//lint:ignore ST1005 shown to the user as is
		return fmt.Errorf("Unknown MCP server: %s", cfg.Name)
	case cfg.Disabled:
		m.mu.Unlock()
		return fmt.Errorf("MCP server is disabled: %s", cfg.Name)
	case !cfg.Trusted:
		m.mu.Unlock()
		return fmt.Errorf("MCP server %q is %s", cfg.Name, untrustedReason)
	}
	settled := srv.settled
	if srv.status != StatusPending {
		old := srv.conn
		srv.cfg, srv.conn, srv.tools, srv.collisions = cfg, nil, nil, nil
		srv.status, srv.err = StatusPending, ""
		srv.attempt++
		srv.settled = make(chan struct{})
		settled = srv.settled
		m.wg.Add(1)
		go m.connect(srv, srv.attempt, cfg, settled) // owned by m: Close waits
		if old != nil {
			m.wg.Go(old.close)
		}
	}
	m.mu.Unlock()
	m.publish(cfg.Name)
	select {
	case <-settled:
	case <-ctx.Done():
		return context.Cause(ctx)
	}
	info, _ := m.Server(cfg.Name)
	if info.Status == StatusFailed {
		return errors.New(info.Error)
	}
	return nil
}

// Close shuts every connection down in parallel (close errors are
// ignored) and waits for the manager's goroutines, or for ctx.
func (m *Manager) Close(ctx context.Context) error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	var conns []*connection
	for _, srv := range m.servers {
		if srv.conn != nil {
			conns = append(conns, srv.conn)
		}
	}
	m.mu.Unlock()
	m.cancel()
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(c.close)
	}
	done := make(chan struct{})
	go func() { wg.Wait(); m.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("close MCP servers: %w", context.Cause(ctx))
	}
}

// info is the list view of srv; the caller holds Manager.mu.
func (srv *server) info() ServerInfo {
	c := srv.cfg
	in := ServerInfo{Name: c.Name, Transport: c.Transport, Status: srv.status, Error: srv.err, Source: c.Source,
		Path: c.Path, Command: c.Command, Args: slices.Clone(c.Args), URL: c.URL,
		EnvKeys: slices.Sorted(maps.Keys(c.Env)), HeaderKeys: slices.Sorted(maps.Keys(c.Headers)),
		Collisions: slices.Clone(srv.collisions)}
	if srv.status == StatusConnected {
		in.ToolCount = len(srv.tools)
	}
	return in
}

// ServerTools returns the tools of server name while it is connected.
func (m *Manager) ServerTools(name string) []loop.ExecutableTool {
	m.mu.Lock()
	defer m.mu.Unlock()
	srv, ok := m.servers[name]
	if !ok || srv.status != StatusConnected {
		return nil
	}
	out := make([]loop.ExecutableTool, 0, len(srv.tools))
	for _, t := range srv.tools {
		out = append(out, t)
	}
	return out
}
