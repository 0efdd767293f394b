package openai

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/llmtest"
)

// weatherHistory is the conversation of spec 01 §3.2.1.
func weatherHistory() []llm.Message {
	return []llm.Message{
		llm.UserMessage("Check the weather."),
		{Role: llm.RoleAssistant,
			Content:   []llm.ContentPart{llm.TextPart("I will look it up."), think("I should call a tool.")},
			ToolCalls: []llm.ToolCall{call("call_weather", "lookup_weather", `{"city":"Shanghai"}`)}},
		llm.ToolMessage("call_weather", llm.TextPart("sunny and 26C")),
	}
}

var weatherTool = llm.Tool{Name: "lookup_weather", Description: "Look up the weather for a city.",
	Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`)}

func TestSK1RequestShape(t *testing.T) {
	srv := kimiServer(t, llmtest.Text("ok"))
	p := against(srv, Options{PromptCacheKey: "sess-1", ThinkingKeep: "all"}).
		WithThinking("high").WithMaxCompletionTokens(32000, llm.ContextBudget{})
	generate(t, p, llm.Request{System: "You are helpful.", Tools: []llm.Tool{weatherTool}, Messages: weatherHistory()})

	want := decodeJSON(t, `{"model":"kimi-k2-turbo-preview",
	 "messages":[
	  {"role":"system","content":"You are helpful."},
	  {"role":"user","content":"Check the weather."},
	  {"role":"assistant","content":"I will look it up.","reasoning_content":"I should call a tool.",
	   "tool_calls":[{"type":"function","id":"call_weather","function":{"name":"lookup_weather","arguments":"{\"city\":\"Shanghai\"}"}}]},
	  {"role":"tool","content":"sunny and 26C","tool_call_id":"call_weather"}],
	 "stream":true,"prompt_cache_key":"sess-1","max_completion_tokens":32000,
	 "thinking":{"type":"enabled","effort":"high","keep":"all"},
	 "tools":[{"type":"function","function":{"name":"lookup_weather","description":"Look up the weather for a city.","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}],
	 "stream_options":{"include_usage":true}}`)
	if d := cmp.Diff(want, any(body(t, srv, 0))); d != "" {
		t.Errorf("request body (-want +got):\n%s", d)
	}
	r := srv.Request(0)
	if r.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
		t.Errorf("request = %s %s; want POST /v1/chat/completions", r.Method, r.Path)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer test-key" {
		t.Errorf("Authorization = %q", got)
	}
	llmtest.Golden(t, "kimi_full_request.golden.json", r.CanonicalBody())
}

func TestSK2PreservedThinking(t *testing.T) {
	history := []llm.Message{
		llm.SystemMessage("Stay terse."),
		llm.UserMessage("Read a.go"),
		llm.AssistantMessage("", call("c1", "Read", `{"path":"a.go"}`)),
		llm.ToolMessage("c1", llm.TextPart("package a")),
		llm.AssistantMessage("done"),
		llm.UserMessage("thanks"),
	}
	reasoningOf := func(msgs []any) map[string]any {
		out := map[string]any{}
		for i, m := range msgs {
			mm := m.(map[string]any)
			if v, ok := mm["reasoning_content"]; ok {
				out[mm["role"].(string)+"#"+string(rune('0'+i))] = v
			}
		}
		return out
	}
	t.Run("keep all backfills every assistant", func(t *testing.T) {
		srv := kimiServer(t, llmtest.Text("ok"))
		p := against(srv, Options{ThinkingKeep: "all"}).WithThinking("on")
		generate(t, p, llm.Request{Messages: history})
		msgs := wireMessages(t, srv, 0)
		want := map[string]any{"assistant#2": "", "assistant#4": ""}
		if d := cmp.Diff(want, reasoningOf(msgs)); d != "" {
			t.Errorf("reasoning keys (-want +got):\n%s", d)
		}
		if _, ok := msgs[2].(map[string]any)["content"]; ok {
			t.Errorf("tool-call-only assistant has content: %v", msgs[2])
		}
		llmtest.Golden(t, "kimi_preserved_thinking.golden.json", srv.Request(0).CanonicalBody())
	})
	for _, tt := range []struct {
		name string
		opts Options
		with func(*Provider) llm.Provider
	}{
		{"keep missing", Options{}, func(p *Provider) llm.Provider { return p.WithThinking("high") }},
		{"keep off", Options{ThinkingKeep: "off"}, func(p *Provider) llm.Provider { return p.WithThinking("high") }},
		{"thinking disabled", Options{ThinkingKeep: "all"}, func(p *Provider) llm.Provider { return p.WithThinking("off") }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := kimiServer(t, llmtest.Text("ok"))
			generate(t, tt.with(against(srv, tt.opts)), llm.Request{Messages: history})
			if got := reasoningOf(wireMessages(t, srv, 0)); len(got) != 0 {
				t.Errorf("reasoning keys = %v; want none", got)
			}
		})
	}
}

func TestSK3ToolCallIDs(t *testing.T) {
	long := strings.Repeat("x", 70)
	history := []llm.Message{
		llm.UserMessage("go"),
		llm.AssistantMessage("", call("Read:9", "Read", `{}`), call("a_b", "Read", `{}`), call("a:b", "Read", `{}`),
			call(long, "Read", `{}`)),
		llm.ToolMessage("Read:9", llm.TextPart("1")),
		llm.ToolMessage("a_b", llm.TextPart("2")),
		llm.ToolMessage("a:b", llm.TextPart("3")),
		llm.ToolMessage(long, llm.TextPart("4")),
	}
	srv := kimiServer(t, llmtest.Text("ok"))
	generate(t, against(srv, Options{}), llm.Request{Messages: history})
	msgs := wireMessages(t, srv, 0)
	var callIDs, resultIDs []string
	for _, c := range msgs[1].(map[string]any)["tool_calls"].([]any) {
		callIDs = append(callIDs, c.(map[string]any)["id"].(string))
	}
	for _, m := range msgs[2:] {
		resultIDs = append(resultIDs, m.(map[string]any)["tool_call_id"].(string))
	}
	want := []string{"Read_9", "a_b", "a_b_2", strings.Repeat("x", 64)}
	if d := cmp.Diff(want, callIDs); d != "" {
		t.Errorf("call ids (-want +got):\n%s", d)
	}
	if d := cmp.Diff(want, resultIDs); d != "" {
		t.Errorf("result ids (-want +got):\n%s", d)
	}
}

func TestSK4ToolsAndSchemas(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{
		"truncateMode":{"enum":["none","start","end"]},
		"startLine":{"minimum":1},
		"externalHint":{"description":"A hint from outside."}}}`)
	before := append(json.RawMessage(nil), schema...)
	tools := []llm.Tool{
		{Name: "$web_search", Description: "ignored", Parameters: json.RawMessage(`{"type":"object"}`)},
		{Name: "replace_text", Description: "Replace text.", Parameters: schema},
	}
	srv := kimiServer(t, llmtest.Text("ok"))
	generate(t, against(srv, Options{}), llm.Request{Tools: tools, Messages: []llm.Message{llm.UserMessage("hi")}})

	want := decodeJSON(t, `[
	 {"type":"builtin_function","function":{"name":"$web_search"}},
	 {"type":"function","function":{"name":"replace_text","description":"Replace text.","parameters":{"type":"object","properties":{
	   "truncateMode":{"enum":["none","start","end"],"type":"string"},
	   "startLine":{"minimum":1,"type":"number"},
	   "externalHint":{"description":"A hint from outside.","type":"string"}}}}}]`)
	if d := cmp.Diff(want, body(t, srv, 0)["tools"]); d != "" {
		t.Errorf("tools (-want +got):\n%s", d)
	}
	if string(schema) != string(before) || string(tools[1].Parameters) != string(before) {
		t.Errorf("caller's schema changed:\n%s", schema)
	}
	llmtest.Golden(t, "kimi_builtin_tools.golden.json", srv.Request(0).CanonicalBody())
}

func TestSK7ReasoningDialect(t *testing.T) {
	srv := llmtest.FakeChatCompletionsWith(t, llmtest.ChatOptions{Flavour: llmtest.ChatKimi, ReasoningKey: "reasoning"},
		llmtest.Think("pondering", "answer"), llmtest.Text("ok"))
	p := against(srv, Options{})
	history := []llm.Message{llm.UserMessage("q")}
	res := generate(t, p, llm.Request{Messages: history})
	want := []llm.ContentPart{think("pondering"), llm.TextPart("answer")}
	if d := cmp.Diff(want, res.Message.Content); d != "" {
		t.Fatalf("content (-want +got):\n%s", d)
	}
	// A copy made after the first response learned the key too.
	generate(t, p.WithThinking("high"), llm.Request{Messages: append(history, res.Message, llm.UserMessage("more"))})
	got := wireMessages(t, srv, 1)[1].(map[string]any)
	if got["reasoning"] != "pondering" {
		t.Errorf("assistant message = %v; want reasoning %q", got, "pondering")
	}
	if _, ok := got["reasoning_content"]; ok {
		t.Errorf("assistant message still uses reasoning_content: %v", got)
	}
}

func TestReasoningKeyConfigured(t *testing.T) {
	srv := llmtest.FakeChatCompletionsWith(t, llmtest.ChatOptions{ReasoningKey: "thoughts"},
		llmtest.Think("deep", "answer"), llmtest.Text("ok"))
	p := against(srv, Options{Flavour: OpenAI, Model: "vllm-model", ReasoningKey: " thoughts "})
	res := generate(t, p, llm.Request{Messages: []llm.Message{llm.UserMessage("q")}})
	if d := cmp.Diff([]llm.ContentPart{think("deep"), llm.TextPart("answer")}, res.Message.Content); d != "" {
		t.Fatalf("content (-want +got):\n%s", d)
	}
	generate(t, p, llm.Request{Messages: []llm.Message{llm.UserMessage("q"), res.Message, llm.UserMessage("again")}})
	if got := wireMessages(t, srv, 1)[1].(map[string]any)["thoughts"]; got != "deep" {
		t.Errorf("assistant thoughts = %v; want %q", got, "deep")
	}
}

func TestSK8ThinkingToggles(t *testing.T) {
	base := New(Options{APIKey: "k", Model: "kimi"})
	for _, tt := range []struct {
		name       string
		p          llm.Provider
		wantWire   string
		wantEffort string
	}{
		{"off", base.WithThinking("off"), `{"type":"disabled"}`, "off"},
		{"on", base.WithThinking("on"), `{"type":"enabled"}`, "on"},
		{"max", base.WithThinking("max"), `{"type":"enabled","effort":"max"}`, "max"},
		{"extra body keep after high", base.WithThinking("high").(*Provider).
			WithExtraBody(map[string]json.RawMessage{"thinking": json.RawMessage(`{"keep":"all"}`)}),
			`{"type":"enabled","effort":"high","keep":"all"}`, "high"},
		{"keep survives a later toggle", base.WithExtraBody(map[string]json.RawMessage{"thinking": json.RawMessage(`{"keep":"all"}`)}).
			WithThinking("off"), `{"type":"disabled","keep":"all"}`, "off"},
		{"empty thinking patch is a no-op", base.WithThinking("low").(*Provider).
			WithExtraBody(map[string]json.RawMessage{"thinking": json.RawMessage(`{}`)}), `{"type":"enabled","effort":"low"}`, "low"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := kimiServer(t, llmtest.Text("ok"))
			p := tt.p.(*Provider)
			p.baseURL = llmtest.ChatBaseURL(srv)
			generate(t, p, llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}})
			b := body(t, srv, 0)
			if d := cmp.Diff(decodeJSON(t, tt.wantWire), b["thinking"]); d != "" {
				t.Errorf("thinking (-want +got):\n%s", d)
			}
			if _, ok := b["reasoning_effort"]; ok {
				t.Errorf("Kimi sent reasoning_effort: %v", b["reasoning_effort"])
			}
			if _, ok := b["extra_body"]; ok {
				t.Errorf("extra_body key on the wire")
			}
			if got := tt.p.ThinkingEffort(); got != tt.wantEffort {
				t.Errorf("ThinkingEffort() = %q; want %q", got, tt.wantEffort)
			}
		})
	}
	if got := base.ThinkingEffort(); got != "" {
		t.Errorf("ThinkingEffort() without thinking = %q; want empty", got)
	}
}

