package anthropic

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/llmtest"
)

func TestSA1RequestShapeAndCredentials(t *testing.T) {
	// Credentials and headers a user's shell may hold: none may leak.
	t.Setenv("ANTHROPIC_AUTH_TOKEN", "env-token")
	t.Setenv("ANTHROPIC_CUSTOM_HEADERS", "Authorization: Bearer env\nX-Leak: shell")
	t.Setenv("ANTHROPIC_API_KEY", "env-key")
	t.Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1")
	t.Setenv("HTTPS_PROXY", "http://127.0.0.1:1")
	t.Setenv("HTTP_PROXY", "http://127.0.0.1:1")

	srv := llmtest.FakeAnthropic(t, llmtest.Text("ok"))
	p := newTestProvider(srv, Options{Model: "claude-sonnet-4-5"})
	res := mustRun(t, p, llm.Request{
		System: "You are a calculator.",
		Tools:  []llm.Tool{tool("add"), tool("multiply")},
		Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.ContentPart{
			llm.TextPart("What is in this picture?"),
			llm.ImagePart("https://example.com/cat.png"),
		}}},
	})
	if got := llm.ExtractText(res.Message, ""); got != "ok" {
		t.Errorf("answer = %q", got)
	}

	r := srv.Request(0)
	if r.Path != "/v1/messages" || r.RawQuery != "" || r.Method != http.MethodPost {
		t.Errorf("request line = %s %s?%s", r.Method, r.Path, r.RawQuery)
	}
	for name, want := range map[string]string{
		"x-api-key":         "test-key",
		"anthropic-version": "2023-06-01",
		"content-type":      "application/json",
		"anthropic-beta":    "interleaved-thinking-2025-05-14",
		"Authorization":     "",
		"X-Leak":            "",
	} {
		if got := r.Header.Get(name); got != want {
			t.Errorf("header %s = %q, want %q", name, got, want)
		}
	}
	body := wireBody(t, srv, 0)
	if d := cmp.Diff(`[{"cache_control":{"type":"ephemeral"},"text":"You are a calculator.","type":"text"}]`, jsonOf(t, body["system"])); d != "" {
		t.Errorf("system (-want +got):\n%s", d)
	}
	if has(at(t, body, "tools", 0), "cache_control") || !has(at(t, body, "tools", 1), "cache_control") {
		t.Errorf("cache_control must be on the last tool only: %s", jsonOf(t, body["tools"]))
	}
	img := at(t, body, "messages", 0, "content", 1)
	if d := cmp.Diff(`{"cache_control":{"type":"ephemeral"},"source":{"type":"url","url":"https://example.com/cat.png"},"type":"image"}`, jsonOf(t, img)); d != "" {
		t.Errorf("image block (-want +got):\n%s", d)
	}
	llmtest.Golden(t, "sa1_request.golden.json", r.CanonicalBody())
}

