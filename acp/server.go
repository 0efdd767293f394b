package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/mcp"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/session"
)

// Options configure a Server: what the command read at the edge.
type Options struct {
	// Config is the loaded configuration. Required.
	Config *config.Config
	// Home is the data root (sessions live under it). Required.
	Home string
	// HomeEnv is the value of KIMIGO_HOME when it is set, for the login
	// entry's environment; "" when unset.
	HomeEnv string
	// UserHome is the user's home directory, for "~" in local.toml.
	UserHome string
	// Sandbox confines the commands of every session (issue 16); each
	// session's cwd is its work dir and its additionalDirectories are
	// writable too. The zero value runs them unconfined.
	Sandbox session.SandboxOptions
	// Executable is the absolute path of this program, for terminal
	// login.
	Executable string
	// Version is kimigo's version.
	Version string
	// Logger receives the server's and the sessions' logs; nil discards.
	Logger *slog.Logger
	// CloseTimeout bounds closing the sessions when the client goes away;
	// 0 means 8 seconds.
	CloseTimeout time.Duration
}

// Server is the ACP agent of one connection: it hosts one session.Session
// per ACP session id, any number at once.
type Server struct {
	o     Options
	store *session.Store
	conn  *sdk.AgentSideConnection
	out   *lineWriter
	log   *slog.Logger
	// ctx lives as long as the connection's sessions: turns run on it, not
	// on a request's context.
	ctx context.Context

	mu       sync.Mutex
	caps     sdk.ClientCapabilities // guarded by mu
	sessions map[string]*live       // guarded by mu: by session id
	closing  bool                   // guarded by mu
}

// Serve answers one client on in/out until in ends or ctx is done, then
// closes every session (a normal close) and returns. Nothing but protocol
// lines is ever written to out.
func Serve(ctx context.Context, o Options, in io.Reader, out io.Writer) error {
	if o.Config == nil || o.Home == "" {
		return errors.New("acp server: no configuration or data root given")
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.CloseTimeout == 0 {
		o.CloseTimeout = 8 * time.Second
	}
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	s := &Server{o: o, log: o.Logger, ctx: sctx, sessions: map[string]*live{},
		store: session.NewStore(session.StoreOptions{Root: o.Home, Logger: o.Logger})}
	s.out = &lineWriter{w: out}
	// The SDK starts reading at once; the first message waits until the
	// connection is in place for the handlers.
	ready := make(chan struct{})
	s.conn = sdk.NewAgentSideConnection(s, s.out, gatedReader{r: in, ready: ready})
	s.conn.SetLogger(o.Logger)
	close(ready)
	select {
	case <-s.conn.Done():
		s.log.Info("acp client disconnected")
	case <-ctx.Done():
		s.log.Info("acp server stopping", "cause", context.Cause(ctx))
	}
	return s.closeAll()
}

// closeAll closes every session, waiting at most CloseTimeout.
func (s *Server) closeAll() error {
	s.mu.Lock()
	s.closing = true
	all := slices.Collect(maps.Values(s.sessions))
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), s.o.CloseTimeout)
	defer cancel()
	var errs []error
	for _, l := range all {
		errs = append(errs, l.close(ctx))
	}
	return errors.Join(errs...)
}

// Initialize implements sdk.Agent (spec 06 §8.2).
func (s *Server) Initialize(_ context.Context, p sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	s.mu.Lock()
	s.caps = p.ClientCapabilities
	s.mu.Unlock()
	env := map[string]any{}
	if s.o.HomeEnv != "" {
		env["KIMIGO_HOME"] = s.o.HomeEnv
	}
	desc := "Configure a model provider for kimigo in a terminal."
	login := &sdk.AuthMethodTerminalInline{Id: loginMethod, Name: "Set up kimigo", Description: &desc,
		Args: []string{"--login"}, Env: env,
		Meta: map[string]any{"terminal-auth": map[string]any{"type": "terminal", "label": "Set up kimigo",
			"command": s.o.Executable, "args": []string{"login"}, "env": env}}}
	return sdk.InitializeResponse{
		ProtocolVersion: sdk.ProtocolVersionNumber,
		AgentCapabilities: sdk.AgentCapabilities{
			LoadSession:        true,
			PromptCapabilities: sdk.PromptCapabilities{Image: true, Audio: false, EmbeddedContext: true},
			McpCapabilities:    sdk.McpCapabilities{Http: true, Sse: true},
			SessionCapabilities: sdk.SessionCapabilities{List: &sdk.SessionListCapabilities{},
				Resume: &sdk.SessionResumeCapabilities{}, AdditionalDirectories: &sdk.SessionAdditionalDirectoriesCapabilities{}},
		},
		AuthMethods: []sdk.AuthMethod{{Terminal: login}},
		AgentInfo:   &sdk.Implementation{Name: "kimigo", Version: s.o.Version},
	}, nil
}

