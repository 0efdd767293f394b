package acp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/mcp/mcptest"
)

func TestScenario59Initialize(t *testing.T) {
	c := newRig(t).connect()
	resp := c.initialize()
	b, _ := json.Marshal(resp)
	var got struct {
		ProtocolVersion   int `json:"protocolVersion"`
		AgentCapabilities struct {
			LoadSession        bool            `json:"loadSession"`
			PromptCapabilities map[string]bool `json:"promptCapabilities"`
			McpCapabilities    map[string]bool `json:"mcpCapabilities"`
			SessionCaps        map[string]any  `json:"sessionCapabilities"`
		} `json:"agentCapabilities"`
		AuthMethods []struct {
			ID   string   `json:"id"`
			Type string   `json:"type"`
			Args []string `json:"args"`
			Meta map[string]struct {
				Command string   `json:"command"`
				Args    []string `json:"args"`
			} `json:"_meta"`
		} `json:"authMethods"`
		AgentInfo struct{ Name string } `json:"agentInfo"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	caps := got.AgentCapabilities
	if got.ProtocolVersion != 1 || !caps.LoadSession || !caps.PromptCapabilities["image"] || caps.PromptCapabilities["audio"] ||
		!caps.PromptCapabilities["embeddedContext"] || !caps.McpCapabilities["http"] || !caps.McpCapabilities["sse"] ||
		caps.SessionCaps["list"] == nil || caps.SessionCaps["resume"] == nil || got.AgentInfo.Name != "kimigo" {
		t.Errorf("initialize: %s", b)
	}
	if len(got.AuthMethods) != 1 || got.AuthMethods[0].ID != "login" || got.AuthMethods[0].Type != "terminal" ||
		!slices.Equal(got.AuthMethods[0].Args, []string{"--login"}) ||
		got.AuthMethods[0].Meta["terminal-auth"].Command != "/bin/kimigo" {
		t.Errorf("auth methods: %s", b)
	}
}

// promptWrite runs scenario 60's flow with the client answering answer,
// and returns the session id and what the client saw.
func promptWrite(t *testing.T, r *rig, c *client, answer string) (sdk.SessionId, sdk.PromptResponse) {
	t.Helper()
	c.answer = func(sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		return selected(answer), nil
	}
	c.initialize()
	ns := c.newSession(r.work)
	resp, err := c.prompt(ns.SessionId, "create b.txt")
	if err != nil {
		t.Fatalf("prompt: %v", err)
	}
	return ns.SessionId, resp
}

func TestScenario60NewPromptPermissionResult(t *testing.T) {
	r := newRig(t, writeCall("call_1", "b.txt", "hi"), llmtest.Text("Created b.txt."))
	c := r.connect()
	c.initialize()
	ns := c.newSession(r.work)
	if !strings.HasPrefix(string(ns.SessionId), "session_") && ns.SessionId == "" {
		t.Fatalf("session id %q", ns.SessionId)
	}
	opts, _ := json.Marshal(ns.ConfigOptions)
	var options []struct{ ID, CurrentValue string }
	json.Unmarshal(opts, &options)
	if len(options) != 2 || options[0].ID != "model" || options[0].CurrentValue != "fake" ||
		options[1].ID != "mode" || options[1].CurrentValue != "default" {
		t.Errorf("configOptions: %s", opts)
	}
	c.waitFor("available commands", func(log []string) bool { return slices.Contains(log, "update:available_commands_update") })

	resp, err := c.prompt(ns.SessionId, "create b.txt")
	if err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %v %v", resp, err)
	}
	log, updates, perms := c.snapshot()
	// In order: message chunks, the call, the permission request, the
	// call's update with its input, the completed update, more chunks.
	order := []string{"update:agent_message_chunk", "update:tool_call", "permission:1:call_1", "update:tool_call_update",
		"update:tool_call_update", "update:agent_message_chunk"}
	at := 0
	for _, l := range log {
		if at < len(order) && l == order[at] {
			at++
		}
	}
	if at != len(order) {
		t.Errorf("updates out of order: %q", log)
	}
	if len(perms) != 1 {
		t.Fatalf("permission requests: %d", len(perms))
	}
	var ids []string
	for _, o := range perms[0].Options {
		ids = append(ids, string(o.OptionId))
	}
	if !slices.Equal(ids, []string{"approve_once", "approve_always", "reject"}) || perms[0].ToolCall.ToolCallId != "1:call_1" {
		t.Errorf("permission request: %+v", perms[0])
	}
	var created, completed, after bool
	var text strings.Builder
	for _, u := range updates {
		switch {
		case u.Update.ToolCall != nil && u.Update.ToolCall.ToolCallId == "1:call_1":
			created = u.Update.ToolCall.Kind == sdk.ToolKindEdit
		case u.Update.ToolCallUpdate != nil && u.Update.ToolCallUpdate.Status != nil &&
			*u.Update.ToolCallUpdate.Status == sdk.ToolCallStatusCompleted:
			completed = true
		case u.Update.AgentMessageChunk != nil:
			text.WriteString(textOf(u.Update.AgentMessageChunk.Content))
			after = after || completed
		}
	}
	if !created || !completed || !after || !strings.Contains(text.String(), "Created b.txt.") {
		t.Errorf("created %v completed %v chunks after %v text %q", created, completed, after, text.String())
	}
	if b, err := os.ReadFile(filepath.Join(r.work, "b.txt")); err != nil || string(b) != "hi" {
		t.Errorf("b.txt: %q %v", b, err)
	}
}

func TestScenario61RejectAndFailingClient(t *testing.T) {
	t.Run("reject", func(t *testing.T) {
		r := newRig(t, writeCall("call_1", "b.txt", "hi"), llmtest.Text("Understood."))
		c := r.connect()
		_, resp := promptWrite(t, r, c, "reject")
		if resp.StopReason != sdk.StopReasonEndTurn {
			t.Errorf("stop reason %q", resp.StopReason)
		}
		rejected(t, r, c)
	})
	t.Run("client error", func(t *testing.T) {
		r := newRig(t, writeCall("call_1", "b.txt", "hi"), llmtest.Text("Understood."))
		c := r.connect()
		c.initialize()
		c.answer = func(sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
			return sdk.RequestPermissionResponse{}, errors.New("the editor crashed")
		}
		ns := c.newSession(r.work)
		if resp, err := c.prompt(ns.SessionId, "create b.txt"); err != nil || resp.StopReason != sdk.StopReasonEndTurn {
			t.Fatalf("prompt: %v %v", resp, err)
		}
		rejected(t, r, c)
	})
}

// rejected checks that the Write did not run, its update failed, and the
// model heard why.
func rejected(t *testing.T, r *rig, c *client) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(r.work, "b.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("b.txt was written: %v", err)
	}
	_, updates, _ := c.snapshot()
	failed := false
	for _, u := range updates {
		if tu := u.Update.ToolCallUpdate; tu != nil && tu.Status != nil && *tu.Status == sdk.ToolCallStatusFailed {
			failed = true
		}
	}
	if !failed {
		t.Error("no failed tool_call_update")
	}
	if n := len(r.srv.Requests()); n != 2 {
		t.Fatalf("model requests: %d", n)
	}
	if body := string(r.srv.Request(1).Body); !strings.Contains(strings.ToLower(body), "reject") &&
		!strings.Contains(strings.ToLower(body), "denied") {
		t.Errorf("the second request does not carry the rejection:\n%.2000s", body)
	}
}

func TestScenario62Cancel(t *testing.T) {
	t.Run("slow stream", func(t *testing.T) {
		gate := llmtest.NewGate()
		t.Cleanup(gate.Release)
		slow := llmtest.Text("a long answer")
		slow.Fault.Hold, slow.Fault.HoldAfter = gate, 1
		r := newRig(t, slow, llmtest.Text("second"))
		c := r.connect()
		c.initialize()
		ns := c.newSession(r.work)
		type result struct {
			resp sdk.PromptResponse
			err  error
		}
		first := make(chan result, 1)
		go func() {
			resp, err := c.prompt(ns.SessionId, "go")
			first <- result{resp, err}
		}()
		<-gate.Reached()
		// A second prompt while the first runs is refused and does not
		// cancel the first.
		_, err := c.prompt(ns.SessionId, "again")
		if code, _ := requestError(err); code != -32600 {
			t.Errorf("second prompt: %v", err)
		}
		select {
		case res := <-first:
			t.Fatalf("the first prompt ended with the second: %+v %v", res.resp, res.err)
		default:
		}
		if err := c.conn.Cancel(context.Background(), sdk.CancelNotification{SessionId: ns.SessionId}); err != nil {
			t.Fatal(err)
		}
		res := <-first
		if res.err != nil || res.resp.StopReason != sdk.StopReasonCancelled {
			t.Errorf("cancelled prompt: %+v %v", res.resp, res.err)
		}
		// The session takes the next prompt.
		if resp, err := c.prompt(ns.SessionId, "next"); err != nil || resp.StopReason != sdk.StopReasonEndTurn {
			t.Errorf("next prompt: %+v %v", resp, err)
		}
	})
	t.Run("pending permission", func(t *testing.T) {
		r := newRig(t, writeCall("call_1", "b.txt", "hi"), llmtest.Text("ok"))
		c := r.connect()
		c.initialize()
		ns := c.newSession(r.work)
		asked := make(chan struct{})
		c.answer = func(p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
			close(asked)
			if err := c.conn.Cancel(context.Background(), sdk.CancelNotification{SessionId: ns.SessionId}); err != nil {
				t.Error(err)
			}
			return cancelled(), nil
		}
		resp, err := c.prompt(ns.SessionId, "create b.txt")
		<-asked
		if err != nil || resp.StopReason != sdk.StopReasonCancelled {
			t.Errorf("prompt: %+v %v", resp, err)
		}
		if _, err := os.Stat(filepath.Join(r.work, "b.txt")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("b.txt was written: %v", err)
		}
	})
}

// Two sessions of one process prompt at once; cancelling one leaves the
// other alone.
func TestTwoSessionsOneCancelled(t *testing.T) {
	gate := llmtest.NewGate()
	t.Cleanup(gate.Release)
	r := newRig(t)
	r.srv.Respond(func(req *llmtest.Request) llmtest.Reply {
		if strings.Contains(string(req.Body), "slow one") {
			slow := llmtest.Text("never")
			slow.Fault.Hold, slow.Fault.HoldAfter = gate, 1
			return slow
		}
		return llmtest.Text("fast answer")
	})
	c := r.connect()
	c.initialize()
	a, b := c.newSession(r.work), c.newSession(r.work)
	if a.SessionId == b.SessionId {
		t.Fatal("one id for two sessions")
	}
	slow := make(chan sdk.PromptResponse, 1)
	go func() {
		resp, err := c.prompt(a.SessionId, "slow one")
		if err != nil {
			t.Error(err)
		}
		slow <- resp
	}()
	<-gate.Reached()
	fast := make(chan sdk.PromptResponse, 1)
	go func() {
		resp, err := c.prompt(b.SessionId, "fast one")
		if err != nil {
			t.Error(err)
		}
		fast <- resp
	}()
	c.conn.Cancel(context.Background(), sdk.CancelNotification{SessionId: a.SessionId})
	if resp := <-slow; resp.StopReason != sdk.StopReasonCancelled {
		t.Errorf("cancelled session: %q", resp.StopReason)
	}
	if resp := <-fast; resp.StopReason != sdk.StopReasonEndTurn {
		t.Errorf("other session: %q", resp.StopReason)
	}
}

func TestScenario64LoadListAndErrors(t *testing.T) {
	r := newRig(t, writeCall("call_1", "b.txt", "hi"), llmtest.Text("Created b.txt."))
	first := r.connect()
	id, _ := promptWrite(t, r, first, "approve_once")
	first.stop()

	c := r.connect()
	c.initialize()
	cwd := r.work
	list, err := c.conn.ListSessions(context.Background(), sdk.ListSessionsRequest{Cwd: &cwd})
	if err != nil || len(list.Sessions) != 1 || list.Sessions[0].SessionId != id || list.Sessions[0].Cwd != r.work ||
		list.Sessions[0].UpdatedAt == nil || !strings.HasSuffix(*list.Sessions[0].UpdatedAt, "Z") {
		t.Fatalf("session/list: %+v %v", list, err)
	}
	if _, err := c.conn.LoadSession(context.Background(), sdk.LoadSessionRequest{SessionId: id, Cwd: r.work, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatalf("session/load: %v", err)
	}
	// The replay arrived before the response.
	_, updates, _ := c.snapshot()
	var got []string
	for _, u := range updates {
		switch {
		case u.Update.UserMessageChunk != nil:
			got = append(got, "user:"+textOf(u.Update.UserMessageChunk.Content))
		case u.Update.ToolCall != nil:
			got = append(got, "call:"+string(u.Update.ToolCall.ToolCallId))
		case u.Update.ToolCallUpdate != nil && u.Update.ToolCallUpdate.Status != nil:
			got = append(got, "result:"+string(*u.Update.ToolCallUpdate.Status))
		case u.Update.AgentMessageChunk != nil:
			got = append(got, "agent")
		}
	}
	want := []string{"user:create b.txt", "agent", "call:1:call_1", "result:completed", "agent"}
	if !slices.Equal(got, want) {
		t.Errorf("replay: got %q, want %q", got, want)
	}

	_, err = c.conn.LoadSession(context.Background(), sdk.LoadSessionRequest{SessionId: "session_nope", Cwd: r.work, McpServers: []sdk.McpServer{}})
	if code, msg := requestError(err); code != -32602 || msg != "Unknown sessionId: session_nope" {
		t.Errorf("load of an unknown id: %d %q", code, msg)
	}
	_, err = c.conn.Authenticate(context.Background(), sdk.AuthenticateRequest{MethodId: "x"})
	if code, msg := requestError(err); code != -32602 || msg != "Unknown auth method: x" {
		t.Errorf("authenticate x: %d %q", code, msg)
	}
	if _, err := c.conn.Authenticate(context.Background(), sdk.AuthenticateRequest{MethodId: "login"}); err != nil {
		t.Errorf("authenticate login: %v", err)
	}
}

func TestScenario64NoModelIsAuthRequired(t *testing.T) {
	r := newRig(t)
	r.config("")
	c := r.connect()
	c.initialize()
	_, err := c.conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: r.work, McpServers: []sdk.McpServer{}})
	if code, _ := requestError(err); code != -32000 {
		t.Errorf("session/new without a model: %v", err)
	}
	_, err = c.conn.Authenticate(context.Background(), sdk.AuthenticateRequest{MethodId: "login"})
	if code, _ := requestError(err); code != -32000 {
		t.Errorf("authenticate without a model: %v", err)
	}
}

// modeOf is the mode in the last config_option_update.
func modeOf(c *client) string {
	_, updates, _ := c.snapshot()
	mode := ""
	for _, u := range updates {
		if u.Update.ConfigOptionUpdate != nil {
			for _, o := range u.Update.ConfigOptionUpdate.ConfigOptions {
				if o.Select != nil && o.Select.Id == "mode" {
					mode = string(o.Select.CurrentValue)
				}
			}
		}
	}
	return mode
}

func TestScenario65ModesAndConfigOptions(t *testing.T) {
	r := newRig(t, writeCall("call_1", "b.txt", "hi"), llmtest.Text("I cannot write in plan mode."),
		writeCall("call_2", "b.txt", "hi"), llmtest.Text("done"))
	c := r.connect()
	c.initialize()
	ns := c.newSession(r.work)
	setMode := func(id string) {
		t.Helper()
		if _, err := c.conn.SetSessionMode(context.Background(), sdk.SetSessionModeRequest{SessionId: ns.SessionId, ModeId: sdk.SessionModeId(id)}); err != nil {
			t.Fatalf("set_mode %s: %v", id, err)
		}
		if got := modeOf(c); got != id {
			t.Errorf("config_option_update mode = %q, want %q", got, id)
		}
	}
	// Plan mode refuses the Write.
	setMode("plan")
	if resp, err := c.prompt(ns.SessionId, "create b.txt"); err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %v %v", resp, err)
	}
	if _, err := os.Stat(filepath.Join(r.work, "b.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("plan mode let the Write through: %v", err)
	}
	if body := strings.ToLower(string(r.srv.Request(1).Body)); !strings.Contains(body, "plan mode") {
		t.Errorf("the model did not hear that plan mode refused the Write:\n%.2000s", body[max(0, len(body)-2000):])
	}
	// Auto mode, out of plan mode, writes without asking.
	setMode("auto")
	if resp, err := c.prompt(ns.SessionId, "create b.txt"); err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %v %v", resp, err)
	}
	if _, _, perms := c.snapshot(); len(perms) != 0 {
		t.Errorf("auto mode asked: %+v", perms)
	}
	if b, err := os.ReadFile(filepath.Join(r.work, "b.txt")); err != nil || string(b) != "hi" {
		t.Errorf("b.txt: %q %v", b, err)
	}
	// Re-asserting the current mode still sends an update.
	setMode("auto")

	_, err := c.conn.SetSessionMode(context.Background(), sdk.SetSessionModeRequest{SessionId: ns.SessionId, ModeId: "bogus"})
	if code, msg := requestError(err); code != -32602 || msg != "Unknown sessionModeId: bogus" {
		t.Errorf("bogus mode: %d %q", code, msg)
	}
	resp, err := c.conn.SetSessionConfigOption(context.Background(), sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{
		SessionId: ns.SessionId, ConfigId: "foo", Value: "x"}})
	if code, msg := requestError(err); code != -32602 || msg != "Unknown configId: foo" {
		t.Errorf("unknown config id: %d %q %+v", code, msg, resp)
	}
	resp, err = c.conn.SetSessionConfigOption(context.Background(), sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{
		SessionId: ns.SessionId, ConfigId: "mode", Value: "default"}})
	if err != nil || len(resp.ConfigOptions) != 2 || string(resp.ConfigOptions[1].Select.CurrentValue) != "default" {
		t.Errorf("set mode via config option: %+v %v", resp, err)
	}
}

func TestBuiltinCommands(t *testing.T) {
	r := newRig(t)
	c := r.connect()
	c.initialize()
	ns := c.newSession(r.work)
	for _, tc := range []struct{ in, want string }{
		{"/help", "/compact"},
		{"/status", "Mode: default"},
		{"/mcp", "No MCP servers."},
		{"/nope", "Unknown ACP command: /nope. Use /help to see available commands."},
	} {
		before, _, _ := c.snapshot()
		resp, err := c.prompt(ns.SessionId, tc.in)
		if err != nil || resp.StopReason != sdk.StopReasonEndTurn {
			t.Fatalf("%s: %v %v", tc.in, resp, err)
		}
		_, updates, _ := c.snapshot()
		var text strings.Builder
		for _, u := range updates[len(before):] {
			if u.Update.AgentMessageChunk != nil {
				text.WriteString(textOf(u.Update.AgentMessageChunk.Content))
			}
		}
		if !strings.Contains(text.String(), tc.want) {
			t.Errorf("%s: %q", tc.in, text.String())
		}
	}
	if n := len(r.srv.Requests()); n != 0 {
		t.Errorf("built-in commands reached the model: %d requests", n)
	}
}

func TestModelOptionAndBadDirectories(t *testing.T) {
	r := newRig(t)
	r.config(fmt.Sprintf(`default_model = "fake"

[providers.fake]
type = "openai"
base_url = %q

[models.fake]
provider = "fake"
model = "fake-model"
max_context_size = 100000

[models.other]
provider = "fake"
model = "other-model"
max_context_size = 100000
`, llmtest.ChatBaseURL(r.srv)))
	r.srv.Respond(func(*llmtest.Request) llmtest.Reply { return llmtest.Text("ok") })
	c := r.connect()
	c.initialize()
	ns := c.newSession(r.work)
	resp, err := c.conn.SetSessionConfigOption(context.Background(), sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{
		SessionId: ns.SessionId, ConfigId: "model", Value: "other"}})
	if err != nil || string(resp.ConfigOptions[0].Select.CurrentValue) != "other" {
		t.Fatalf("set model: %+v %v", resp, err)
	}
	if _, err := c.prompt(ns.SessionId, "hi"); err != nil {
		t.Fatal(err)
	}
	if body := string(r.srv.Request(0).Body); !strings.Contains(body, `"model":"other-model"`) {
		t.Errorf("the prompt did not use the chosen model:\n%.300s", body)
	}
	_, err = c.conn.SetSessionConfigOption(context.Background(), sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{
		SessionId: ns.SessionId, ConfigId: "model", Value: "nope"}})
	if code, msg := requestError(err); code != -32602 || msg != "Unknown model: nope" {
		t.Errorf("unknown model: %d %q", code, msg)
	}
	for _, tc := range []struct {
		dirs []string
		want string
	}{
		{[]string{""}, "additionalDirectories[0] must not be empty"},
		{[]string{r.work, "rel"}, "additionalDirectories[1] must be an absolute path"},
	} {
		_, err := c.conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: r.work, McpServers: []sdk.McpServer{},
			AdditionalDirectories: tc.dirs})
		if code, msg := requestError(err); code != -32602 || msg != tc.want {
			t.Errorf("%q: %d %q", tc.dirs, code, msg)
		}
	}
}

func TestScenario63FileSystemBridge(t *testing.T) {
	r := newRig(t)
	a := filepath.Join(r.work, "a.txt")
	if err := os.WriteFile(a, []byte("on disk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := func(v map[string]string) string { b, _ := json.Marshal(v); return string(b) }
	r.srv.Add(llmtest.ToolCall("r1", "Read", args(map[string]string{"path": a})),
		llmtest.ToolCall("w1", "Write", args(map[string]string{"path": "new.txt", "content": "x"})),
		llmtest.ToolCall("r2", "Read", args(map[string]string{"path": "/etc/hostname"})),
		llmtest.ToolCall("e1", "Edit", args(map[string]string{"path": "a.txt", "old_string": "draft", "new_string": "final"})),
		llmtest.Text("done"))
	c := r.connect()
	c.files = map[string]string{a: "draft\n"}
	if _, err := c.conn.Initialize(context.Background(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientCapabilities: sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}}}); err != nil {
		t.Fatal(err)
	}
	ns := c.newSession(r.work)
	if resp, err := c.prompt(ns.SessionId, "edit"); err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", resp, err)
	}
	// The Read result's first line, as the model sees it (JSON-escaped).
	if body := string(r.srv.Request(1).Body); !strings.Contains(body, `1\tdraft`) || strings.Contains(body, `1\ton disk`) {
		t.Errorf("the Read did not return the editor's buffer:\n%.3000s", body)
	}
	c.mu.Lock()
	writes, reads := c.writes, c.reads
	c.mu.Unlock()
	newTxt := filepath.Join(r.work, "new.txt")
	if len(writes) != 2 || writes[0].Path != newTxt || writes[0].Content != "x" || writes[0].SessionId != ns.SessionId ||
		writes[1].Path != a || writes[1].Content != "final\n" {
		t.Errorf("fs/write_text_file: %+v", writes)
	}
	if _, err := os.Stat(newTxt); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the Write reached the disk: %v", err)
	}
	if b, _ := os.ReadFile(a); string(b) != "on disk\n" {
		t.Errorf("a.txt on disk changed: %q", b)
	}
	for _, p := range reads {
		if !strings.HasPrefix(p, r.work) {
			t.Errorf("fs/read_text_file outside the work dir: %s", p)
		}
	}
	if body := string(r.srv.Request(3).Body); !strings.Contains(body, "outside the session") {
		t.Errorf("the Read outside the roots is not a tool error:\n%.3000s", body[max(0, len(body)-1500):])
	}
}

// The client's MCP servers start with the session, with the environment
// the client gave (the test server reads its script from it), and their
// tools are the model's; an entry of an unsupported type is ignored.
func TestScenario66ClientMCPServers(t *testing.T) {
	r := newRig(t, llmtest.ToolCall("m1", "mcp__echo__echo", `{"text":"hello from echo"}`), llmtest.Text("done"))
	cfg := mcptest.Stdio(t, "echo", mcptest.Spec{Tools: []mcptest.Tool{{Name: "echo", Echo: true}}})
	env := []sdk.EnvVariable{{Name: "K", Value: "v"}}
	for k, v := range cfg.Env {
		env = append(env, sdk.EnvVariable{Name: k, Value: v})
	}
	c := r.connect()
	c.initialize()
	ns, err := c.conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: r.work, McpServers: []sdk.McpServer{
		{Stdio: &sdk.McpServerStdio{Name: "echo", Command: cfg.Command, Args: cfg.Args, Env: env}},
		{Acp: &sdk.McpServerAcpInline{Name: "other", Id: "x"}},
	}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	if resp, err := c.prompt(ns.SessionId, "echo something"); err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", resp, err)
	}
	if body := string(r.srv.Request(0).Body); !strings.Contains(body, "mcp__echo__echo") {
		t.Errorf("the first request does not offer the MCP tool:\n%.2000s", body)
	}
	if body := string(r.srv.Request(1).Body); !strings.Contains(body, "hello from echo") {
		t.Errorf("the MCP tool's result is not in the next request:\n%.3000s", body[max(0, len(body)-1500):])
	}
	_, before0, _ := c.snapshot()
	before := len(before0)
	if _, err := c.prompt(ns.SessionId, "/mcp"); err != nil {
		t.Fatal(err)
	}
	_, updates, _ := c.snapshot()
	var text strings.Builder
	for _, u := range updates[before:] {
		if u.Update.AgentMessageChunk != nil {
			text.WriteString(textOf(u.Update.AgentMessageChunk.Content))
		}
	}
	if text.String() != "MCP servers:\necho (stdio): connected, 1 tools" {
		t.Errorf("/mcp: %q", text.String())
	}
}

// AskUserQuestion goes to the client as a permission request: one option
// per choice and a skip; the choice is the tool's answer.
func TestQuestionsThroughRequestPermission(t *testing.T) {
	args := `{"questions":[{"question":"Which colour?","header":"Colour","options":[{"label":"red","description":"warm"},{"label":"blue","description":"cool"}]}]}`
	r := newRig(t, llmtest.ToolCall("q1", "AskUserQuestion", args), llmtest.Text("Blue it is."))
	c := r.connect()
	c.initialize()
	var asked sdk.RequestPermissionRequest
	c.answer = func(p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		if p.ToolCall.Title != nil && *p.ToolCall.Title == "AskUserQuestion" {
			asked = p
			return selected(string(p.Options[1].OptionId)), nil
		}
		return selected("approve_once"), nil
	}
	ns := c.newSession(r.work)
	if resp, err := c.prompt(ns.SessionId, "ask me"); err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", resp, err)
	}
	var names []string
	for _, o := range asked.Options {
		names = append(names, o.Name)
	}
	if !slices.Equal(names, []string{"red", "blue", "Skip"}) || asked.ToolCall.ToolCallId != "1:q1" ||
		len(asked.ToolCall.Content) != 1 || textOf(asked.ToolCall.Content[0].Content.Content) != "Which colour?" {
		t.Errorf("question request: %+v", asked)
	}
	if body := string(r.srv.Request(1).Body); !strings.Contains(body, `Which colour?\":\"blue`) {
		t.Errorf("the answer is not the tool's result:\n%.3000s", body[max(0, len(body)-1500):])
	}
}

