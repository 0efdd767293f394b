package acp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/kimigo/kimigo/acp/acptest"

	"github.com/kimigo/kimigo/acp"
	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/llm/scripted"
)

// rig is a data root, a work dir and a configuration whose default model
// "fake" is a loopback fake model server.
type rig struct {
	t    *testing.T
	home string
	work string
	srv  *llmtest.Server
	cfg  *config.Config
}

func newRig(t *testing.T, replies ...llmtest.Reply) *rig {
	t.Helper()
	base := t.TempDir()
	r := &rig{t: t, home: filepath.Join(base, "home"), work: filepath.Join(base, "work"),
		srv: llmtest.FakeChatCompletions(t, replies...)}
	for _, d := range []string{r.home, r.work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r.config(fmt.Sprintf(`default_model = "fake"

[providers.fake]
type = "openai"
base_url = %q

[models.fake]
provider = "fake"
model = "fake-model"
max_context_size = 100000
`, llmtest.ChatBaseURL(r.srv)))
	return r
}

func (r *rig) config(toml string) {
	r.t.Helper()
	if err := os.WriteFile(config.ConfigFile(r.home), []byte(toml), 0o600); err != nil {
		r.t.Fatal(err)
	}
	cfg, warnings, err := config.Load(config.LoadOptions{Home: r.home, Env: config.Env{}})
	if err != nil || len(warnings) > 0 {
		r.t.Fatalf("load config: %v %v", warnings, err)
	}
	r.cfg = cfg
}

// client is the test's ACP client: the SDK's client side over pipes to a
// server running in the test. It records every session/update and
// answers permission requests with answer.
type client struct {
	acptest.NoTerminals
	t    *testing.T
	conn *sdk.ClientSideConnection
	// lines are every line the server wrote, each checked to be JSON-RPC.
	stop func()

	mu sync.Mutex
	// log is what the server wrote, in wire order: "update:<kind>",
	// "permission:<toolCallId>". (The SDK's client runs requests at once
	// and notifications in a queue, so its handlers see another order.)
	log     []string
	updates []sdk.SessionNotification
	perms   []sdk.RequestPermissionRequest
	answer  func(sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error)
	files   map[string]string // the editor's buffers by absolute path
	reads   []string
	writes  []sdk.WriteTextFileRequest
	notify  chan struct{}
}

// connect starts a server for the rig and connects a client to it.
func (r *rig) connect() *client {
	r.t.Helper()
	c2s, toServer := io.Pipe()
	fromServer, s2c := io.Pipe()
	// Every line the server writes must be a JSON-RPC message.
	checked, checkW := io.Pipe()
	c := &client{t: r.t, notify: make(chan struct{}, 1)}
	var checkDone sync.WaitGroup
	checkDone.Add(1)
	go func() {
		defer checkDone.Done()
		sc := bufio.NewScanner(fromServer)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var m struct {
				JSONRPC string `json:"jsonrpc"`
				Method  string `json:"method"`
				Params  struct {
					Update struct {
						SessionUpdate string `json:"sessionUpdate"`
					} `json:"update"`
					ToolCall struct {
						ToolCallID string `json:"toolCallId"`
					} `json:"toolCall"`
				} `json:"params"`
			}
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil || m.JSONRPC != "2.0" {
				r.t.Errorf("server wrote a line that is not JSON-RPC: %q", sc.Text())
			}
			switch m.Method {
			case "session/update":
				c.wire("update:" + m.Params.Update.SessionUpdate)
			case "session/request_permission":
				c.wire("permission:" + m.Params.ToolCall.ToolCallID)
			}
			checkW.Write(append(sc.Bytes(), '\n'))
		}
		checkW.Close()
	}()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- acp.Serve(ctx, acp.Options{Config: r.cfg, Home: r.home, Version: "test", Executable: "/bin/kimigo"}, c2s, s2c)
		s2c.Close()
	}()
	c.answer = func(sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		return selected("approve_once"), nil
	}
	c.conn = sdk.NewClientSideConnection(c, toServer, checked)
	c.conn.SetLogger(slog.New(slog.DiscardHandler))
	stopOnce := func() {
		toServer.Close() // EOF on the server's stdin
		select {
		case err := <-done:
			if err != nil {
				r.t.Errorf("Serve: %v", err)
			}
		case <-time.After(30 * time.Second):
			r.t.Error("the server did not stop after stdin ended")
		}
		cancel()
		checkDone.Wait()
	}
	var once sync.Once
	c.stop = func() { once.Do(stopOnce) }
	r.t.Cleanup(c.stop)
	return c
}