func TestSO1TokenField(t *testing.T) {
	for _, tt := range []struct {
		model, field string
		limit, want  int
	}{
		{"gpt-5-mini", "max_completion_tokens", 1000, 1000},
		{"o3", "max_completion_tokens", 1000, 1000},
		{"gpt-4.1", "max_tokens", 1000, 1000},
		{"deepseek-reasoner", "max_tokens", 1000, 1000},
		{"gpt-4.1", "max_tokens", 200000, 131072},
	} {
		t.Run(tt.model, func(t *testing.T) {
			srv := llmtest.FakeChatCompletions(t, llmtest.Text("ok"))
			p := against(srv, Options{Flavour: OpenAI, Model: tt.model}).WithMaxCompletionTokens(tt.limit, llm.ContextBudget{})
			if got := p.MaxCompletionTokens(); got != tt.want {
				t.Errorf("MaxCompletionTokens() = %d; want %d", got, tt.want)
			}
			generate(t, p, llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}})
			b := body(t, srv, 0)
			got := map[string]any{}
			for _, k := range []string{"max_tokens", "max_completion_tokens"} {
				if v, ok := b[k]; ok {
					got[k] = v
				}
			}
			if d := cmp.Diff(map[string]any{tt.field: float64(tt.want)}, got); d != "" {
				t.Errorf("cap fields (-want +got):\n%s", d)
			}
		})
	}
}