func TestSA2ParallelResultsAndMerging(t *testing.T) {
	srv := llmtest.FakeAnthropic(t, llmtest.Text("2+3=5 and 4*5=20."))
	p := newTestProvider(srv, Options{})
	mustRun(t, p, llm.Request{Tools: []llm.Tool{tool("add"), tool("multiply")}, Messages: parallelHistory()})
	body := wireBody(t, srv, 0)
	msgs := body["messages"].([]any)
	if len(msgs) != 3 {
		t.Fatalf("got %d wire messages, want 3: %s", len(msgs), jsonOf(t, msgs))
	}
	last := at(t, msgs, 2, "content").([]any)
	if len(last) != 2 || at(t, last, 0, "type") != "tool_result" || at(t, last, 1, "type") != "tool_result" {
		t.Fatalf("last message = %s", jsonOf(t, last))
	}
	if has(last[0], "cache_control") || !has(last[1], "cache_control") {
		t.Errorf("cache_control must be on the second result only: %s", jsonOf(t, last))
	}
	llmtest.Golden(t, "parallel_tool_results.golden.json", srv.Request(0).CanonicalBody())

	// The merge rule, through the wire.
	for _, tt := range []struct {
		name    string
		history []llm.Message
		roles   string // wire roles
	}{
		{"steering text joins the results", append(parallelHistory(), llm.UserMessage("also 6*7")), "user assistant user"},
		{"consecutive texts join", []llm.Message{llm.UserMessage("a"), llm.UserMessage("b")}, "user"},
		{"results never join a text turn", []llm.Message{
			llm.UserMessage("go"),
			llm.AssistantMessage("", call("c1", "add", `{"a":1,"b":1}`)),
			llm.ToolMessage("c1", llm.TextPart("2")),
			llm.UserMessage("and then"),
			llm.ToolMessage("c1", llm.TextPart("late duplicate")),
		}, "user assistant user user"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			msgs, err := convertMessages("claude-sonnet-4-5", tt.history)
			if err != nil {
				t.Fatal(err)
			}
			var roles []string
			for _, m := range msgs {
				roles = append(roles, string(m.Role))
			}
			if got := strings.Join(roles, " "); got != tt.roles {
				t.Errorf("roles = %q, want %q", got, tt.roles)
			}
		})
	}
}

func TestSA3ThinkingPreservation(t *testing.T) {
	history := func() []llm.Message {
		return []llm.Message{
			llm.UserMessage("think first"),
			{Role: llm.RoleAssistant, Content: []llm.ContentPart{llm.ThinkPart("signed thought", "sig-abc"), llm.TextPart("answer one")}},
			llm.UserMessage("again"),
			{Role: llm.RoleAssistant, Content: []llm.ContentPart{llm.ThinkPart("unsigned thought", ""), llm.TextPart("answer two")}},
			llm.UserMessage("only thinking next"),
			{Role: llm.RoleAssistant, Content: []llm.ContentPart{llm.ThinkPart("lonely", "")}},
			llm.UserMessage("go on"),
		}
	}
	t.Run("claude drops unsigned thinking", func(t *testing.T) {
		srv := llmtest.FakeAnthropic(t, llmtest.Text("ok"))
		mustRun(t, newTestProvider(srv, Options{Model: "claude-sonnet-4-5"}), llm.Request{Messages: history()})
		msgs := wireBody(t, srv, 0)["messages"].([]any)
		// The thinking-only assistant turn vanished, so its neighbours merged.
		if len(msgs) != 5 {
			t.Fatalf("got %d messages: %s", len(msgs), jsonOf(t, msgs))
		}
		if got := jsonOf(t, at(t, msgs, 1, "content", 0)); got != `{"signature":"sig-abc","thinking":"signed thought","type":"thinking"}` {
			t.Errorf("signed thinking = %s", got)
		}
		if got := jsonOf(t, at(t, msgs, 3, "content")); got != `[{"text":"answer two","type":"text"}]` {
			t.Errorf("unsigned thinking kept for Claude: %s", got)
		}
		if got := jsonOf(t, at(t, msgs, 4, "content")); got != `[{"text":"only thinking next","type":"text"},{"cache_control":{"type":"ephemeral"},"text":"go on","type":"text"}]` {
			t.Errorf("merged user turn = %s", got)
		}
	})
	t.Run("compatible model keeps unsigned thinking without a signature", func(t *testing.T) {
		srv := llmtest.FakeAnthropic(t, llmtest.Text("ok"))
		mustRun(t, newTestProvider(srv, Options{Model: "k25"}), llm.Request{Messages: history()})
		msgs := wireBody(t, srv, 0)["messages"].([]any)
		if len(msgs) != 7 {
			t.Fatalf("got %d messages: %s", len(msgs), jsonOf(t, msgs))
		}
		unsigned := at(t, msgs, 3, "content", 0)
		if got := jsonOf(t, unsigned); got != `{"thinking":"unsigned thought","type":"thinking"}` {
			t.Errorf("unsigned thinking = %s", got)
		}
		if got := jsonOf(t, at(t, msgs, 1, "content", 0)); got != `{"signature":"sig-abc","thinking":"signed thought","type":"thinking"}` {
			t.Errorf("signed thinking = %s", got)
		}
	})
	t.Run("redacted thinking round-trips as a signed block", func(t *testing.T) {
		srv := llmtest.FakeAnthropic(t,
			llmtest.Reply{Response: scriptedRedacted()},
			llmtest.Text("done"))
		p := newTestProvider(srv, Options{Model: "claude-opus-4-5"})
		res := mustRun(t, p, llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}})
		want := []llm.ContentPart{llm.ThinkPart("", "opaque-blob"), llm.TextPart("visible")}
		if d := cmp.Diff(want, res.Message.Content); d != "" {
			t.Fatalf("content (-want +got):\n%s", d)
		}
		mustRun(t, p, llm.Request{Messages: []llm.Message{llm.UserMessage("hi"), res.Message, llm.UserMessage("more")}})
		got := jsonOf(t, at(t, wireBody(t, srv, 1), "messages", 1, "content", 0))
		if got != `{"signature":"opaque-blob","thinking":"","type":"thinking"}` {
			t.Errorf("redacted thinking sent back as %s", got)
		}
	})
}

