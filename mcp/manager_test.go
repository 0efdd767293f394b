package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/mcp"
	"github.com/kimigo/kimigo/mcp/mcptest"
	"github.com/kimigo/kimigo/osenv"
)

func TestScenario52StdioServerConnectsAndCalls(t *testing.T) {
	schema := `{"type":"object","properties":{"key":{"type":"string","enum":["a","b"]}},"required":["key"]}`
	m := start(t, mcp.Options{}, mcptest.Stdio(t, "my server", mcptest.Spec{Tools: []mcptest.Tool{
		{Name: "get.data", Description: "Get data", Schema: json.RawMessage(schema), Text: "data"},
		{Name: "echo", Description: "Echo text", Echo: true},
	}}))
	in := info(t, m, "my server")
	if in.Status != mcp.StatusConnected || in.ToolCount != 2 {
		t.Fatalf("server = %+v; want connected with 2 tools", in)
	}
	if d := cmp.Diff([]string{"mcp__my_server__echo", "mcp__my_server__get_data"}, toolNames(m)); d != "" {
		t.Errorf("tool names (-want +got):\n%s", d)
	}
	def := tool(t, m, "mcp__my_server__get_data").Definition()
	var got, want any
	_ = json.Unmarshal(def.Parameters, &got)
	_ = json.Unmarshal([]byte(schema), &want)
	if d := cmp.Diff(want, got); d != "" || def.Description != "Get data" {
		t.Errorf("definition %s / %q; the server's schema (-want +got):\n%s", def.Parameters, def.Description, d)
	}
	res, err := call(t.Context(), t, tool(t, m, "mcp__my_server__echo"), `{"text":"hello there"}`)
	if err != nil || res.IsError || res.Output.Text() != "hello there" || res.Output.IsParts() {
		t.Errorf("echo = %v, %v; want the server's text as a string", res.Output, err)
	}
	ex, _, _ := tool(t, m, "mcp__my_server__echo").ResolveExecution(json.RawMessage(`{}`))
	if ex.ApprovalRule != "mcp__my_server__echo" || ex.Accesses != nil {
		t.Errorf("execution = %+v; want the qualified name as its rule and exclusive access", ex)
	}
}

func TestScenario53ServerCrashMidCall(t *testing.T) {
	m := start(t, mcp.Options{}, mcptest.Stdio(t, "crash", mcptest.Spec{Tools: []mcptest.Tool{
		{Name: "slow", Crash: true, CrashStderr: "boom"},
		{Name: "other", Text: "x"},
	}}))
	var mu sync.Mutex
	var changes []mcp.Change
	m.Subscribe(func(c mcp.Change) { mu.Lock(); changes = append(changes, c); mu.Unlock() })
	slow := tool(t, m, "mcp__crash__slow")
	other := tool(t, m, "mcp__crash__other")
	_, err := call(t.Context(), t, slow, `{}`)
	if err == nil {
		t.Fatal("a call whose server died succeeded")
	}
	waitFor(t, "the crash to be noticed", func() bool { return info(t, m, "crash").Status == mcp.StatusFailed })
	in := info(t, m, "crash")
	if !contains(in.Error, `MCP server "crash" closed unexpectedly`, "stderr: boom") {
		t.Errorf("error = %q; want the unexpected close and the stderr tail", in.Error)
	}
	if len(m.Tools()) != 0 || in.ToolCount != 0 {
		t.Errorf("a failed server still offers %v", toolNames(m))
	}
	mu.Lock()
	last := changes[len(changes)-1]
	mu.Unlock()
	if last.Info.Status != mcp.StatusFailed || last.Tools != nil {
		t.Errorf("last change = %+v; want failed without tools", last.Info)
	}
	if _, err := call(t.Context(), t, other, `{}`); err == nil || !strings.Contains(err.Error(), "not connected") {
		t.Errorf("a call to a tool of the dead server = %v; want a not-connected error", err)
	}
}

func TestScenario54ToolTimeout(t *testing.T) {
	dir := t.TempDir()
	cancelled := filepath.Join(dir, "cancelled")
	srv := mcptest.Stdio(t, "slow", mcptest.Spec{Tools: []mcptest.Tool{
		{Name: "sleep", Sleep: 5 * time.Second, CancelledFile: cancelled},
		{Name: "quick", Text: "fast"},
	}})
	srv.ToolTimeout = 200 * time.Millisecond
	m := start(t, mcp.Options{}, srv)
	_, err := call(t.Context(), t, tool(t, m, "mcp__slow__sleep"), `{}`)
	if err == nil || !strings.Contains(err.Error(), "timed out after 200ms") {
		t.Fatalf("call = %v; want a timeout error", err)
	}
	if in := info(t, m, "slow"); in.Status != mcp.StatusConnected {
		t.Errorf("after a timeout the server is %s; want connected", in.Status)
	}
	if res, err := call(t.Context(), t, tool(t, m, "mcp__slow__quick"), `{}`); err != nil || res.Output.Text() != "fast" {
		t.Errorf("the next call = %v, %v", res.Output, err)
	}
	waitFor(t, "the server to see the cancellation", func() bool { _, err := os.Stat(cancelled); return err == nil })
}