func TestKimiRenamesMaxTokens(t *testing.T) {
	srv := kimiServer(t, llmtest.Text("ok"))
	temp := 0.6
	p := against(srv, Options{GenerationKwargs: GenerationKwargs{MaxTokens: 4096, Temperature: &temp, Stop: []string{"END"}}})
	generate(t, p, llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}})
	b := body(t, srv, 0)
	if b["max_completion_tokens"] != float64(4096) || b["max_tokens"] != nil {
		t.Errorf("cap fields: max_completion_tokens=%v max_tokens=%v", b["max_completion_tokens"], b["max_tokens"])
	}
	if b["temperature"] != 0.6 || cmp.Diff([]any{"END"}, b["stop"]) != "" {
		t.Errorf("kwargs: temperature=%v stop=%v", b["temperature"], b["stop"])
	}
}

func TestSO2ToolResultMedia(t *testing.T) {
	imgA := llm.ImagePart("https://example.com/a.png")
	imgB := llm.ImagePart("data:image/png;base64,iVBORw0KGgo=")
	history := []llm.Message{
		llm.UserMessage("look"),
		llm.AssistantMessage("", call("c1", "Shot", `{}`), call("c2", "Shot", `{}`)),
		llm.ToolMessage("c1", llm.TextPart("5"), imgA),
		llm.ToolMessage("c2", imgB),
		llm.UserMessage("what do you see?"),
	}
	srv := llmtest.FakeChatCompletions(t, llmtest.Text("ok"))
	generate(t, against(srv, Options{Flavour: OpenAI, Model: "gpt-4.1"}), llm.Request{Messages: history})
	want := decodeJSON(t, `[
	 {"role":"user","content":"look"},
	 {"role":"assistant","tool_calls":[
	   {"type":"function","id":"c1","function":{"name":"Shot","arguments":"{}"}},
	   {"type":"function","id":"c2","function":{"name":"Shot","arguments":"{}"}}]},
	 {"role":"tool","content":"5","tool_call_id":"c1"},
	 {"role":"tool","content":"(see attached media)","tool_call_id":"c2"},
	 {"role":"user","content":[{"type":"text","text":"Attached media from tool result:"},
	   {"type":"image_url","image_url":{"url":"https://example.com/a.png"}},
	   {"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}}]},
	 {"role":"user","content":"what do you see?"}]`)
	if d := cmp.Diff(want, any(wireMessages(t, srv, 0))); d != "" {
		t.Errorf("messages (-want +got):\n%s", d)
	}
	llmtest.Golden(t, "openai_tool_media.golden.json", srv.Request(0).CanonicalBody())
}