func TestSA5ThinkingConfiguration(t *testing.T) {
	type wire struct {
		thinking, outputConfig, contextManagement string
		beta, query                               string
		effort                                    string
	}
	for _, tt := range []struct {
		name   string
		opts   Options
		setup  func(*Provider) llm.Provider
		golden string
		want   wire
	}{
		{"adaptive opus 4.7 xhigh", Options{Model: "claude-opus-4-7"},
			func(p *Provider) llm.Provider { return p.WithThinking("xhigh") }, "thinking_adaptive.golden.json",
			wire{thinking: `{"display":"summarized","type":"adaptive"}`, outputConfig: `{"effort":"xhigh"}`, effort: "xhigh"}},
		{"budget sonnet 4.5 high", Options{Model: "claude-sonnet-4-5"},
			func(p *Provider) llm.Provider { return p.WithThinking("high") }, "thinking_budget.golden.json",
			wire{thinking: `{"budget_tokens":32000,"type":"enabled"}`, beta: betaInterleavedThinking, effort: "high"}},
		{"kimi over anthropic high", Options{Model: "kimi-k2.5", KimiThinking: true},
			func(p *Provider) llm.Provider { return p.WithThinking("high") }, "thinking_kimi.golden.json",
			wire{thinking: `{"type":"enabled"}`, outputConfig: `{"effort":"high"}`, effort: "high"}},
		{"off", Options{Model: "claude-sonnet-4-5"},
			func(p *Provider) llm.Provider { return p.WithThinking("high").WithThinking("off") }, "",
			wire{thinking: `{"type":"disabled"}`, beta: betaInterleavedThinking, effort: "off"}},
		{"preserved thinking", Options{Model: "claude-opus-4-7"},
			func(p *Provider) llm.Provider { return p.WithThinking("high").(*Provider).WithThinkingKeep("all") }, "thinking_keep.golden.json",
			wire{thinking: `{"display":"summarized","type":"adaptive"}`, outputConfig: `{"effort":"high"}`,
				contextManagement: `{"edits":[{"keep":"all","type":"clear_thinking_20251015"}]}`,
				beta:              betaContextManagement, query: "beta=true", effort: "high"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.FakeAnthropic(t, llmtest.Think("hmm", "ok"))
			p := tt.setup(newTestProvider(srv, tt.opts))
			mustRun(t, p, llm.Request{System: "Be brief.", Messages: []llm.Message{llm.UserMessage("hi")}})
			body := wireBody(t, srv, 0)
			r := srv.Request(0)
			str := func(key string) string {
				if !has(body, key) {
					return ""
				}
				return jsonOf(t, body[key])
			}
			got := wire{thinking: str("thinking"), outputConfig: str("output_config"), contextManagement: str("context_management"),
				beta: r.Header.Get("anthropic-beta"), query: r.RawQuery, effort: p.ThinkingEffort()}
			if d := cmp.Diff(tt.want, got, cmp.AllowUnexported(wire{})); d != "" {
				t.Errorf("wire (-want +got):\n%s", d)
			}
			if tt.golden != "" {
				llmtest.Golden(t, tt.golden, r.CanonicalBody())
			}
		})
	}
}

