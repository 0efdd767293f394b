// Package mcptest holds MCP servers for tests: a scriptable server built
// on the official Go SDK that a test runs as a real child process over
// stdio (the test binary re-executes itself; see Serve), or in process
// over streamable HTTP and SSE. Its tools echo, sleep (and record the
// cancellation they receive), crash the process mid-call, return images,
// huge text or structured content, and arrive late with
// notifications/tools/list_changed. Servers that misbehave at the protocol
// level (hang on tools/list, die during initialize, log to stdout, send an
// invalid schema) are there too.
//
// Guarded by the mcp package's tests, which run every behaviour.
package mcptest

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kimigo/kimigo/mcp"
)

// envSpec carries a server's Spec to the re-executed test binary.
const envSpec = "KIMIGO_MCPTEST_SPEC"

// Spec is what a test server does.
type Spec struct {
	// Tools are listed from the start.
	Tools []Tool `json:"tools,omitempty"`
	// LateTools are added after the first tools/list, with
	// notifications/tools/list_changed.
	LateTools []Tool `json:"lateTools,omitempty"`
	// Stderr is written to stderr at start.
	Stderr string `json:"stderr,omitempty"`
	// ExitAtStart exits with status 1 before reading anything.
	ExitAtStart bool `json:"exitAtStart,omitempty"`
	// HangListTools never answers tools/list.
	HangListTools bool `json:"hangListTools,omitempty"`
	// StdoutNoise writes a line that is not JSON to stdout first.
	StdoutNoise bool `json:"stdoutNoise,omitempty"`
	// BadSchemaTool lists a tool whose inputSchema is not an object.
	BadSchemaTool string `json:"badSchemaTool,omitempty"`
	// Barrier, when set, is a directory: before serving, the server
	// creates a file there named after Name and waits until BarrierCount
	// files exist — servers started one after another would wait forever.
	Barrier      string `json:"barrier,omitempty"`
	BarrierCount int    `json:"barrierCount,omitempty"`
	// StartDelay makes the server slow to start: it waits this long
	// before it reads anything.
	StartDelay time.Duration `json:"startDelay,omitempty"`
	// Name is the server's name in files it writes.
	Name string `json:"name,omitempty"`
}

// Tool is one tool of a test server.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Schema      json.RawMessage `json:"schema,omitempty"` // default: an object with an optional "text" string
	// Echo replies with the "text" argument.
	Echo bool `json:"echo,omitempty"`
	// Text is the reply; RepeatText repeats it.
	Text       string `json:"text,omitempty"`
	RepeatText int    `json:"repeatText,omitempty"`
	// Image replies with only a PNG image.
	Image bool `json:"image,omitempty"`
	// Structured is added as structuredContent.
	Structured json.RawMessage `json:"structured,omitempty"`
	IsError    bool            `json:"isError,omitempty"`
	// Sleep waits before replying; when the call is cancelled meanwhile
	// the server writes CancelledFile.
	Sleep         time.Duration `json:"sleep,omitempty"`
	CancelledFile string        `json:"cancelledFile,omitempty"`
	// StartedFile is written when a call starts.
	StartedFile string `json:"startedFile,omitempty"`
	// Crash writes CrashStderr to stderr and exits with status 1 while
	// handling the call.
	Crash       bool   `json:"crash,omitempty"`
	CrashStderr string `json:"crashStderr,omitempty"`
}

// DefaultSchema is a tool schema with one optional string, "text".
const DefaultSchema = `{"type":"object","properties":{"text":{"type":"string","description":"what to say"}},"additionalProperties":false}`

// TinyPNG is a 1×1 PNG image.
var TinyPNG, _ = base64.StdEncoding.DecodeString(
	"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")

// Serve runs the test server a Spec in the environment asks for, on stdin
// and stdout, and exits; without one it returns at once. Call it first in
// TestMain of a package that uses Stdio.
func Serve() {
	raw := os.Getenv(envSpec)
	if raw == "" {
		return
	}
	var s Spec
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		fmt.Fprintln(os.Stderr, "mcptest: bad spec:", err)
		os.Exit(2)
	}
	os.Exit(s.serveStdio())
}

// Stdio returns the configuration of a stdio server name that runs spec
// in a child process (the test binary, re-executed). The package's
// TestMain must call Serve.
func Stdio(t testing.TB, name string, spec Spec) mcp.Server {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if spec.Name == "" {
		spec.Name = name
	}
	b, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	return mcp.Server{Name: name, Transport: mcp.TransportStdio, Command: exe, Args: []string{"-test.run=^$"},
		Env: map[string]string{envSpec: string(b)}, Source: mcp.SourceUser, Trusted: true}
}

