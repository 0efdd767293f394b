package llmtest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/scripted"
)

// post sends body to srv's chat path and returns status and response body.
func post(t *testing.T, srv *Server, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, ChatBaseURL(srv)+"/chat/completions",
		strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// errorOf decodes an error body.
func errorOf(t *testing.T, body string) chatError {
	t.Helper()
	var v struct{ Error chatError }
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("error body is not JSON: %v\n%s", err, body)
	}
	return v.Error
}

func request(msgs string) string {
	return `{"model":"m","messages":` + msgs + `,"stream":true,"stream_options":{"include_usage":true}}`
}

const (
	userMsg  = `{"role":"user","content":"hi"}`
	callsMsg = `{"role":"assistant","tool_calls":[{"type":"function","id":"c1","function":{"name":"Read","arguments":"{}"}},` +
		`{"type":"function","id":"c2","function":{"name":"Grep","arguments":"{}"}}]}`
)

func tool(id string) string { return `{"role":"tool","content":"r","tool_call_id":"` + id + `"}` }

func msgs(ms ...string) string { return "[" + strings.Join(ms, ",") + "]" }

func TestChatStrictRules(t *testing.T) {
	for _, tt := range []struct {
		name    string
		flavour ChatFlavour
		body    string
		message string
		param   string
	}{
		{"body not JSON", ChatOpenAI, `{"model":`, "We could not parse the JSON body", ""},
		{"missing model", ChatOpenAI, `{"messages":[` + userMsg + `],"stream":true}`, "you must provide a model parameter", ""},
		{"missing messages", ChatOpenAI, `{"model":"m","stream":true}`, "Missing required parameter: 'messages'.", "messages"},
		{"empty messages", ChatOpenAI, `{"model":"m","messages":[],"stream":true}`, "Invalid 'messages': empty array.", "messages"},
		{"unknown role", ChatOpenAI, request(msgs(`{"role":"robot","content":"x"}`)), "Invalid value: 'robot'.", "messages[0].role"},
		{"openai orphan tool result", ChatOpenAI, request(msgs(userMsg, tool("c9"))),
			"Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", "messages.[1].role"},
		{"kimi orphan tool result", ChatKimi, request(msgs(userMsg, tool("c9"))), "tool_call_id  is not found", "messages[1].tool_call_id"},
		{"result answers a call of an earlier run", ChatKimi,
			request(msgs(userMsg, callsMsg, tool("c1"), tool("c2"), `{"role":"assistant","content":"ok"}`, userMsg, tool("c1"))),
			"tool_call_id  is not found", "messages[6].tool_call_id"},
		{"result after a user message", ChatOpenAI,
			request(msgs(userMsg, `{"role":"assistant","tool_calls":[{"type":"function","id":"c1","function":{"name":"R","arguments":"{}"}}]}`,
				userMsg, tool("c1"))),
			"An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. " +
				"The following tool_call_ids did not have response messages: c1", "messages.[1].role"},
		{"unanswered call at the end", ChatKimi, request(msgs(userMsg, callsMsg, tool("c2"))),
			"The following tool_call_ids did not have response messages: c1", "messages.[1].role"},
		{"tool result twice", ChatOpenAI, request(msgs(userMsg, callsMsg, tool("c1"), tool("c1"), tool("c2"))),
			"must be a response to a preceeding message", "messages.[3].role"},
		{"tool message without id", ChatOpenAI, request(msgs(userMsg, callsMsg, `{"role":"tool","content":"r"}`)),
			"Missing parameter 'tool_call_id'", "messages.[2].tool_call_id"},
		{"duplicate call ids", ChatOpenAI, request(msgs(userMsg,
			`{"role":"assistant","tool_calls":[{"type":"function","id":"c1","function":{"name":"A","arguments":"{}"}},`+
				`{"type":"function","id":"c1","function":{"name":"B","arguments":"{}"}}]}`, tool("c1"))),
			"Duplicate value for 'tool_call_id' of c1", "messages[1].tool_calls[1].id"},
		{"empty call id", ChatOpenAI, request(msgs(userMsg,
			`{"role":"assistant","tool_calls":[{"type":"function","id":"","function":{"name":"A","arguments":"{}"}}]}`)),
			"Invalid 'messages[1].tool_calls[0].id': empty string.", "messages[1].tool_calls[0].id"},
		{"empty tool name", ChatOpenAI, request(msgs(userMsg,
			`{"role":"assistant","tool_calls":[{"type":"function","id":"c1","function":{"name":"","arguments":"{}"}}]}`)),
			"Invalid 'messages[1].tool_calls[0].function.name': empty string.", "messages[1].tool_calls[0].function.name"},
		{"empty assistant", ChatKimi, request(msgs(userMsg, `{"role":"assistant","content":""}`, userMsg)),
			"Invalid request: the message at position 1 with role 'assistant' must not be empty", "messages[1].content"},
		{"assistant without content key", ChatOpenAI, request(msgs(userMsg, `{"role":"assistant"}`, userMsg)),
			"the message at position 1 with role 'assistant' must not be empty", "messages[1].content"},
		{"kimi: assistant first", ChatKimi, request(msgs(`{"role":"system","content":"s"}`, `{"role":"assistant","content":"a"}`, userMsg)),
			"first message must use the user role", ""},
		{"openai: assistant first", ChatOpenAI, request(msgs(`{"role":"system","content":"s"}`, `{"role":"assistant","content":"a"}`, userMsg)),
			"Invalid 'messages': first message must use the user role (after system and developer messages), got 'assistant' at position 1.",
			"messages[1].role"},
		{"openai: calls before any user message", ChatOpenAI, request(msgs(`{"role":"developer","content":"d"}`, callsMsg, tool("c1"), tool("c2"), userMsg)),
			"got 'assistant' at position 1", "messages[1].role"},
		{"openai: tool result first", ChatOpenAI, request(msgs(`{"role":"system","content":"s"}`, tool("c1"), userMsg)),
			"got 'tool' at position 1", "messages[1].role"},
		{"kimi: tool result first", ChatKimi, request(msgs(tool("c1"), userMsg)),
			"Invalid request: first message must use the user role (after system messages), got 'tool' at position 0", ""},
		{"kimi context window", ChatKimi, request(msgs(`{"role":"user","content":"` + strings.Repeat("x", 2000) + `"}`)),
			"Invalid request: Your request exceeded model token limit: 100 (requested: ", ""},
		{"openai context window", ChatOpenAI, request(msgs(`{"role":"user","content":"` + strings.Repeat("x", 2000) + `"}`)),
			"This model's maximum context length is 100 tokens.", "messages"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := FakeChatCompletionsWith(t, ChatOptions{Flavour: tt.flavour, ContextWindow: 100}, Text("never served"))
			status, body := post(t, srv, tt.body)
			if status != http.StatusBadRequest {
				t.Fatalf("status = %d; want 400\n%s", status, body)
			}
			e := errorOf(t, body)
			if !strings.Contains(e.Message, tt.message) || e.Type != "invalid_request_error" {
				t.Errorf("error = %+v; want type invalid_request_error and message containing %q", e, tt.message)
			}
			gotParam := ""
			if e.Param != nil {
				gotParam = *e.Param
			}
			if gotParam != tt.param {
				t.Errorf("param = %q; want %q", gotParam, tt.param)
			}
			if r := srv.Request(0); r.Rejected != 400 || r.RejectReason == "" {
				t.Errorf("request not recorded as rejected: %d %q", r.Rejected, r.RejectReason)
			}
			if srv.Remaining() != 1 {
				t.Errorf("a rejected request used up a reply")
			}
		})
	}
}

