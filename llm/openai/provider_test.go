package openai

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/llmtest"
)

// kimiServer is a Kimi-flavoured fake with the given replies.
func kimiServer(t *testing.T, replies ...llmtest.Reply) *llmtest.Server {
	t.Helper()
	return llmtest.FakeChatCompletionsWith(t, llmtest.ChatOptions{Flavour: llmtest.ChatKimi}, replies...)
}

// against points opts at srv with a test key and model unless set.
func against(srv *llmtest.Server, o Options) *Provider {
	o.BaseURL = llmtest.ChatBaseURL(srv)
	if o.APIKey == "" {
		o.APIKey = "test-key"
	}
	if o.Model == "" {
		o.Model = "kimi-k2-turbo-preview"
	}
	return New(o)
}

// generate runs llm.Generate and fails the test on error.
func generate(t *testing.T, p llm.Provider, req llm.Request) *llm.Result {
	t.Helper()
	res, err := llm.Generate(t.Context(), p, req, llm.Callbacks{})
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	return res
}

// body decodes request i of srv.
func body(t *testing.T, srv *llmtest.Server, i int) map[string]any {
	t.Helper()
	r := srv.Request(i)
	if r.Rejected != 0 {
		t.Fatalf("request %d rejected with %d: %s", i, r.Rejected, r.RejectReason)
	}
	return r.JSON(t)
}

// wireMessages returns the messages array of request i.
func wireMessages(t *testing.T, srv *llmtest.Server, i int) []any {
	t.Helper()
	msgs, _ := body(t, srv, i)["messages"].([]any)
	return msgs
}

func decodeJSON(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad JSON in test: %v\n%s", err, s)
	}
	return v
}

func think(s string) llm.ContentPart { return llm.ThinkPart(s, "") }

func call(id, name, args string) llm.ToolCall {
	return llm.ToolCall{ID: id, Name: name, Arguments: args}
}

func TestCompletionCapClamp(t *testing.T) {
	kimi := New(Options{})
	for _, tt := range []struct {
		name   string
		p      llm.Provider
		n      int
		budget llm.ContextBudget
		want   int
	}{
		{"kimi clamps to the window left", kimi, 200000, llm.ContextBudget{UsedContextTokens: 100000, MaxContextTokens: 262144}, 162144},
		{"kimi has no ceiling", kimi, 200000, llm.ContextBudget{}, 200000},
		{"unknown usage does not clamp", kimi, 5000, llm.ContextBudget{MaxContextTokens: 1000}, 5000},
		{"at least one", kimi, 10, llm.ContextBudget{UsedContextTokens: 2000, MaxContextTokens: 1000}, 1},
		{"openai ceiling after window", New(Options{Flavour: OpenAI}), 400000, llm.ContextBudget{UsedContextTokens: 1, MaxContextTokens: 1000000}, 131072},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.WithMaxCompletionTokens(tt.n, tt.budget).MaxCompletionTokens(); got != tt.want {
				t.Errorf("cap = %d; want %d", got, tt.want)
			}
		})
	}
	if got := New(Options{GenerationKwargs: GenerationKwargs{MaxTokens: 4096}}).MaxCompletionTokens(); got != 4096 {
		t.Errorf("kwargs max_tokens cap = %d; want 4096", got)
	}
}

func TestAuthAndHeaders(t *testing.T) {
	srv := kimiServer(t, llmtest.Text("a"), llmtest.Text("b"))
	p := against(srv, Options{APIKey: "ctor-key", Headers: map[string]string{"User-Agent": "kimigo/test", "X-Msh-Device": "d1"}})
	var sent int
	generate(t, p, llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}, OnRequestSent: func() { sent++ }})
	generate(t, p, llm.Request{Messages: []llm.Message{llm.UserMessage("hi")},
		Auth: &llm.Auth{APIKey: "oauth-token", Headers: map[string]string{"X-Msh-Device": "d2"}}})
	if sent != 1 {
		t.Errorf("OnRequestSent called %d times; want 1", sent)
	}
	for i, want := range []map[string]string{
		{"Authorization": "Bearer ctor-key", "User-Agent": "kimigo/test", "X-Msh-Device": "d1"},
		{"Authorization": "Bearer oauth-token", "User-Agent": "kimigo/test", "X-Msh-Device": "d2"},
	} {
		got := map[string]string{}
		for k := range want {
			got[k] = srv.Request(i).Header.Get(k)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("request %d headers (-want +got):\n%s", i, d)
		}
	}
}