func TestTurnCancellationReachesTheServer(t *testing.T) {
	dir := t.TempDir()
	started, cancelled := filepath.Join(dir, "started"), filepath.Join(dir, "cancelled")
	m := start(t, mcp.Options{}, mcptest.Stdio(t, "s", mcptest.Spec{Tools: []mcptest.Tool{
		{Name: "sleep", Sleep: 30 * time.Second, StartedFile: started, CancelledFile: cancelled}}}))
	ctx, cancel := context.WithCancelCause(t.Context())
	errc := make(chan error, 1)
	go func() { _, err := call(ctx, t, tool(t, m, "mcp__s__sleep"), `{}`); errc <- err }()
	waitFor(t, "the call to start", func() bool { _, err := os.Stat(started); return err == nil })
	cause := context.Canceled
	cancel(cause)
	if err := <-errc; err != cause {
		t.Errorf("a cancelled call returned %v; want the turn's cause", err)
	}
	waitFor(t, "the server to see the cancellation", func() bool { _, err := os.Stat(cancelled); return err == nil })
	if info(t, m, "s").Status != mcp.StatusConnected {
		t.Error("a cancelled call disconnected the server")
	}
}

func TestScenario55StartupFailuresAreIsolated(t *testing.T) {
	a := mcptest.Stdio(t, "A", mcptest.Spec{HangListTools: true, Stderr: "listing…", Tools: []mcptest.Tool{{Name: "t", Text: "x"}}})
	a.StartupTimeout = 300 * time.Millisecond
	b := mcptest.Stdio(t, "B", mcptest.Spec{Tools: []mcptest.Tool{{Name: "ok", Text: "ok"}}})
	c := mcp.Server{Name: "C", Transport: mcp.TransportHTTP, URL: "http://127.0.0.1:1/mcp", BearerTokenEnvVar: "NOPE", Trusted: true}
	m := mcp.New(mcp.Options{Env: osenv.NewLocal(osenv.LocalOptions{})})
	t.Cleanup(func() { _ = m.Close(context.Background()) })
	m.Start([]mcp.Server{a, b, c})
	for _, in := range m.Servers() {
		if in.Status != mcp.StatusPending {
			t.Errorf("right after Start %s is %s; want pending", in.Name, in.Status)
		}
	}
	if err := m.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	for _, in := range m.Servers() {
		if in.Status == mcp.StatusPending {
			t.Errorf("after Wait %s is still pending", in.Name)
		}
	}
	if in := info(t, m, "A"); in.Status != mcp.StatusFailed || !contains(in.Error, "Timed out after 300ms", "stderr: listing…") {
		t.Errorf("A = %s %q; want failed, timed out, with its stderr", in.Status, in.Error)
	}
	if in := info(t, m, "C"); in.Status != mcp.StatusFailed ||
		in.Error != `MCP HTTP bearer token env var "NOPE" is not set or is empty` {
		t.Errorf("C = %s %q", in.Status, in.Error)
	}
	if in := info(t, m, "B"); in.Status != mcp.StatusConnected || in.ToolCount != 1 {
		t.Errorf("B = %+v; want connected", in)
	}
}

func TestScenario57OutputLimits(t *testing.T) {
	m := start(t, mcp.Options{}, mcptest.Stdio(t, "s", mcptest.Spec{Tools: []mcptest.Tool{
		{Name: "big", Text: "0123456789", RepeatText: 15_000},
		{Name: "shot", Image: true},
		{Name: "structured", Structured: json.RawMessage(`{"a":1}`)},
	}}))
	res, err := call(t.Context(), t, tool(t, m, "mcp__s__big"), `{}`)
	if err != nil {
		t.Fatal(err)
	}
	text := res.Output.Text()
	notice := "\n\n[Output truncated: exceeded 100000 character limit. Use pagination or more specific queries to get remaining content.]"
	if !strings.HasSuffix(text, notice) || len(text)-len(notice) != 100_000 || !res.Truncated {
		t.Errorf("big output: %d characters before the notice, truncated %v", len(text)-len(notice), res.Truncated)
	}
	res, _ = call(t.Context(), t, tool(t, m, "mcp__s__shot"), `{}`)
	parts := res.Output.Parts()
	if len(parts) != 3 || parts[0].Text != `<mcp_tool_result name="mcp__s__shot">` || !parts[1].IsMedia() ||
		!strings.HasPrefix(parts[1].Media.URL, "data:image/png;base64,") || parts[2].Text != "</mcp_tool_result>" {
		t.Errorf("image output = %v", parts)
	}
	res, _ = call(t.Context(), t, tool(t, m, "mcp__s__structured"), `{}`)
	if !strings.Contains(res.Output.Text(), "<mcp-structured-result>\n{\"structuredContent\":{\"a\":1}}\n</mcp-structured-result>") {
		t.Errorf("structured output = %q", res.Output.Text())
	}
}