func TestSA7ClientSideImageRejection(t *testing.T) {
	for _, url := range []string{
		"data:image/bmp;base64,Qk0eAAAAAAAAABoAAAAMAAAAAQABAAEAGAAAAP8A",
		"data:image/png,not-base64",
	} {
		srv := llmtest.FakeAnthropic(t, llmtest.Text("unused"))
		p := newTestProvider(srv, Options{})
		sent := false
		_, err := llm.Generate(t.Context(), p, llm.Request{Messages: []llm.Message{{Role: llm.RoleUser,
			Content: []llm.ContentPart{llm.TextPart("look"), llm.ImagePart(url)}}}},
			llm.Callbacks{OnRequestSent: func() { sent = true }})
		if err == nil {
			t.Fatalf("%s: no error", url)
		}
		if !llm.IsImageFormatError(err) || llm.IsRetryable(err) || llm.IsInvalidRequest(err) {
			t.Errorf("%s: %v: image-format=%v retryable=%v", url, err, llm.IsImageFormatError(err), llm.IsRetryable(err))
		}
		if sent || len(srv.Requests()) != 0 {
			t.Errorf("%s: the request was sent", url)
		}
	}
}

func TestSE5InvalidRequestNotRetried(t *testing.T) {
	for _, args := range []string{"not json", "[1,2]", "null", `"text"`} {
		srv := llmtest.FakeAnthropic(t, llmtest.Text("unused"))
		p := newTestProvider(srv, Options{})
		sent := false
		_, err := llm.Generate(t.Context(), p, llm.Request{Messages: []llm.Message{
			llm.UserMessage("go"),
			llm.AssistantMessage("", call("c1", "add", args)),
			llm.ToolMessage("c1", llm.TextPart("?")),
		}}, llm.Callbacks{OnRequestSent: func() { sent = true }})
		e, ok := llm.AsError(err)
		if !ok || e.Kind != llm.KindInvalidRequest || llm.IsRetryable(err) {
			t.Errorf("args %q: got %v, want a non-retryable invalid request", args, err)
		}
		if sent || len(srv.Requests()) != 0 {
			t.Errorf("args %q: the request was sent", args)
		}
	}
}

func TestInvalidRequestsBeforeSending(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts Options
		req  llm.Request
		want string
	}{
		{"missing key", Options{APIKey: "", Model: "claude-sonnet-4-5"}, llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}}, "apiKey is required"},
		{"missing model", Options{APIKey: "k"}, llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}}, "model is required"},
		{"tool message without id", Options{APIKey: "k", Model: "m"},
			llm.Request{Messages: []llm.Message{llm.UserMessage("hi"), {Role: llm.RoleTool, Content: []llm.ContentPart{llm.TextPart("x")}}}}, "no tool call id"},
		{"json_object format", Options{APIKey: "k", Model: "m"},
			llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}, ResponseFormat: &llm.ResponseFormat{Type: "json_object"}}, "JSON schema"},
		{"bad video type", Options{APIKey: "k", Model: "m"},
			llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.ContentPart{llm.VideoPart("data:video/avi;base64,AAAA", "")}}}},
			"unsupported media type for base64 video"},
		{"bad tool schema", Options{APIKey: "k", Model: "m"},
			llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}, Tools: []llm.Tool{{Name: "x", Parameters: json.RawMessage(`{`)}}}, "encode request"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.FakeAnthropic(t)
			opts := tt.opts
			opts.BaseURL = srv.URL
			_, err := New(opts).Generate(t.Context(), &tt.req)
			if !llm.IsInvalidRequest(err) || !strings.Contains(err.Error(), tt.want) || llm.IsRetryable(err) {
				t.Errorf("got %v, want an invalid request mentioning %q", err, tt.want)
			}
			if len(srv.Requests()) != 0 {
				t.Errorf("the request was sent")
			}
		})
	}
}