func (s Spec) serveStdio() int {
	if s.Stderr != "" {
		fmt.Fprint(os.Stderr, s.Stderr)
	}
	if s.ExitAtStart {
		return 1
	}
	if s.StartDelay > 0 {
		time.Sleep(s.StartDelay) // the slow start is the behaviour under test
	}
	if s.StdoutNoise {
		fmt.Fprintln(os.Stdout, "starting up, this line is not JSON")
	}
	if s.Barrier != "" {
		s.waitBarrier()
	}
	if s.BadSchemaTool != "" {
		return serveRawBadSchema(s.BadSchemaTool)
	}
	srv := s.server()
	if err := srv.Run(context.Background(), &sdk.StdioTransport{}); err != nil && !strings.Contains(err.Error(), "EOF") {
		fmt.Fprintln(os.Stderr, "mcptest:", err)
	}
	return 0
}

func (s Spec) waitBarrier() {
	_ = os.WriteFile(filepath.Join(s.Barrier, s.Name), nil, 0o644)
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for range tick.C {
		entries, _ := os.ReadDir(s.Barrier)
		if len(entries) >= s.BarrierCount {
			return
		}
	}
}

// server builds the SDK server of s.
func (s Spec) server() *sdk.Server {
	srv := sdk.NewServer(&sdk.Implementation{Name: "mcptest-" + s.Name, Version: "1"},
		&sdk.ServerOptions{Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{ListChanged: true}}})
	for _, t := range s.Tools {
		addTool(srv, t)
	}
	var once sync.Once
	srv.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			if method == "tools/list" && s.HangListTools {
				<-ctx.Done()
				return nil, ctx.Err()
			}
			res, err := next(ctx, method, req)
			if method == "tools/list" && len(s.LateTools) > 0 {
				once.Do(func() {
					go func() { // adding a tool notifies the client
						for _, t := range s.LateTools {
							addTool(srv, t)
						}
					}()
				})
			}
			return res, err
		}
	})
	return srv
}

func addTool(srv *sdk.Server, t Tool) {
	schema := t.Schema
	if len(schema) == 0 {
		schema = json.RawMessage(DefaultSchema)
	}
	srv.AddTool(&sdk.Tool{Name: t.Name, Description: t.Description, InputSchema: schema},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return t.call(ctx, req)
		})
}

func (t Tool) call(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	if t.StartedFile != "" {
		_ = os.WriteFile(t.StartedFile, nil, 0o644)
	}
	if t.Crash {
		fmt.Fprint(os.Stderr, t.CrashStderr)
		os.Exit(1)
	}
	if t.Sleep > 0 {
		timer := time.NewTimer(t.Sleep)
		select {
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
			if t.CancelledFile != "" {
				_ = os.WriteFile(t.CancelledFile, []byte("cancelled"), 0o644)
			}
			return nil, ctx.Err()
		}
	}
	res := &sdk.CallToolResult{IsError: t.IsError}
	switch {
	case t.Echo:
		var args struct {
			Text string `json:"text"`
		}
		_ = json.Unmarshal(req.Params.Arguments, &args)
		res.Content = []sdk.Content{&sdk.TextContent{Text: args.Text}}
	case t.Image:
		res.Content = []sdk.Content{&sdk.ImageContent{Data: TinyPNG, MIMEType: "image/png"}}
	case t.Text != "":
		res.Content = []sdk.Content{&sdk.TextContent{Text: strings.Repeat(t.Text, max(1, t.RepeatText))}}
	}
	if len(t.Structured) > 0 {
		var v any
		_ = json.Unmarshal(t.Structured, &v)
		res.StructuredContent = v
	}
	return res, nil
}

// serveRawBadSchema speaks just enough JSON-RPC by hand to list a tool
// whose inputSchema is a string, which the SDK's server would refuse.
func serveRawBadSchema(tool string) int {
	dec := json.NewDecoder(os.Stdin)
	enc := json.NewEncoder(os.Stdout)
	for {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"params"`
		}
		if err := dec.Decode(&msg); err != nil {
			return 0
		}
		if len(msg.ID) == 0 {
			continue // a notification
		}
		var result any
		switch msg.Method {
		case "initialize":
			result = map[string]any{"protocolVersion": msg.Params.ProtocolVersion,
				"capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo":   map[string]any{"name": "raw", "version": "1"}}
		case "tools/list":
			result = map[string]any{"tools": []any{map[string]any{"name": tool, "inputSchema": "not an object"}}}
		default:
			_ = enc.Encode(map[string]any{"jsonrpc": "2.0", "id": msg.ID,
				"error": map[string]any{"code": -32601, "message": "method not found"}})
			continue
		}
		_ = enc.Encode(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": result})
	}
}

// HTTP serves spec over streamable HTTP in process; the server ends with
// the test. Each client session gets a fresh server.
func HTTP(t testing.TB, spec Spec) *httptest.Server {
	t.Helper()
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return spec.server() }, nil)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// SSE serves spec over the older HTTP+SSE transport in process.
func SSE(t testing.TB, spec Spec) *httptest.Server {
	t.Helper()
	h := sdk.NewSSEHandler(func(*http.Request) *sdk.Server { return spec.server() }, nil)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}