func TestLateToolsArriveWithListChanged(t *testing.T) {
	m := start(t, mcp.Options{}, mcptest.Stdio(t, "late", mcptest.Spec{
		Tools:     []mcptest.Tool{{Name: "first", Text: "1"}},
		LateTools: []mcptest.Tool{{Name: "second", Text: "2"}},
	}))
	waitFor(t, "the late tool", func() bool { return len(m.Tools()) == 2 })
	if res, err := call(t.Context(), t, tool(t, m, "mcp__late__second"), `{}`); err != nil || res.Output.Text() != "2" {
		t.Errorf("late tool = %v, %v", res.Output, err)
	}
}

func TestParallelConnect(t *testing.T) {
	// Each server waits, before it answers anything, until all three have
	// started: connected one after another, the first would time out.
	dir := t.TempDir()
	var servers []mcp.Server
	for _, n := range []string{"one", "two", "three"} {
		s := mcptest.Stdio(t, n, mcptest.Spec{Barrier: dir, BarrierCount: 3, Tools: []mcptest.Tool{{Name: "t", Text: n}}})
		s.StartupTimeout = 20 * time.Second
		servers = append(servers, s)
	}
	m := start(t, mcp.Options{}, servers...)
	for _, in := range m.Servers() {
		if in.Status != mcp.StatusConnected {
			t.Errorf("%s is %s (%s); want all three connected", in.Name, in.Status, in.Error)
		}
	}
}

func TestMisbehavingServers(t *testing.T) {
	for _, tt := range []struct {
		name string
		spec mcptest.Spec
		want mcp.Status
		err  []string
	}{
		{"logs to stdout", mcptest.Spec{StdoutNoise: true, Tools: []mcptest.Tool{{Name: "t", Text: "x"}}}, mcp.StatusConnected, nil},
		{"exits at start", mcptest.Spec{ExitAtStart: true, Stderr: "cannot open database"}, mcp.StatusFailed,
			[]string{"stderr: cannot open database"}},
		{"invalid schema", mcptest.Spec{BadSchemaTool: "broken"}, mcp.StatusFailed,
			[]string{`Invalid inputSchema for MCP tool "broken": schema must be a JSON object`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := mcptest.Stdio(t, "s", tt.spec)
			s.StartupTimeout = 10 * time.Second
			m := start(t, mcp.Options{}, s)
			in := info(t, m, "s")
			if in.Status != tt.want || !contains(in.Error, tt.err...) {
				t.Errorf("server = %s %q; want %s with %q", in.Status, in.Error, tt.want, tt.err)
			}
		})
	}
	m := start(t, mcp.Options{}, mcp.Server{Name: "missing", Transport: mcp.TransportStdio,
		Command: "/no/such/mcp-server", Trusted: true})
	if in := info(t, m, "missing"); in.Status != mcp.StatusFailed || !strings.Contains(in.Error, "/no/such/mcp-server") {
		t.Errorf("a missing command = %s %q", in.Status, in.Error)
	}
}

func TestDisabledAndUntrustedServersNeverStart(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "spawned")
	cmd := mcp.Server{Transport: mcp.TransportStdio, Command: "/bin/sh", Args: []string{"-c", "touch " + marker}}
	off, untrusted := cmd, cmd
	off.Name, off.Disabled, off.Trusted = "off", true, true
	untrusted.Name, untrusted.Source = "repo", mcp.SourceProject
	m := start(t, mcp.Options{}, off, untrusted)
	if in := info(t, m, "off"); in.Status != mcp.StatusDisabled {
		t.Errorf("off = %s", in.Status)
	}
	if in := info(t, m, "repo"); in.Status != mcp.StatusDisabled || !strings.Contains(in.Error, "not trusted") {
		t.Errorf("an untrusted project server = %s %q", in.Status, in.Error)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a disabled or untrusted server was spawned")
	}
	if err := m.Reconnect(t.Context(), untrusted); err == nil {
		t.Error("Reconnect started an untrusted server")
	}
}