func TestHeadersAndAuthOverrides(t *testing.T) {
	srv := llmtest.FakeAnthropic(t, llmtest.Text("ok"))
	p := newTestProvider(srv, Options{
		APIKey:  "constructor-key",
		Headers: map[string]string{"User-Agent": "kimigo/test", "X-Custom": "config", "AUTHORIZATION": "Bearer config", "Anthropic-Beta": "my-beta"},
	})
	mustRun(t, p, llm.Request{
		Messages: []llm.Message{llm.UserMessage("hi")},
		Auth:     &llm.Auth{APIKey: "oauth-key", Headers: map[string]string{"x-custom": "request", "authorization": "Bearer request"}},
	})
	h := srv.Request(0).Header
	for name, want := range map[string]string{
		"x-api-key": "oauth-key", "user-agent": "kimigo/test", "x-custom": "request",
		"authorization": "", "anthropic-beta": "my-beta",
	} {
		if got := h.Get(name); got != want {
			t.Errorf("header %s = %q, want %q", name, got, want)
		}
	}
	if n := len(h.Values("x-custom")); n != 1 {
		t.Errorf("x-custom sent %d times", n)
	}
}

func TestBaseURLAndEndpoint(t *testing.T) {
	for _, suffix := range []string{"", "/", "/v1", "/v1/"} {
		srv := llmtest.FakeAnthropic(t, llmtest.Text("ok"))
		p := New(Options{BaseURL: srv.URL + suffix, APIKey: "k", Model: "claude-sonnet-4-5", BetaAPI: suffix == "/v1"})
		mustRun(t, p, llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}})
		r := srv.Request(0)
		wantQuery := ""
		if suffix == "/v1" {
			wantQuery = "beta=true"
		}
		if r.Path != "/v1/messages" || r.RawQuery != wantQuery {
			t.Errorf("base %q: request to %s?%s", suffix, r.Path, r.RawQuery)
		}
	}
	if got := New(Options{}).endpoint(); got != "https://api.anthropic.com/v1/messages" {
		t.Errorf("default endpoint = %s", got)
	}
}

func TestResponseFormatSchema(t *testing.T) {
	srv := llmtest.FakeAnthropic(t, llmtest.Text(`{"n":1}`))
	p := newTestProvider(srv, Options{Model: "claude-opus-4-7"}).WithThinking("low")
	mustRun(t, p, llm.Request{Messages: []llm.Message{llm.UserMessage("json please")},
		ResponseFormat: &llm.ResponseFormat{Type: "json_schema", Name: "n", Schema: json.RawMessage(`{"type":"object"}`)}})
	got := jsonOf(t, wireBody(t, srv, 0)["output_config"])
	if got != `{"effort":"low","format":{"schema":{"type":"object"},"type":"json_schema"}}` {
		t.Errorf("output_config = %s", got)
	}
}