func TestChatAcceptsValidExchanges(t *testing.T) {
	for _, tt := range []struct {
		name    string
		flavour ChatFlavour
		msgs    string
	}{
		{"multi-tool exchange", ChatKimi, msgs(`{"role":"system","content":"s"}`, userMsg, callsMsg, tool("c2"), tool("c1"),
			`{"role":"assistant","content":"done","reasoning_content":""}`, userMsg)},
		{"ids may repeat across turns", ChatKimi, msgs(userMsg,
			`{"role":"assistant","tool_calls":[{"type":"function","id":"Read_0","function":{"name":"Read","arguments":"{}"}}]}`,
			tool("Read_0"), userMsg,
			`{"role":"assistant","tool_calls":[{"type":"function","id":"Read_0","function":{"name":"Read","arguments":"{}"}}]}`,
			tool("Read_0"))},
		{"system and developer messages before the first user message", ChatOpenAI,
			msgs(`{"role":"developer","content":"d"}`, `{"role":"system","content":"s"}`, userMsg)},
		{"parts content", ChatOpenAI, msgs(`{"role":"user","content":[{"type":"text","text":"a"},{"type":"image_url","image_url":{"url":"https://x"}}]}`)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := FakeChatCompletionsWith(t, ChatOptions{Flavour: tt.flavour}, Text("ok"))
			status, body := post(t, srv, request(tt.msgs))
			if status != http.StatusOK || !strings.HasSuffix(body, "data: [DONE]\n\n") {
				t.Errorf("status %d, body:\n%s", status, body)
			}
		})
	}
}