func TestReconnect(t *testing.T) {
	s := mcptest.Stdio(t, "r", mcptest.Spec{Tools: []mcptest.Tool{{Name: "a", Text: "1"}}})
	m := start(t, mcp.Options{}, s)
	old := tool(t, m, "mcp__r__a")
	s2 := mcptest.Stdio(t, "r", mcptest.Spec{Tools: []mcptest.Tool{{Name: "a", Text: "1"}, {Name: "b", Text: "2"}}})
	if err := m.Reconnect(t.Context(), s2); err != nil {
		t.Fatal(err)
	}
	if in := info(t, m, "r"); in.Status != mcp.StatusConnected || in.ToolCount != 2 {
		t.Errorf("after reconnect = %+v", in)
	}
	if _, err := call(t.Context(), t, old, `{}`); err == nil {
		t.Error("a tool of the replaced connection still worked")
	}
	if err := m.Reconnect(t.Context(), mcp.Server{Name: "nope", Trusted: true}); err == nil || err.Error() != "Unknown MCP server: nope" {
		t.Errorf("Reconnect(nope) = %v", err)
	}
}

func TestRemoteTransports(t *testing.T) {
	spec := mcptest.Spec{Tools: []mcptest.Tool{{Name: "echo", Echo: true}}}
	for _, tt := range []struct {
		name string
		kind mcp.TransportKind
		srv  func(testing.TB, mcptest.Spec) string
	}{
		{"streamable http", mcp.TransportHTTP, func(t testing.TB, s mcptest.Spec) string { return mcptest.HTTP(t, s).URL }},
		{"sse", mcp.TransportSSE, func(t testing.TB, s mcptest.Spec) string { return mcptest.SSE(t, s).URL }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var auth, team []string
			url := tt.srv(t, spec)
			client := &http.Client{Transport: recordHeaders(func(h http.Header) {
				mu.Lock()
				auth, team = append(auth, h.Get("Authorization")), append(team, h.Get("X-Team"))
				mu.Unlock()
			})}
			env := osenv.NewLocal(osenv.LocalOptions{}).WithEnv(map[string]string{"MCP_TOKEN": "s3cret"})
			m := start(t, mcp.Options{Env: env, HTTPClient: client}, mcp.Server{Name: "web", Transport: tt.kind, URL: url,
				Headers: map[string]string{"X-Team": "core", "authorization": "Basic old"}, BearerTokenEnvVar: "MCP_TOKEN", Trusted: true})
			if in := info(t, m, "web"); in.Status != mcp.StatusConnected {
				t.Fatalf("web = %s %q", in.Status, in.Error)
			}
			res, err := call(t.Context(), t, tool(t, m, "mcp__web__echo"), `{"text":"over http"}`)
			if err != nil || res.Output.Text() != "over http" {
				t.Errorf("echo = %v, %v", res.Output, err)
			}
			mu.Lock()
			defer mu.Unlock()
			for i := range auth {
				if auth[i] != "Bearer s3cret" || team[i] != "core" {
					t.Errorf("request %d had Authorization %q, X-Team %q", i, auth[i], team[i])
				}
			}
			if in := info(t, m, "web"); cmp.Diff([]string{"X-Team", "authorization"}, in.HeaderKeys) != "" {
				t.Errorf("the list shows headers %v; want only their names", in.HeaderKeys)
			}
		})
	}
}

type recordHeaders func(http.Header)

func (f recordHeaders) RoundTrip(r *http.Request) (*http.Response, error) {
	f(r.Header)
	return http.DefaultTransport.RoundTrip(r)
}

func TestCloseStopsEveryServer(t *testing.T) {
	dir := t.TempDir()
	started := filepath.Join(dir, "started")
	m := mcp.New(mcp.Options{})
	m.Start([]mcp.Server{mcptest.Stdio(t, "s", mcptest.Spec{Tools: []mcptest.Tool{
		{Name: "sleep", Sleep: time.Minute, StartedFile: started}}})})
	if err := m.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	tl := tool(t, m, "mcp__s__sleep")
	errc := make(chan error, 1)
	go func() { _, err := call(t.Context(), t, tl, `{}`); errc <- err }()
	waitFor(t, "the call to start", func() bool { _, err := os.Stat(started); return err == nil })
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := m.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err == nil {
		t.Error("a call survived Close")
	}
	if in := info(t, m, "s"); in.Status == mcp.StatusFailed {
		t.Errorf("Close reported an unexpected close: %q", in.Error)
	}
}