func TestGenerationOptions(t *testing.T) {
	temp, topP, topK := 0.2, 0.9, 40
	srv := llmtest.FakeAnthropic(t, llmtest.Text("ok"))
	p := newTestProvider(srv, Options{Model: "claude-haiku-4-5", Temperature: &temp, TopP: &topP, TopK: &topK,
		MetadataUserID: "session-1", DefaultMaxTokens: 2048, Betas: []string{}})
	mustRun(t, p, llm.Request{System: "sys", Tools: []llm.Tool{{Name: "noargs", Description: "takes nothing"}},
		Messages: []llm.Message{llm.UserMessage("hi")}})
	if b := srv.Request(0).Header.Get("anthropic-beta"); b != "" {
		t.Errorf("anthropic-beta = %q with an empty beta list", b)
	}
	llmtest.Golden(t, "generation_options.golden.json", srv.Request(0).CanonicalBody())
}

func TestCopiesAreIndependent(t *testing.T) {
	p := New(Options{Model: "claude-sonnet-4-5", APIKey: "k"})
	kept := p.WithThinkingKeep("all").(*Provider)
	a := kept.WithThinking("high").(*Provider)
	b := kept.WithThinkingKeep("none").(*Provider)
	if p.thinking != nil || p.betaAPI || len(p.contextEdits) != 0 || p.ThinkingEffort() != "" {
		t.Errorf("original changed: %+v", p)
	}
	if d := cmp.Diff([]string{betaInterleavedThinking}, p.betas); d != "" {
		t.Errorf("original betas changed:\n%s", d)
	}
	if d := cmp.Diff([]string{betaInterleavedThinking, betaContextManagement}, a.betas); d != "" {
		t.Errorf("budget copy betas:\n%s", d)
	}
	if d := cmp.Diff([]contextEdit{{Type: editClearThinking, Keep: "none"}}, b.contextEdits); d != "" {
		t.Errorf("re-applied keep:\n%s", d)
	}
	if a.client != p.client || b.client != p.client {
		t.Errorf("copies do not share the HTTP client")
	}
	if kept.ThinkingEffort() != "" || a.ThinkingEffort() != "high" {
		t.Errorf("efforts: kept %q, a %q", kept.ThinkingEffort(), a.ThinkingEffort())
	}
}

func TestHeaderTimeout(t *testing.T) {
	srv := llmtest.FakeAnthropic(t, llmtest.Text("late").WithFault(llmtest.Fault{FirstByteDelay: time.Minute}))
	p := newTestProvider(srv, Options{ResponseHeaderTimeout: 20 * time.Millisecond})
	_, err := run(t, p, llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}})
	if e, ok := llm.AsError(err); !ok || e.Kind != llm.KindTimeout || !llm.IsRetryable(err) {
		t.Fatalf("got %v, want a retryable timeout", err)
	}
}

func TestIdleTimeout(t *testing.T) {
	srv := llmtest.FakeAnthropic(t, llmtest.Text("slow").WithFault(llmtest.Fault{EventDelay: time.Minute}))
	p := newTestProvider(srv, Options{IdleTimeout: 20 * time.Millisecond})
	_, err := run(t, p, llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}})
	if e, ok := llm.AsError(err); !ok || e.Kind != llm.KindTimeout {
		t.Fatalf("got %v, want a timeout", err)
	}
}

func TestCancelMidStreamIsAbort(t *testing.T) {
	srv := llmtest.FakeAnthropic(t, llmtest.Text("slow").WithFault(llmtest.Fault{EventDelay: time.Minute}))
	p := newTestProvider(srv, Options{})
	ctx, cancel := context.WithCancel(t.Context())
	s, err := p.Generate(ctx, &llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s.Close() }()
	cancel()
	if _, err := s.Next(); !llm.IsAbort(err) || llm.IsProviderError(err) {
		t.Fatalf("got %v, want an abort", err)
	}
}

func TestCancelledBeforeSending(t *testing.T) {
	srv := llmtest.FakeAnthropic(t, llmtest.Text("unused"))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := newTestProvider(srv, Options{}).Generate(ctx, &llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}})
	if !llm.IsAbort(err) || len(srv.Requests()) != 0 {
		t.Fatalf("got %v with %d requests, want an abort and none", err, len(srv.Requests()))
	}
}