func TestChatLenientServesAnything(t *testing.T) {
	srv := FakeChatCompletions(t, Text("ok")).Lenient()
	if status, body := post(t, srv, request(msgs(userMsg, tool("nope")))); status != http.StatusOK {
		t.Errorf("lenient server rejected: %d %s", status, body)
	}
}

func TestChatWrongPath(t *testing.T) {
	srv := FakeChatCompletions(t, Text("ok"))
	resp, err := http.Post(srv.URL+"/chat/completions", "application/json", strings.NewReader(request(msgs(userMsg))))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("status = %d; want 404 for a path without /v1", resp.StatusCode)
	}
}

// sseData splits an SSE body into its data payloads.
func sseData(t *testing.T, body string) []string {
	t.Helper()
	var out []string
	for _, ev := range strings.Split(strings.TrimSuffix(body, "\n\n"), "\n\n") {
		if !strings.HasPrefix(ev, "data: ") {
			t.Fatalf("event without data: %q", ev)
		}
		out = append(out, strings.TrimPrefix(ev, "data: "))
	}
	return out
}

// deltas returns choices[0] (delta and finish_reason) and usage of each chunk.
func deltas(t *testing.T, data []string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, d := range data {
		if d == "[DONE]" {
			out = append(out, map[string]any{"done": true})
			continue
		}
		var c struct {
			Choices []map[string]any
			Usage   map[string]any
		}
		if err := json.Unmarshal([]byte(d), &c); err != nil {
			t.Fatalf("chunk is not JSON: %v\n%s", err, d)
		}
		m := map[string]any{}
		if len(c.Choices) > 0 {
			m["delta"] = c.Choices[0]["delta"]
			if f := c.Choices[0]["finish_reason"]; f != nil {
				m["finish"] = f
			}
			if u := c.Choices[0]["usage"]; u != nil {
				m["choice_usage"] = u
			}
		}
		if c.Usage != nil {
			m["usage"] = c.Usage
		}
		out = append(out, m)
	}
	return out
}

func TestChatEncodesReplies(t *testing.T) {
	parts := []llm.StreamPart{
		llm.ContentStreamPart(llm.ThinkPart("hmm", "")),
		llm.ContentStreamPart(llm.TextPart("hi")),
		{Kind: llm.KindToolCall, Index: 0, Indexed: true, ToolCall: llm.ToolCall{ID: "c1", Name: "Read"}},
		{Kind: llm.KindToolCallPart, Index: 0, Indexed: true, ArgumentsPart: `{"p":1}`},
	}
	usage := &llm.TokenUsage{InputOther: 10, Output: 6, InputCacheRead: 2}
	reply := Reply{Response: scripted.Response{Parts: parts, Usage: usage, ID: "chatcmpl-7"}}
	head := []map[string]any{
		{"delta": map[string]any{"role": "assistant", "content": ""}},
		{"delta": map[string]any{"reasoning_content": "hmm"}},
		{"delta": map[string]any{"content": "hi"}},
		{"delta": map[string]any{"tool_calls": []any{map[string]any{"index": 0.0, "id": "c1", "type": "function",
			"function": map[string]any{"name": "Read", "arguments": ""}}}}},
		{"delta": map[string]any{"tool_calls": []any{map[string]any{"index": 0.0, "function": map[string]any{"arguments": `{"p":1}`}}}}},
	}
	t.Run("openai", func(t *testing.T) {
		srv := FakeChatCompletions(t, reply)
		_, body := post(t, srv, request(msgs(userMsg)))
		want := append(append([]map[string]any{}, head...),
			map[string]any{"delta": map[string]any{}, "finish": "tool_calls"},
			map[string]any{"usage": map[string]any{"prompt_tokens": 12.0, "completion_tokens": 6.0, "total_tokens": 18.0,
				"prompt_tokens_details": map[string]any{"cached_tokens": 2.0}}},
			map[string]any{"done": true})
		if d := cmp.Diff(want, deltas(t, sseData(t, body))); d != "" {
			t.Errorf("chunks (-want +got):\n%s", d)
		}
		if !strings.Contains(body, `"id":"chatcmpl-7"`) {
			t.Errorf("reply id missing")
		}
	})
	t.Run("kimi", func(t *testing.T) {
		srv := FakeChatCompletionsWith(t, ChatOptions{Flavour: ChatKimi}, reply)
		_, body := post(t, srv, request(msgs(userMsg)))
		want := append(append([]map[string]any{}, head...),
			map[string]any{"delta": map[string]any{}, "finish": "tool_calls", "choice_usage": map[string]any{
				"prompt_tokens": 12.0, "completion_tokens": 6.0, "total_tokens": 18.0, "cached_tokens": 2.0}},
			map[string]any{"done": true})
		if d := cmp.Diff(want, deltas(t, sseData(t, body))); d != "" {
			t.Errorf("chunks (-want +got):\n%s", d)
		}
	})
	t.Run("no finish", func(t *testing.T) {
		r := Text("cut")
		r.NoFinish = true
		srv := FakeChatCompletions(t, r)
		_, body := post(t, srv, request(msgs(userMsg)))
		if strings.Contains(body, "finish_reason\":\"") || strings.Contains(body, "[DONE]") {
			t.Errorf("NoFinish reply ended properly:\n%s", body)
		}
	})
	t.Run("finish reasons", func(t *testing.T) {
		for _, tt := range []struct {
			r    Reply
			want string
		}{
			{Text("a"), "stop"},
			{Reply{Response: scripted.Response{Parts: parts[:2], Finish: llm.FinishTruncated}}, "length"},
			{Reply{Response: scripted.Response{Parts: parts[:2], Finish: llm.FinishFiltered}}, "content_filter"},
			{Reply{Response: scripted.Response{Parts: parts[:2], RawFinish: "eos"}}, "eos"},
		} {
			srv := FakeChatCompletions(t, tt.r)
			_, body := post(t, srv, request(msgs(userMsg)))
			if !strings.Contains(body, `"finish_reason":"`+tt.want+`"`) {
				t.Errorf("finish %q missing:\n%s", tt.want, body)
			}
		}
	})
	t.Run("reasoning key option", func(t *testing.T) {
		srv := FakeChatCompletionsWith(t, ChatOptions{ReasoningKey: "reasoning"}, Think("t", "x"))
		_, body := post(t, srv, request(msgs(userMsg)))
		if !strings.Contains(body, `{"reasoning":"t"}`) {
			t.Errorf("thinking not under the configured key:\n%s", body)
		}
	})
}