func selected(id string) sdk.RequestPermissionResponse {
	return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{
		Selected: &sdk.RequestPermissionOutcomeSelected{OptionId: sdk.PermissionOptionId(id)}}}
}

func cancelled() sdk.RequestPermissionResponse {
	return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{
		Cancelled: &sdk.RequestPermissionOutcomeCancelled{}}}
}

func (c *client) wire(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.log = append(c.log, s)
	c.signal()
}

func (c *client) signal() {
	select {
	case c.notify <- struct{}{}:
	default:
	}
}

func (c *client) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.updates = append(c.updates, n)
	c.signal()
	return nil
}

func (c *client) RequestPermission(_ context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	c.mu.Lock()
	c.perms = append(c.perms, p)
	c.signal()
	answer := c.answer
	c.mu.Unlock()
	return answer(p)
}

// ReadTextFile serves the editor's buffers (files); a path it lacks is
// "not found".
func (c *client) ReadTextFile(_ context.Context, p sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reads = append(c.reads, p.Path)
	text, ok := c.files[p.Path]
	if !ok {
		return sdk.ReadTextFileResponse{}, &sdk.RequestError{Code: -32002, Message: "Resource not found"}
	}
	return sdk.ReadTextFileResponse{Content: text}, nil
}

func (c *client) WriteTextFile(_ context.Context, p sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes = append(c.writes, p)
	if c.files == nil {
		c.files = map[string]string{}
	}
	c.files[p.Path] = p.Content
	return sdk.WriteTextFileResponse{}, nil
}

// snapshot is what arrived so far.
func (c *client) snapshot() ([]string, []sdk.SessionNotification, []sdk.RequestPermissionRequest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.log...), append([]sdk.SessionNotification(nil), c.updates...),
		append([]sdk.RequestPermissionRequest(nil), c.perms...)
}

// waitFor waits until cond holds for the log.
func (c *client) waitFor(what string, cond func(log []string) bool) {
	c.t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		log, _, _ := c.snapshot()
		if cond(log) {
			return
		}
		select {
		case <-c.notify:
		case <-deadline:
			c.t.Fatalf("timed out waiting for %s; got %q", what, log)
		}
	}
}

func (c *client) initialize() sdk.InitializeResponse {
	c.t.Helper()
	resp, err := c.conn.Initialize(context.Background(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber})
	if err != nil {
		c.t.Fatalf("initialize: %v", err)
	}
	return resp
}

func (c *client) newSession(cwd string) sdk.NewSessionResponse {
	c.t.Helper()
	resp, err := c.conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: cwd, McpServers: []sdk.McpServer{}})
	if err != nil {
		c.t.Fatalf("session/new: %v", err)
	}
	return resp
}

func (c *client) prompt(id sdk.SessionId, text string) (sdk.PromptResponse, error) {
	return c.conn.Prompt(context.Background(), sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
}

// requestError is err's JSON-RPC code and message.
func requestError(err error) (int, string) {
	var re *sdk.RequestError
	if !errors.As(err, &re) {
		return 0, fmt.Sprint(err)
	}
	msg := re.Message
	if d, ok := re.Data.(map[string]any); ok {
		if m, ok := d["message"].(string); ok {
			msg = m
		}
	}
	return re.Code, msg
}

// writeCall is a model reply that says something, then calls Write.
func writeCall(id, path, content string) llmtest.Reply {
	args, _ := json.Marshal(map[string]string{"path": path, "content": content})
	parts := scripted.Text("I will write the file.").Parts
	parts = append(parts, scripted.CallParts(0, scripted.Call{ID: id, Name: "Write", Arguments: string(args)})...)
	return llmtest.Reply{Response: scripted.Response{Parts: parts}}
}

// textOf is the text of a content block.
func textOf(b sdk.ContentBlock) string {
	if b.Text != nil {
		return b.Text.Text
	}
	return ""
}

var _ = llm.TextPart
