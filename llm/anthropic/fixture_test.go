package anthropic

import (
	"encoding/json"
	"testing"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/llm/scripted"
)

// newTestProvider points a provider at srv with a test key and, unless
// opts says otherwise, a Claude model.
func newTestProvider(srv *llmtest.Server, opts Options) *Provider {
	opts.BaseURL = srv.URL
	if opts.APIKey == "" {
		opts.APIKey = "test-key"
	}
	if opts.Model == "" {
		opts.Model = "claude-sonnet-4-5"
	}
	return New(opts)
}

// run sends req through llm.Generate, as the loop does.
func run(t *testing.T, p llm.Provider, req llm.Request) (*llm.Result, error) {
	t.Helper()
	return llm.Generate(t.Context(), p, req, llm.Callbacks{})
}

// mustRun is run that fails the test on error.
func mustRun(t *testing.T, p llm.Provider, req llm.Request) *llm.Result {
	t.Helper()
	res, err := run(t, p, req)
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	return res
}

// wireBody decodes a captured request body; the test fails unless the
// fake server accepted it.
func wireBody(t *testing.T, srv *llmtest.Server, i int) map[string]any {
	t.Helper()
	r := srv.Request(i)
	if r.Rejected != 0 {
		t.Fatalf("fake server rejected request %d: %d %s", i, r.Rejected, r.RejectReason)
	}
	return r.JSON(t)
}

// at walks a decoded JSON value by keys and indexes.
func at(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("at %v: %T is not an object", path, v)
			}
			v = m[k]
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				t.Fatalf("at %v: no index %d in %v", path, k, v)
			}
			v = a[k]
		}
	}
	return v
}

func has(v any, key string) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	_, ok = m[key]
	return ok
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func tool(name string) llm.Tool {
	return llm.Tool{Name: name, Description: name + " two numbers",
		Parameters: json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}`)}
}

func call(id, name, args string) llm.ToolCall {
	return llm.ToolCall{ID: id, Name: name, Arguments: args}
}

// parallelHistory is the parallel tool exchange of spec 01 §3.4.3.
func parallelHistory() []llm.Message {
	return []llm.Message{
		llm.UserMessage("Calculate 2+3 and 4*5."),
		llm.AssistantMessage("I'll compute both.", call("toolu_add", "add", `{"a": 2, "b": 3}`), call("toolu_mul", "multiply", `{"a":4,"b":5}`)),
		llm.ToolMessage("toolu_add", llm.TextPart("5")),
		llm.ToolMessage("toolu_mul", llm.TextPart("20")),
	}
}

// scriptedRedacted is a reply whose thinking arrives as a redacted_thinking
// block, followed by text.
func scriptedRedacted() scripted.Response {
	return scripted.Response{Parts: []llm.StreamPart{
		llm.ContentStreamPart(llm.ThinkPart("", "opaque-blob")),
		llm.ContentStreamPart(llm.TextPart("visible")),
	}}
}