const loginMethod = "login"

// Authenticate implements sdk.Agent (spec 06 §8.3).
func (s *Server) Authenticate(_ context.Context, p sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	if p.MethodId != loginMethod {
		return sdk.AuthenticateResponse{}, invalidParams("Unknown auth method: %s", p.MethodId)
	}
	if _, err := s.model(); err != nil {
		return sdk.AuthenticateResponse{}, authRequired(err)
	}
	return sdk.AuthenticateResponse{}, nil
}

// model is the alias new sessions start with, or why no model is usable:
// the default model when it resolves, else the first configured model
// that does, else the offline model when the configuration names it.
func (s *Server) model() (string, error) {
	c := s.o.Config
	if c.DefaultModel != "" {
		m, err := c.Resolve(c.DefaultModel)
		if err != nil {
			return "", err
		}
		return m.Alias, nil
	}
	for _, alias := range slices.Sorted(maps.Keys(c.Models)) {
		if _, err := c.Resolve(alias); err == nil {
			return alias, nil
		}
	}
	return "", errors.New("no model is configured; run `kimigo acp --login` or set default_model in config.toml")
}

func invalidParams(format string, args ...any) *sdk.RequestError {
	msg := fmt.Sprintf(format, args...)
	return &sdk.RequestError{Code: -32602, Message: msg, Data: map[string]any{"message": msg}}
}

func authRequired(err error) *sdk.RequestError {
	return &sdk.RequestError{Code: -32000, Message: "Authentication required", Data: map[string]any{"message": err.Error()}}
}

func internalError(s *Server, op string, err error) *sdk.RequestError {
	s.log.Error("acp request failed", "op", op, "err", err)
	return &sdk.RequestError{Code: -32603, Message: "Internal error", Data: map[string]any{"message": op + " failed; see the log"}}
}

// checkDirs validates additionalDirectories (spec 06 §8.4).
func checkDirs(dirs []string) error {
	for i, d := range dirs {
		switch {
		case d == "":
			return invalidParams("additionalDirectories[%d] must not be empty", i)
		case !filepath.IsAbs(d):
			return invalidParams("additionalDirectories[%d] must be an absolute path", i)
		}
	}
	return nil
}

// NewSession implements sdk.Agent.
func (s *Server) NewSession(_ context.Context, p sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	l, err := s.open(p.Cwd, "", p.AdditionalDirectories, p.McpServers)
	if err != nil {
		return sdk.NewSessionResponse{}, err
	}
	resp := sdk.NewSessionResponse{SessionId: sdk.SessionId(l.id), ConfigOptions: l.configOptions()}
	s.afterResponse(resp, l.sendCommands)
	return resp, nil
}

// LoadSession implements sdk.AgentLoader: the history is replayed before
// the response.
func (s *Server) LoadSession(ctx context.Context, p sdk.LoadSessionRequest) (sdk.LoadSessionResponse, error) {
	l, err := s.open(p.Cwd, string(p.SessionId), p.AdditionalDirectories, p.McpServers)
	if err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	l.replay(ctx)
	resp := sdk.LoadSessionResponse{ConfigOptions: l.configOptions()}
	s.afterResponse(resp, l.sendCommands)
	return resp, nil
}

// ResumeSession implements sdk.Agent: a load without the replay.
func (s *Server) ResumeSession(_ context.Context, p sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	l, err := s.open(p.Cwd, string(p.SessionId), p.AdditionalDirectories, p.McpServers)
	if err != nil {
		return sdk.ResumeSessionResponse{}, err
	}
	resp := sdk.ResumeSessionResponse{ConfigOptions: l.configOptions()}
	s.afterResponse(resp, l.sendCommands)
	return resp, nil
}