func TestSO3ReasoningEffort(t *testing.T) {
	thinking := []llm.Message{
		llm.UserMessage("q"),
		{Role: llm.RoleAssistant, Content: []llm.ContentPart{think("hmm"), llm.TextPart("a")}},
		llm.UserMessage("q2"),
	}
	plain := []llm.Message{llm.UserMessage("q")}
	off := func(p *Provider) llm.Provider { return p.WithThinking("off") }
	on := func(p *Provider) llm.Provider { return p.WithThinking("on") }
	none := func(p *Provider) llm.Provider { return p }
	for _, tt := range []struct {
		name    string
		opts    Options
		with    func(*Provider) llm.Provider
		history []llm.Message
		want    any // nil: field absent
	}{
		{"unset with thinking in history", Options{}, none, thinking, "medium"},
		{"unset without thinking", Options{}, none, plain, nil},
		{"off with off value", Options{OffEffort: "none"}, off, thinking, "none"},
		{"off without off value", Options{}, off, thinking, nil},
		{"on without thinking", Options{}, on, plain, nil},
		{"on with thinking", Options{}, on, thinking, "medium"},
		{"explicit effort", Options{}, func(p *Provider) llm.Provider { return p.WithThinking("xhigh") }, plain, "xhigh"},
		{"kwargs effort stops auto", Options{GenerationKwargs: GenerationKwargs{ReasoningEffort: "low"}}, none, thinking, "low"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.FakeChatCompletions(t, llmtest.Text("ok"))
			tt.opts.Flavour, tt.opts.Model = OpenAI, "gpt-5"
			generate(t, tt.with(against(srv, tt.opts)), llm.Request{Messages: tt.history})
			if got := body(t, srv, 0)["reasoning_effort"]; got != tt.want {
				t.Errorf("reasoning_effort = %v; want %v", got, tt.want)
			}
		})
	}
	if got := New(Options{Flavour: OpenAI}).WithThinking("high").ThinkingEffort(); got != "high" {
		t.Errorf("ThinkingEffort() = %q; want high", got)
	}
}

