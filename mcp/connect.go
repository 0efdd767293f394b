package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
)

// clientName is sent in initialize (spec 06 §0.1).
const clientName = "kimigo"

// connection is one live client session with a server.
type connection struct {
	name string
	cs   *sdk.ClientSession // set once connected
	proc *stdioProcess      // nil for remote servers

	closing atomic.Bool // set by close: the session end that follows is expected
	// changedEarly records a tools/list_changed that arrived before the
	// connection was settled (guarded by Manager.mu); the listing is
	// repeated once it is.
	changedEarly bool
	closeOnce    sync.Once
	progress     sync.Map // progress token → func(loop.ProgressUpdate)

	// settled is closed once watch has dealt with the end of the session:
	// a call that failed because the server went away waits for it, so the
	// server's status and tools are up to date when its result returns.
	settled chan struct{}

	// endLife ends the context the transport was connected with (the SSE
	// transport keeps its event stream on it).
	endLife context.CancelCauseFunc

	callsMu sync.Mutex
	calls   map[*int]context.CancelCauseFunc // guarded by callsMu; calls in flight
}

// errShutDown ends the calls in flight when the connection closes: the
// SDK's Close waits for them otherwise.
var errShutDown = errors.New("connection closed by kimigo")

// track registers a call's cancel function until the returned function is
// called; on a closed connection it cancels at once.
func (c *connection) track(cancel context.CancelCauseFunc) (untrack func()) {
	key := new(int)
	c.callsMu.Lock()
	if c.calls == nil {
		c.calls = map[*int]context.CancelCauseFunc{}
	}
	c.calls[key] = cancel
	c.callsMu.Unlock()
	if c.isClosed() {
		cancel(errShutDown)
	}
	return func() {
		c.callsMu.Lock()
		delete(c.calls, key)
		c.callsMu.Unlock()
	}
}

func (c *connection) cancelCalls() {
	c.callsMu.Lock()
	defer c.callsMu.Unlock()
	for _, cancel := range c.calls {
		cancel(errShutDown)
	}
}

func (c *connection) isClosed() bool { return c.closing.Load() }

// close ends the session and, for stdio, stops the process (stdin closed,
// then SIGTERM, then SIGKILL). Errors are ignored. Safe to call more than
// once and from any goroutine.
func (c *connection) close() {
	c.closing.Store(true)
	c.closeOnce.Do(func() {
		c.cancelCalls()
		if c.endLife != nil {
			defer c.endLife(errShutDown)
		}
		if c.proc != nil {
			c.proc.hangUp() // the session's reader ends now, not after the server
		}
		if c.cs != nil {
			_ = c.cs.Close() // waits for calls in flight, which are cancelled
		}
		if c.proc != nil {
			c.proc.close()
		}
	})
}

// watchProgress sends the server's progress for token to f until the
// returned function is called.
func (c *connection) watchProgress(token string, f func(loop.ProgressUpdate)) (stop func()) {
	c.progress.Store(token, f)
	return func() { c.progress.Delete(token) }
}

func (c *connection) onProgress(p *sdk.ProgressNotificationParams) {
	token, ok := p.ProgressToken.(string)
	if !ok {
		return
	}
	f, ok := c.progress.Load(token)
	if !ok {
		return
	}
	u := loop.ProgressUpdate{Kind: loop.ProgressProgress, Text: p.Message}
	if p.Total > 0 {
		pct := 100 * p.Progress / p.Total
		u.Percent = &pct
	}
	f.(func(loop.ProgressUpdate))(u)
}