// open opens a new session (id "") or resumes one, or finds it already
// open in this process.
func (s *Server) open(cwd, id string, dirs []string, servers []sdk.McpServer) (*live, error) {
	if !filepath.IsAbs(cwd) {
		return nil, invalidParams("cwd must be an absolute path: %q", cwd)
	}
	if err := checkDirs(dirs); err != nil {
		return nil, err
	}
	alias, err := s.model()
	if err != nil {
		return nil, authRequired(err)
	}
	if id != "" {
		s.mu.Lock()
		l := s.sessions[id]
		s.mu.Unlock()
		if l != nil {
			return l, nil
		}
		alias = "" // a resumed session keeps its model
	}
	callers := mcpServers(servers, s.log)
	var bridge *fsBridge
	var textFiles osenv.Env
	if caps := s.clientCaps().Fs; caps.ReadTextFile || caps.WriteTextFile {
		local := osenv.NewLocal(osenv.LocalOptions{Cwd: filepath.Clean(cwd)})
		bridge = newFSBridge(local, s.conn, caps, append([]string{cwd}, dirs...))
		textFiles = bridge
	}
	sess, err := session.Open(s.ctx, session.Options{Config: s.o.Config, Store: s.store, WorkDir: filepath.Clean(cwd),
		UserHome: s.o.UserHome, Resume: id, Model: alias, AddDirs: dirs, Requests: session.Answered, TextFiles: textFiles,
		MCPServers: callers, Sandbox: s.o.Sandbox,
		Version: s.o.Version, Logger: s.log,
		Notify: func(n session.Notice) { s.log.Info("session notice", "text", n.Text, "warning", n.Warning) }})
	var se *session.Error
	switch {
	case errors.As(err, &se) && (se.Code == session.CodeNotFound || se.Code == session.CodeIDInvalid):
		return nil, invalidParams("Unknown sessionId: %s", id)
	case errors.As(err, &se) && se.Code == session.CodeWorkDirMismatch:
		return nil, invalidParams("session %s belongs to %s, not %s", id, se.WorkDir, cwd)
	case err != nil:
		return nil, internalError(s, "open session", err)
	}
	if bridge != nil { // before the first tool call: the saved directories count too
		bridge.b.roots = nil
		for _, r := range append([]string{sess.WorkDir()}, sess.AdditionalDirs()...) {
			bridge.b.roots = append(bridge.b.roots, resolve(r))
		}
		bridge.b.setID(sess.ID())
	}
	l := newLive(s, sess)
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		_ = sess.Close(context.Background())
		return nil, internalError(s, "open session", errors.New("the server is shutting down"))
	}
	s.sessions[l.id] = l
	s.mu.Unlock()
	return l, nil
}

// get is the open session id, or an invalid-params error naming it.
func (s *Server) get(id sdk.SessionId) (*live, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.sessions[string(id)]
	if l == nil {
		return nil, invalidParams("Unknown sessionId: %s", id)
	}
	return l, nil
}

// ListSessions implements sdk.Agent.
func (s *Server) ListSessions(_ context.Context, p sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	opts := session.ListOptions{}
	if p.Cwd != nil {
		opts.WorkDir = *p.Cwd
	}
	sums, err := s.store.List(opts)
	if err != nil {
		return sdk.ListSessionsResponse{}, internalError(s, "list sessions", err)
	}
	out := sdk.ListSessionsResponse{Sessions: []sdk.SessionInfo{}}
	for _, sum := range sums {
		info := sdk.SessionInfo{SessionId: sdk.SessionId(sum.ID), Cwd: sum.WorkDir}
		if sum.Title != "" {
			info.Title = sdk.Ptr(sum.Title)
		}
		if !sum.UpdatedAt.IsZero() {
			info.UpdatedAt = sdk.Ptr(sum.UpdatedAt.UTC().Format("2006-01-02T15:04:05.000Z"))
		}
		out.Sessions = append(out.Sessions, info)
	}
	return out, nil
}

// Prompt implements sdk.Agent (spec 06 §8.5).
func (s *Server) Prompt(_ context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	l, err := s.get(p.SessionId)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	return l.prompt(p.Prompt)
}

// Cancel implements sdk.Agent: it cancels the running turn, or a prompt
// still preparing its input. An unknown session is only logged.
func (s *Server) Cancel(_ context.Context, p sdk.CancelNotification) error {
	l, err := s.get(p.SessionId)
	if err != nil {
		s.log.Warn("acp: cancel for an unknown session", "session_id", p.SessionId)
		return nil
	}
	l.cancel()
	return nil
}