func TestMessageLevelTools(t *testing.T) {
	decl := llm.Message{Role: llm.RoleSystem, Tools: []llm.Tool{weatherTool, {Name: "$web_search"}}}
	history := []llm.Message{llm.UserMessage("hi"), llm.AssistantMessage("hello"), decl, llm.UserMessage("weather?")}
	t.Run("kimi sends them", func(t *testing.T) {
		srv := kimiServer(t, llmtest.Text("ok"))
		generate(t, against(srv, Options{}), llm.Request{Messages: history})
		msgs := wireMessages(t, srv, 0)
		if len(msgs) != 4 {
			t.Fatalf("got %d messages; want 4", len(msgs))
		}
		llmtest.Golden(t, "kimi_message_tools.golden.json", srv.Request(0).CanonicalBody())
	})
	t.Run("openai skips them", func(t *testing.T) {
		srv := llmtest.FakeChatCompletions(t, llmtest.Text("ok"))
		generate(t, against(srv, Options{Flavour: OpenAI}), llm.Request{Messages: history})
		for _, m := range wireMessages(t, srv, 0) {
			if _, ok := m.(map[string]any)["tools"]; ok {
				t.Errorf("openai sent message-level tools: %v", m)
			}
		}
		if n := len(wireMessages(t, srv, 0)); n != 3 {
			t.Errorf("got %d messages; want 3", n)
		}
	})
}

func TestResponseFormats(t *testing.T) {
	strict := true
	for _, tt := range []struct {
		name string
		f    *llm.ResponseFormat
	}{
		{"json_object", &llm.ResponseFormat{Type: "json_object"}},
		{"json_schema", &llm.ResponseFormat{Type: "json_schema", Name: "answer", Strict: &strict,
			Description: "The answer.", Schema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer"}}}`)}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.FakeChatCompletions(t, llmtest.Text(`{"a":1}`))
			generate(t, against(srv, Options{Flavour: OpenAI, Model: "gpt-4.1"}),
				llm.Request{Messages: []llm.Message{llm.UserMessage("json please")}, ResponseFormat: tt.f})
			llmtest.Golden(t, "response_format_"+tt.name+".golden.json", srv.Request(0).CanonicalBody())
		})
	}
	srv := llmtest.FakeChatCompletions(t)
	_, err := llm.Generate(t.Context(), against(srv, Options{}), llm.Request{Messages: []llm.Message{llm.UserMessage("x")},
		ResponseFormat: &llm.ResponseFormat{Type: "xml"}}, llm.Callbacks{})
	if !llm.IsInvalidRequest(err) || len(srv.Requests()) != 0 {
		t.Errorf("unknown format: err = %v, requests = %d; want invalid request, none sent", err, len(srv.Requests()))
	}
}

func TestOpenAIToolSchemaBytesPassThrough(t *testing.T) {
	params := json.RawMessage(`{"properties":{"x":{"enum":[1,2]}},  "type" : "object"}`)
	srv := llmtest.FakeChatCompletions(t, llmtest.Text("ok"))
	generate(t, against(srv, Options{Flavour: OpenAI}), llm.Request{
		Tools: []llm.Tool{{Name: "t", Description: "d", Parameters: params}}, Messages: []llm.Message{llm.UserMessage("hi")}})
	if !strings.Contains(string(srv.Request(0).Body), `"parameters":`+string(params)) {
		t.Errorf("parameters were re-encoded:\n%s", srv.Request(0).Body)
	}
}