// A subagent's approval reaches the client tagged with the child's agent
// id (spec 05 §5.11, scenario 54): its title and text name the child and
// its tool call id carries the child's id, so it is not taken for one of
// the main agent's calls. The child waits for the answer and runs its
// command; the parent gets the child's handoff.
func TestSubagentApprovalTaggedWithItsAgentID(t *testing.T) {
	handoff := "The child printed its line. " + strings.Repeat("Nothing else happened. ", 10)
	r := newRig(t,
		llmtest.ToolCall("call_a", "Agent", `{"prompt":"Print a line","description":"Print it"}`),
		llmtest.ToolCall("call_b", "Bash", `{"command":"echo from the child","description":"print"}`),
		llmtest.Text(handoff),
		llmtest.Text("The child is done."))
	c := r.connect()
	c.initialize()
	ns := c.newSession(r.work)
	if resp, err := c.prompt(ns.SessionId, "delegate it"); err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", resp, err)
	}
	_, _, perms := c.snapshot()
	var got []string
	for _, p := range perms {
		var text string
		if n := len(p.ToolCall.Content); n > 0 {
			text = textOf(p.ToolCall.Content[n-1].Content.Content)
		}
		got = append(got, fmt.Sprintf("%s|%s|%s", p.ToolCall.ToolCallId, *p.ToolCall.Title, text))
	}
	// The Agent call itself is not asked about in the default mode.
	want := "agent-0/1:call_b|agent-0: Bash|agent-0 is requesting approval to Running: echo from the child"
	if len(got) != 1 || got[0] != want {
		t.Errorf("permission requests:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}
	if n := len(r.srv.Requests()); n != 4 {
		t.Fatalf("model requests: %d, want 4", n)
	}
	if body := string(r.srv.Request(2).Body); !strings.Contains(body, "from the child") {
		t.Errorf("the child's command did not run:\n%.2000s", body[max(0, len(body)-2000):])
	}
	if body := string(r.srv.Request(3).Body); !strings.Contains(body, "agent_id: agent-0") || !strings.Contains(body, "The child printed its line.") {
		t.Errorf("the parent's last request lacks the handoff:\n%.2000s", body[max(0, len(body)-2000):])
	}
}