func TestMissingAPIKey(t *testing.T) {
	srv := kimiServer(t)
	for _, f := range []Flavour{Kimi, OpenAI} {
		p := New(Options{Flavour: f, BaseURL: llmtest.ChatBaseURL(srv), Model: "m"})
		sent := false
		_, err := llm.Generate(t.Context(), p, llm.Request{Messages: []llm.Message{llm.UserMessage("hi")},
			OnRequestSent: func() { sent = true }}, llm.Callbacks{})
		if !llm.IsInvalidRequest(err) || !strings.Contains(err.Error(), string(f)) || llm.IsRetryable(err) {
			t.Errorf("%s: err = %v; want a non-retryable invalid request naming the provider", f, err)
		}
		if sent {
			t.Errorf("%s: OnRequestSent called without a key", f)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("server got %d requests; want 0", n)
	}
}

func TestNeverReadsEnvironment(t *testing.T) {
	srv := kimiServer(t, llmtest.Text("ok"))
	t.Setenv("OPENAI_API_KEY", "env-openai")
	t.Setenv("KIMI_API_KEY", "env-kimi")
	t.Setenv("KIMI_BASE_URL", "http://127.0.0.1:1/v1")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
	t.Setenv("OPENAI_ORG_ID", "org-leak")
	t.Setenv("OPENAI_CUSTOM_HEADERS", "X-Leak: shell")
	t.Setenv("HTTPS_PROXY", "http://127.0.0.1:1")

	for _, f := range []Flavour{Kimi, OpenAI} {
		_, err := New(Options{Flavour: f}).Generate(t.Context(), &llm.Request{Messages: []llm.Message{llm.UserMessage("x")}})
		if !llm.IsInvalidRequest(err) {
			t.Errorf("%s with only env credentials: err = %v; want invalid request", f, err)
		}
	}
	if got := New(Options{APIKey: "k"}).baseURL; got != DefaultKimiBaseURL {
		t.Errorf("kimi base URL = %q; want %q", got, DefaultKimiBaseURL)
	}
	if got := New(Options{Flavour: OpenAI, APIKey: "k"}).baseURL; got != DefaultOpenAIBaseURL {
		t.Errorf("openai base URL = %q; want %q", got, DefaultOpenAIBaseURL)
	}
	if tr := New(Options{}).client.Transport.(*http.Transport); tr.Proxy != nil {
		t.Errorf("default transport takes its proxy from the environment")
	}
	generate(t, against(srv, Options{APIKey: "given"}), llm.Request{Messages: []llm.Message{llm.UserMessage("x")}})
	h := srv.Request(0).Header
	if h.Get("Authorization") != "Bearer given" || h.Get("X-Leak") != "" || h.Get("OpenAI-Organization") != "" {
		t.Errorf("headers leak the environment: %v", h)
	}
}

func TestCopiesShareNothingMutable(t *testing.T) {
	base := New(Options{ThinkingKeep: "all"})
	a := base.WithThinking("high").(*Provider)
	b := base.WithThinking("off").(*Provider)
	_ = a.WithExtraBody(map[string]json.RawMessage{"thinking": json.RawMessage(`{"keep":"none"}`), "x": json.RawMessage(`1`)})
	if a.ThinkingEffort() != "high" || b.ThinkingEffort() != "off" || base.ThinkingEffort() != "on" {
		t.Errorf("efforts = %q %q %q; want high off on", a.ThinkingEffort(), b.ThinkingEffort(), base.ThinkingEffort())
	}
	if _, ok := a.body.keys["x"]; ok || rawString(a.body.thinking["keep"]) != "all" {
		t.Errorf("WithExtraBody changed its receiver: %+v", a.body)
	}
	if a.client != base.client || a.dialect != base.dialect || b.dialect != base.dialect {
		t.Errorf("copies do not share the client and dialect")
	}
}