func TestInvalidRequests(t *testing.T) {
	srv := kimiServer(t)
	for _, tt := range []struct {
		name string
		req  llm.Request
		p    *Provider
	}{
		{"tool message without id", llm.Request{Messages: []llm.Message{llm.UserMessage("x"),
			{Role: llm.RoleTool, Content: []llm.ContentPart{llm.TextPart("r")}}}}, against(srv, Options{})},
		{"kimi schema conflict", llm.Request{Messages: []llm.Message{llm.UserMessage("x")}, Tools: []llm.Tool{{Name: "t",
			Parameters: json.RawMessage(`{"type":"object","properties":{"a":{"enum":["x",1]}}}`)}}}, against(srv, Options{})},
		{"tool parameters not JSON", llm.Request{Messages: []llm.Message{llm.UserMessage("x")}, Tools: []llm.Tool{{Name: "t",
			Parameters: json.RawMessage(`{"type":`)}}}, against(srv, Options{Flavour: OpenAI})},
		{"extra body not JSON", llm.Request{Messages: []llm.Message{llm.UserMessage("x")}},
			against(srv, Options{ExtraBody: map[string]json.RawMessage{"foo": json.RawMessage(`{`)}})},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := llm.Generate(t.Context(), tt.p, tt.req, llm.Callbacks{})
			if !llm.IsInvalidRequest(err) || llm.IsRetryable(err) {
				t.Errorf("err = %v; want a non-retryable invalid request", err)
			}
		})
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("server got %d requests; want 0", n)
	}
}

func TestExtraBodyHoisted(t *testing.T) {
	srv := kimiServer(t, llmtest.Text("ok"))
	temp := 0.2
	p := against(srv, Options{GenerationKwargs: GenerationKwargs{Temperature: &temp},
		ExtraBody: map[string]json.RawMessage{"temperature": json.RawMessage(`1`), "model": json.RawMessage(`"evil"`),
			"safe_mode": json.RawMessage(`true`)}})
	generate(t, p, llm.Request{Messages: []llm.Message{llm.UserMessage("x")}})
	b := body(t, srv, 0)
	if b["temperature"] != float64(1) || b["model"] != "kimi-k2-turbo-preview" || b["safe_mode"] != true {
		t.Errorf("temperature=%v model=%v safe_mode=%v; want 1, the configured model, true", b["temperature"], b["model"], b["safe_mode"])
	}
	if strings.Count(string(srv.Request(0).Body), `"temperature"`) != 1 {
		t.Errorf("temperature sent twice:\n%s", srv.Request(0).Body)
	}
}

// encodeRequest is the request body in one buffer: the bytes the
// transport sends.
func (p *Provider) encodeRequest(req *llm.Request) ([]byte, error) {
	b, err := p.requestBody(req)
	if err != nil {
		return nil, err
	}
	return b.Bytes()
}