// SetSessionMode implements sdk.Agent.
func (s *Server) SetSessionMode(ctx context.Context, p sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	l, err := s.get(p.SessionId)
	if err != nil {
		return sdk.SetSessionModeResponse{}, err
	}
	if err := l.setMode(ctx, string(p.ModeId)); err != nil {
		return sdk.SetSessionModeResponse{}, err
	}
	return sdk.SetSessionModeResponse{}, nil
}

// SetSessionConfigOption implements sdk.Agent (spec 06 §8.10).
func (s *Server) SetSessionConfigOption(ctx context.Context, p sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	v := p.ValueId
	if v == nil {
		return sdk.SetSessionConfigOptionResponse{}, invalidParams("only select options are supported")
	}
	l, err := s.get(v.SessionId)
	if err != nil {
		return sdk.SetSessionConfigOptionResponse{}, err
	}
	switch v.ConfigId {
	case "mode":
		err = l.setMode(ctx, string(v.Value))
	case "model":
		err = l.setModel(ctx, string(v.Value), false)
	case "thinking":
		err = l.setThinking(ctx, string(v.Value))
	default:
		return sdk.SetSessionConfigOptionResponse{}, invalidParams("Unknown configId: %s", v.ConfigId)
	}
	if err != nil {
		return sdk.SetSessionConfigOptionResponse{}, err
	}
	return sdk.SetSessionConfigOptionResponse{ConfigOptions: l.configOptions()}, nil
}

// UnstableSetSessionModel is session/set_model (unstable): the model
// config option; a "<alias>,thinking" id of legacy clients names the
// alias and turns its thinking on at the model's default effort.
func (s *Server) UnstableSetSessionModel(ctx context.Context, p sdk.UnstableSetSessionModelRequest) (sdk.UnstableSetSessionModelResponse, error) {
	l, err := s.get(p.SessionId)
	if err != nil {
		return sdk.UnstableSetSessionModelResponse{}, err
	}
	alias, thinking := strings.CutSuffix(string(p.ModelId), ",thinking")
	if err := l.setModel(ctx, alias, thinking); err != nil {
		return sdk.UnstableSetSessionModelResponse{}, err
	}
	return sdk.UnstableSetSessionModelResponse{}, nil
}

// CloseSession implements sdk.Agent: not offered (method not found).
func (s *Server) CloseSession(context.Context, sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	return sdk.CloseSessionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionClose)
}

// afterResponse runs fn once the response resp has been written: the
// available commands follow the session/new, load and resume responses
// (spec 06 §8.11).
func (s *Server) afterResponse(resp any, fn func()) {
	b, err := json.Marshal(resp)
	if err != nil {
		go fn()
		return
	}
	s.out.after(append([]byte(`"result":`), b...), fn)
}

func (s *Server) clientCaps() sdk.ClientCapabilities {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.caps
}

// mcpServers are the client's MCP servers as the session's (spec 06
// §8.9); an entry of another type is dropped with a warning.
func mcpServers(in []sdk.McpServer, log *slog.Logger) []mcp.Server {
	var out []mcp.Server
	for _, m := range in {
		switch {
		case m.Stdio != nil:
			env := map[string]string{}
			for _, e := range m.Stdio.Env {
				env[e.Name] = e.Value
			}
			out = append(out, mcp.Server{Name: m.Stdio.Name, Transport: mcp.TransportStdio, Command: m.Stdio.Command,
				Args: m.Stdio.Args, Env: env, Source: mcp.SourceCaller, Trusted: true})
		case m.Http != nil:
			out = append(out, mcp.Server{Name: m.Http.Name, Transport: mcp.TransportHTTP, URL: m.Http.Url,
				Headers: headers(m.Http.Headers), Source: mcp.SourceCaller, Trusted: true})
		case m.Sse != nil:
			out = append(out, mcp.Server{Name: m.Sse.Name, Transport: mcp.TransportSSE, URL: m.Sse.Url,
				Headers: headers(m.Sse.Headers), Source: mcp.SourceCaller, Trusted: true})
		default:
			log.Warn("acp: an MCP server of an unsupported type is ignored")
		}
	}
	return out
}

func headers(hs []sdk.HttpHeader) map[string]string {
	out := map[string]string{}
	for _, h := range hs {
		out[h.Name] = h.Value
	}
	return out
}

// gatedReader reads nothing until ready is closed.
type gatedReader struct {
	r     io.Reader
	ready <-chan struct{}
}

func (g gatedReader) Read(p []byte) (int, error) {
	<-g.ready
	return g.r.Read(p)
}