// connect runs one connection attempt of srv and settles it: connected
// with its tools, or failed with the reason. The result of an attempt a
// newer one (or Close) superseded is discarded and its connection closed.
func (m *Manager) connect(srv *server, attempt int, cfg Server, settled chan struct{}) {
	defer m.wg.Done()
	defer close(settled)
	timeout := cfg.StartupTimeout
	if timeout <= 0 {
		timeout = m.o.StartupTimeout
	}
	conn, tools, collisions, err := m.dial(cfg, timeout)
	m.mu.Lock()
	if m.closed || srv.attempt != attempt {
		m.mu.Unlock()
		if conn != nil {
			conn.close()
		}
		return
	}
	if err != nil {
		srv.status, srv.err = StatusFailed, err.Error()
		m.log.Error("mcp server failed to start", "server", cfg.Name, "error", srv.err)
	} else {
		srv.status, srv.err, srv.conn, srv.tools, srv.collisions = StatusConnected, "", conn, tools, collisions
		m.wg.Add(1)
		go m.watch(srv, attempt, conn) // owned by m: ends when the session ends, which Close forces
		m.log.Info("mcp server connected", "server", cfg.Name, "tools", len(tools))
	}
	early := conn != nil && conn.changedEarly
	m.mu.Unlock()
	m.publish(cfg.Name)
	if early {
		m.toolsChanged(cfg.Name, conn)
	}
}

// dial connects to cfg's server, initializes and lists its tools, all
// within timeout.
func (m *Manager) dial(cfg Server, timeout time.Duration) (*connection, []*Tool, []string, error) {
	// The context lives as long as the connection: the SSE transport
	// reads its event stream under it. Only the handshake is bounded.
	ctx, endLife := context.WithCancelCause(m.root)
	timer := time.AfterFunc(timeout, func() { endLife(errStartupTimeout) })
	defer timer.Stop()
	conn := &connection{name: cfg.Name, endLife: endLife, settled: make(chan struct{})}
	fail := func(err error) (*connection, []*Tool, []string, error) {
		conn.close()
		if errors.Is(context.Cause(ctx), errStartupTimeout) {
			//lint:ignore ST1005 the user reads it as is
			err = fmt.Errorf("Timed out after %dms", timeout.Milliseconds())
		}
		return nil, nil, nil, withStderr(err, conn.proc)
	}
	var tr sdk.Transport
	switch cfg.Transport {
	case TransportStdio:
		p, err := startStdio(m.env, cfg, m.log)
		if err != nil {
			return fail(err)
		}
		conn.proc, tr = p, p.transport()
	default:
		var err error
		if tr, err = remoteTransport(m.env, m.http, cfg); err != nil {
			return fail(err)
		}
	}
	client := sdk.NewClient(&sdk.Implementation{Name: clientName, Version: orDefault(m.o.Version, "dev")},
		&sdk.ClientOptions{
			ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { m.toolsChanged(cfg.Name, conn) },
			ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
				conn.onProgress(r.Params)
			},
		})
	cs, err := client.Connect(ctx, tr, nil)
	if err != nil {
		return fail(err)
	}
	conn.cs = cs
	tools, collisions, err := m.listTools(ctx, cfg, conn)
	if err != nil {
		return fail(err)
	}
	if !timer.Stop() { // the timeout fired as the handshake ended
		return fail(errStartupTimeout)
	}
	return conn, tools, collisions, nil
}

// errStartupTimeout ends a handshake that took too long.
var errStartupTimeout = errors.New("startup timeout")

// withStderr adds a stdio server's stderr tail to err.
func withStderr(err error, p *stdioProcess) error {
	if p == nil {
		return err
	}
	p.exited(100 * time.Millisecond) // let the last words arrive
	if tail := p.tail.String(); tail != "" {
		return fmt.Errorf("%w\nstderr: %s", err, tail)
	}
	return err
}

// listTools lists the server's tools (every page) and wraps the enabled
// ones. A tool whose input schema is not an object fails the server; a
// second tool with the same qualified name is dropped and reported.
func (m *Manager) listTools(ctx context.Context, cfg Server, conn *connection) ([]*Tool, []string, error) {
	toolTimeout := cfg.ToolTimeout
	if toolTimeout <= 0 {
		toolTimeout = m.o.ToolTimeout
	}
	var tools []*Tool
	var collisions []string
	seen := map[string]bool{}
	for t, err := range conn.cs.Tools(ctx, nil) {
		if err != nil {
			return nil, nil, fmt.Errorf("list tools: %w", err)
		}
		schema, err := inputSchema(t)
		if err != nil {
			return nil, nil, err
		}
		if !cfg.toolEnabled(t.Name) {
			continue
		}
		q := QualifiedName(cfg.Name, t.Name)
		if seen[q] {
			collisions = append(collisions, t.Name)
			m.log.Error("mcp tool name collision", "server", cfg.Name, "tool", t.Name, "name", q)
			continue
		}
		seen[q] = true
		tools = append(tools, &Tool{def: llm.Tool{Name: q, Description: t.Description, Parameters: schema},
			server: cfg.Name, remote: t.Name, conn: conn, timeout: toolTimeout})
	}
	return tools, collisions, nil
}