func TestChatFaultEvents(t *testing.T) {
	d := chatDialect{ChatOptions{Flavour: ChatOpenAI}}
	ev := d.errorEvent("boom")
	if ev != `data: {"error":{"message":"boom","type":"server_error","param":null,"code":null}}`+"\n\n" {
		t.Errorf("error event = %q", ev)
	}
	m := d.malformed()
	payload := strings.TrimSuffix(strings.TrimPrefix(m, "data: "), "\n\n")
	if !strings.HasSuffix(m, "\n\n") || json.Valid([]byte(payload)) {
		t.Errorf("malformed event = %q; want a complete event whose data is not JSON", m)
	}
}

func TestChatPresets(t *testing.T) {
	for _, tt := range []struct {
		name   string
		r      Reply
		status int
		text   string
		header string
	}{
		{"rate limited", ChatRateLimited(3), 429, "Rate limit reached", "3"},
		{"server error", ChatServerError(), 500, "server had an error", ""},
		{"unavailable", ChatUnavailable(), 503, "overloaded", ""},
		{"too large", ChatTooLarge(), 413, "Request exceeds the maximum size", ""},
		{"context overflow", ChatContextOverflow(262144, 274613), 400, "exceeded model token limit: 262144 (requested: 274613)", ""},
		{"quota exhausted", ChatQuotaExhausted(), 429, `"type":"exceeded_current_quota_error"`, "1"},
		{"insufficient quota", ChatInsufficientQuota(), 429, `"code":"insufficient_quota"`, ""},
		{"proxy page", ChatProxyError(), 502, "<h1>502 Bad Gateway</h1>", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := FakeChatCompletions(t, tt.r)
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, ChatBaseURL(srv)+"/chat/completions",
				bytes.NewReader([]byte(request(msgs(userMsg)))))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.status || !strings.Contains(string(b), tt.text) ||
				resp.Header.Get("Retry-After") != tt.header {
				t.Errorf("got %d %q (Retry-After %q); want %d containing %q (Retry-After %q)",
					resp.StatusCode, b, resp.Header.Get("Retry-After"), tt.status, tt.text, tt.header)
			}
		})
	}
	// Status with an empty body gets the flavour's own error body.
	srv := FakeChatCompletionsWith(t, ChatOptions{Flavour: ChatKimi}, Status(429, ""))
	status, body := post(t, srv, request(msgs(userMsg)))
	if e := errorOf(t, body); status != 429 || e.Type != "rate_limit_reached_error" {
		t.Errorf("kimi 429 body = %d %s", status, body)
	}
}