// The tool table is encoded once and its bytes reused while the tools stay
// the same (issue 23: encode only what changed): equal tables, in the
// same slice or another, send the same bytes; a changed description is
// sent; a table that cannot be sent fails every time, and the table
// before it is still sent right afterwards.
func TestToolTableEncodedOnceWhileUnchanged(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"mode":{"enum":["a","b"]}}}`)
	tools := []llm.Tool{
		{Name: "$web_search", Description: "ignored"},
		{Name: "pick", Description: "Pick a mode.", Parameters: schema},
	}
	srv := kimiServer(t, llmtest.Text("0"), llmtest.Text("1"), llmtest.Text("2"), llmtest.Text("3"), llmtest.Text("4"))
	p := against(srv, Options{})
	msgs := []llm.Message{llm.UserMessage("hi")}
	generate(t, p, llm.Request{Tools: tools, Messages: msgs})
	generate(t, p, llm.Request{Tools: tools, Messages: msgs})
	copied := []llm.Tool{
		{Name: strings.Clone("$web_search"), Description: strings.Clone("ignored")},
		{Name: strings.Clone("pick"), Description: strings.Clone("Pick a mode."), Parameters: append(json.RawMessage(nil), schema...)},
	}
	generate(t, p, llm.Request{Tools: copied, Messages: msgs})
	changed := slices.Clone(tools)
	changed[1].Description = "Pick a mode, carefully."
	generate(t, p, llm.Request{Tools: changed, Messages: msgs})
	broken := slices.Clone(tools)
	broken[1].Parameters = json.RawMessage(`{"type":`)
	for range 2 {
		if _, err := llm.Generate(t.Context(), p, llm.Request{Tools: broken, Messages: msgs}, llm.Callbacks{}); !llm.IsInvalidRequest(err) {
			t.Fatalf("tools with a broken schema: err = %v; want an invalid request", err)
		}
	}
	generate(t, p, llm.Request{Tools: tools, Messages: msgs})

	want := decodeJSON(t, `[
	 {"type":"builtin_function","function":{"name":"$web_search"}},
	 {"type":"function","function":{"name":"pick","description":"Pick a mode.","parameters":{"type":"object","properties":{
	   "mode":{"enum":["a","b"],"type":"string"}}}}}]`)
	if d := cmp.Diff(want, body(t, srv, 0)["tools"]); d != "" {
		t.Errorf("tools of the first request (-want +got):\n%s", d)
	}
	if n := len(srv.Requests()); n != 5 {
		t.Fatalf("%d requests; want 5", n)
	}
	for _, i := range []int{1, 2, 4} {
		if got, first := string(srv.Request(i).Body), string(srv.Request(0).Body); got != first {
			t.Errorf("request %d differs from request 0:\n%s\n%s", i, got, first)
		}
	}
	fn := body(t, srv, 3)["tools"].([]any)[1].(map[string]any)["function"].(map[string]any)
	if fn["description"] != "Pick a mode, carefully." {
		t.Errorf("the changed description was not sent: %v", fn)
	}
}

// The tool table goes out from the cache after the tail (wire.BodyParts.More)
// without a byte changing: the same slice twice, then an equal table in
// other memory, each send the golden body, byte for byte (the golden file
// compacted is the body as sent), and all three bodies are identical.
func TestSameToolTableSendsTheGoldenBodyTwice(t *testing.T) {
	for _, tt := range []struct {
		golden string
		tools  []llm.Tool
	}{
		{"kimi_full_request.golden.json", []llm.Tool{weatherTool}},
		{"kimi_builtin_tools.golden.json", []llm.Tool{
			{Name: "$web_search", Description: "ignored", Parameters: json.RawMessage(`{"type":"object"}`)},
			{Name: "replace_text", Description: "Replace text.", Parameters: json.RawMessage(`{"type":"object","properties":{
		"truncateMode":{"enum":["none","start","end"]},
		"startLine":{"minimum":1},
		"externalHint":{"description":"A hint from outside."}}}`)}}},
	} {
		t.Run(tt.golden, func(t *testing.T) {
			srv := kimiServer(t, llmtest.Text("0"), llmtest.Text("1"), llmtest.Text("2"))
			var p llm.Provider
			req := llm.Request{Tools: tt.tools, Messages: []llm.Message{llm.UserMessage("hi")}}
			if tt.golden == "kimi_full_request.golden.json" {
				p = against(srv, Options{PromptCacheKey: "sess-1", ThinkingKeep: "all"}).
					WithThinking("high").WithMaxCompletionTokens(32000, llm.ContextBudget{})
				req = llm.Request{System: "You are helpful.", Tools: tt.tools, Messages: weatherHistory()}
			} else {
				p = against(srv, Options{})
			}
			generate(t, p, req)
			generate(t, p, req)
			other := req
			other.Tools = nil
			for _, tool := range tt.tools {
				other.Tools = append(other.Tools, llm.Tool{Name: strings.Clone(tool.Name), Description: strings.Clone(tool.Description),
					Parameters: slices.Clone(tool.Parameters)})
			}
			generate(t, p, other)

			golden, err := os.ReadFile(filepath.Join("testdata", tt.golden))
			if err != nil {
				t.Fatal(err)
			}
			var want bytes.Buffer
			if err := json.Compact(&want, golden); err != nil {
				t.Fatal(err)
			}
			if n := len(srv.Requests()); n != 3 {
				t.Fatalf("%d requests; want 3", n)
			}
			for i := range 3 {
				llmtest.Golden(t, tt.golden, srv.Request(i).CanonicalBody())
				if got := srv.Request(i).CanonicalBody(); !bytes.Equal(got, want.Bytes()) {
					t.Errorf("request %d is not the golden body byte for byte:\n got %s\nwant %s", i, got, want.Bytes())
				}
			}
		})
	}
}