// inputSchema is a tool's input schema as JSON; it must be an object.
func inputSchema(t *sdk.Tool) (json.RawMessage, error) {
	b, err := json.Marshal(t.InputSchema)
	if err != nil || len(b) == 0 || b[0] != '{' {
		//lint:ignore ST1005 the user reads it as is
		return nil, fmt.Errorf("Invalid inputSchema for MCP tool %q: schema must be a JSON object", t.Name)
	}
	return b, nil
}

// watch waits for the session to end. An end nobody asked for fails the
// server (spec 06 §7.3 step 5): its tools go, and the error says so with
// the transport's last error and the stderr tail.
func (m *Manager) watch(srv *server, attempt int, conn *connection) {
	defer m.wg.Done()
	defer close(conn.settled)
	ended := make(chan error, 1)
	go func() { ended <- conn.cs.Wait() }() // ends when the session does; close forces it
	var waitErr error
	if conn.proc != nil {
		select {
		case waitErr = <-ended:
		case <-conn.proc.proc.Done(): // the process died; its pipes may linger in a grandchild
			t := time.NewTimer(exitSettle)
			select {
			case waitErr = <-ended:
			case <-t.C:
			}
			t.Stop()
		}
	} else {
		waitErr = <-ended
	}
	if conn.isClosed() {
		return
	}
	msg := fmt.Sprintf("MCP server %q closed unexpectedly", conn.name)
	if waitErr != nil && !errors.Is(waitErr, io.EOF) && !strings.Contains(waitErr.Error(), "EOF") {
		msg += "\n" + waitErr.Error()
	}
	if conn.proc != nil {
		conn.proc.exited(exitSettle)
		if tail := conn.proc.tail.String(); tail != "" {
			msg += "\nstderr: " + tail
		}
	}
	conn.close()
	m.mu.Lock()
	current := srv.attempt == attempt && srv.conn == conn && !m.closed
	if current {
		srv.status, srv.err, srv.conn, srv.tools = StatusFailed, msg, nil, nil
	}
	m.mu.Unlock()
	if current {
		m.log.Error("mcp server closed unexpectedly", "server", conn.name, "error", msg)
		m.publish(conn.name)
	}
}

// toolsChanged re-lists a server's tools after notifications/tools/
// list_changed (tools that arrive late). It runs on its own goroutine: the
// notification handler must not wait for the session it is called from.
func (m *Manager) toolsChanged(name string, conn *connection) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.wg.Add(1)
	m.mu.Unlock()
	go func() { // owned by m: bounded by the startup timeout, and Close cancels it
		defer m.wg.Done()
		m.mu.Lock()
		srv, ok := m.servers[name]
		if !ok || srv.conn != conn {
			conn.changedEarly = true // connect lists again once it settled
			m.mu.Unlock()
			return
		}
		cfg := srv.cfg
		m.mu.Unlock()
		timeout := cfg.StartupTimeout
		if timeout <= 0 {
			timeout = m.o.StartupTimeout
		}
		ctx, cancel := context.WithTimeout(m.root, timeout)
		defer cancel()
		tools, collisions, err := m.listTools(ctx, cfg, conn)
		if err != nil {
			m.log.Warn("mcp tool list refresh failed; keeping the previous tools", "server", name, "error", err)
			return
		}
		m.mu.Lock()
		if srv.conn != conn {
			m.mu.Unlock()
			return
		}
		srv.tools, srv.collisions = tools, collisions
		m.mu.Unlock()
		m.log.Info("mcp tools changed", "server", name, "tools", len(tools))
		m.publish(name)
	}()
}
