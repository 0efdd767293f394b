package llmtest_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/internal/sse"
	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/llm/scripted"
)

// anthPost sends body to the fake with the usual headers, minus those
// named in drop, plus extra.
func anthPost(t *testing.T, srv *llmtest.Server, query, body string, drop []string, extra map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL+"/v1/messages"+query, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("x-api-key", "test-key")
	req.Header.Set("anthropic-version", "2023-06-01")
	req.Header.Set("content-type", "application/json")
	for _, h := range drop {
		req.Header.Del(h)
	}
	for k, v := range extra {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

type anthErr struct {
	Type  string `json:"type"`
	Error struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

func decodeAnthErr(t *testing.T, b []byte) anthErr {
	t.Helper()
	var e anthErr
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatalf("error body is not JSON: %v\n%s", err, b)
	}
	if e.Type != "error" {
		t.Fatalf("error body type = %q, want error: %s", e.Type, b)
	}
	return e
}

// body builds a request body with the given messages JSON.
func anthBody(model string, maxTokens int, messages string, extra ...string) string {
	s := `{"model":"` + model + `",`
	if maxTokens > 0 {
		s += `"max_tokens":` + anthItoa(maxTokens) + `,`
	}
	for _, e := range extra {
		s += e + ","
	}
	return s + `"messages":` + messages + `,"stream":true}`
}

func anthItoa(n int) string { b, _ := json.Marshal(n); return string(b) }

const (
	anthUserHi      = `{"role":"user","content":[{"type":"text","text":"hi"}]}`
	anthAsstCalls   = `{"role":"assistant","content":[{"type":"text","text":"calling"},{"type":"tool_use","id":"toolu_1","name":"add","input":{"a":1}},{"type":"tool_use","id":"toolu_2","name":"mul","input":{"a":2}}]}`
	anthUserResults = `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"3"}]},{"type":"tool_result","tool_use_id":"toolu_2","content":[{"type":"text","text":"4"}]}]}`
)

func TestFakeAnthropicStrictRules(t *testing.T) {
	for _, tt := range []struct {
		name       string
		body       string
		drop       []string
		extra      map[string]string
		wantStatus int
		wantType   string
		wantMsg    string
	}{
		{"authorization header is refused", anthBody("claude-sonnet-4-5", 1024, "["+anthUserHi+"]"), nil,
			map[string]string{"Authorization": "Bearer env"}, 401, "authentication_error", "OAuth authentication is currently not supported."},
		{"missing x-api-key", anthBody("claude-sonnet-4-5", 1024, "["+anthUserHi+"]"), []string{"x-api-key"}, nil,
			401, "authentication_error", "x-api-key header is required"},
		{"missing max_tokens", anthBody("claude-sonnet-4-5", 0, "["+anthUserHi+"]"), nil, nil,
			400, "invalid_request_error", "max_tokens: Field required"},
		{"first message not user", anthBody("claude-sonnet-4-5", 1024, `[{"role":"assistant","content":[{"type":"text","text":"x"}]},`+anthUserHi+`]`), nil, nil,
			400, "invalid_request_error", `messages: first message must use the "user" role`},
		{"consecutive user messages", anthBody("claude-sonnet-4-5", 1024, "["+anthUserHi+","+anthUserHi+"]"), nil, nil,
			400, "invalid_request_error", `messages: roles must alternate between "user" and "assistant", but found multiple "user" roles in a row`},
		{"tool_use without results", anthBody("claude-sonnet-4-5", 1024, "["+anthUserHi+","+anthAsstCalls+","+anthUserHi+"]"), nil, nil,
			400, "invalid_request_error", "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1, toolu_2. " +
				"Each `tool_use` block must have a corresponding `tool_result` block in the next message."},
		{"one result missing", anthBody("claude-sonnet-4-5", 1024, "["+anthUserHi+","+anthAsstCalls+`,{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[]}]}]`), nil, nil,
			400, "invalid_request_error", "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_2. " +
				"Each `tool_use` block must have a corresponding `tool_result` block in the next message."},
		{"tool_result without tool_use", anthBody("claude-sonnet-4-5", 1024, `[{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_9","content":[]}]}]`), nil, nil,
			400, "invalid_request_error", "messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_9. " +
				"Each `tool_result` block must have a corresponding `tool_use` block in the previous message."},
		{"duplicate tool_use ids", anthBody("claude-sonnet-4-5", 1024, "["+anthUserHi+`,{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"a","input":{}},{"type":"tool_use","id":"t","name":"a","input":{}}]}]`), nil, nil,
			400, "invalid_request_error", "messages.1.content.1: `tool_use` ids must be unique"},
		{"empty text block", anthBody("claude-sonnet-4-5", 1024, `[{"role":"user","content":[{"type":"text","text":""},{"type":"text","text":"x"}]}]`), nil, nil,
			400, "invalid_request_error", "messages: text content blocks must be non-empty"},
		{"whitespace-only text", anthBody("claude-sonnet-4-5", 1024, `[{"role":"user","content":[{"type":"text","text":" \n"}]}]`), nil, nil,
			400, "invalid_request_error", "messages: text content blocks must contain non-whitespace text"},
		{"unsigned thinking on claude", anthBody("claude-sonnet-4-5", 1024, "["+anthUserHi+`,{"role":"assistant","content":[{"type":"thinking","thinking":"hm"},{"type":"text","text":"ok"}]},`+anthUserHi+`]`), nil, nil,
			400, "invalid_request_error", "messages.1.content.0.thinking.signature: Field required"},
		{"budget below 1024", anthBody("claude-sonnet-4-5", 8000, "["+anthUserHi+"]", `"thinking":{"type":"enabled","budget_tokens":1000}`), nil, nil,
			400, "invalid_request_error", "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"},
		{"budget not below max_tokens", anthBody("claude-sonnet-4-5", 4096, "["+anthUserHi+"]", `"thinking":{"type":"enabled","budget_tokens":4096}`), nil, nil,
			400, "invalid_request_error", "`max_tokens` must be greater than `thinking.budget_tokens`."},
		{"max_tokens above the ceiling", anthBody("claude-sonnet-4-5-20250929", 64001, "["+anthUserHi+"]"), nil, nil,
			400, "invalid_request_error", "max_tokens: 64001 > 64000, which is the maximum allowed number of output tokens for claude-sonnet-4-5-20250929"},
		{"claude-3-opus ceiling", anthBody("claude-3-opus-20240229", 8192, "["+anthUserHi+"]"), nil, nil,
			400, "invalid_request_error", "max_tokens: 8192 > 4096"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.FakeAnthropic(t, llmtest.Text("unused"))
			resp, b := anthPost(t, srv, "", tt.body, tt.drop, tt.extra)
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("status = %d, want %d: %s", resp.StatusCode, tt.wantStatus, b)
			}
			e := decodeAnthErr(t, b)
			if e.Error.Type != tt.wantType || !strings.HasPrefix(e.Error.Message, tt.wantMsg) {
				t.Errorf("error = %s %q, want %s starting with %q", e.Error.Type, e.Error.Message, tt.wantType, tt.wantMsg)
			}
			if srv.Remaining() != 1 {
				t.Errorf("a rejected request consumed a reply")
			}
			if r := srv.Request(0); r.Rejected != tt.wantStatus || r.RejectReason != e.Error.Message {
				t.Errorf("recorded rejection = %d %q", r.Rejected, r.RejectReason)
			}
		})
	}
}

// The rejections must read as the structural errors the loop repairs.
func TestFakeAnthropicRejectionsClassify(t *testing.T) {
	for _, tt := range []struct {
		body string
		pred func(error) bool
	}{
		{anthBody("claude-sonnet-4-5", 1024, "["+anthUserHi+","+anthAsstCalls+","+anthUserHi+"]"), llm.IsToolExchangeAdjacencyError},
		{anthBody("claude-sonnet-4-5", 1024, `[{"role":"user","content":[{"type":"tool_result","tool_use_id":"x","content":[]}]}]`), llm.IsToolExchangeAdjacencyError},
		{anthBody("claude-sonnet-4-5", 1024, "["+anthUserHi+","+anthUserHi+"]"), llm.IsRecoverableRequestStructureError},
		{anthBody("claude-sonnet-4-5", 1024, `[{"role":"user","content":[{"type":"text","text":""}]}]`), llm.IsRecoverableRequestStructureError},
		{anthBody("claude-sonnet-4-5", 1024, `[{"role":"user","content":[{"type":"text","text":"  "}]}]`), llm.IsRecoverableRequestStructureError},
		{anthBody("claude-sonnet-4-5", 1024, `[{"role":"assistant","content":[{"type":"text","text":"x"}]}]`), llm.IsRecoverableRequestStructureError},
		{anthBody("claude-sonnet-4-5", 1024, "["+anthUserHi+`,{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"a","input":{}},{"type":"tool_use","id":"t","name":"a","input":{}}]}]`), llm.IsRecoverableRequestStructureError},
	} {
		srv := llmtest.FakeAnthropic(t)
		resp, b := anthPost(t, srv, "", tt.body, nil, nil)
		err := llm.NormalizeStatus(llm.StatusError(resp.StatusCode, resp.Header, b))
		if !tt.pred(err) {
			t.Errorf("%s does not classify as structural", err)
		}
	}
}

func TestFakeAnthropicAcceptsParallelToolExchange(t *testing.T) {
	srv := llmtest.FakeAnthropic(t, llmtest.Text("7"), llmtest.Text("again"))
	msgs := "[" + anthUserHi + "," + anthAsstCalls + "," + anthUserResults + "]"
	for _, query := range []string{"", "?beta=true"} {
		resp, b := anthPost(t, srv, query, anthBody("claude-sonnet-4-5", 64000, msgs, `"thinking":{"type":"enabled","budget_tokens":32000}`), nil, nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d for %q: %s", resp.StatusCode, query, b)
		}
		if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
			t.Errorf("content type = %q", ct)
		}
	}
	if got := srv.Request(1).RawQuery; got != "beta=true" {
		t.Errorf("raw query = %q", got)
	}
	// Non-Claude models may send unsigned thinking and enabled thinking
	// without a budget (Kimi over the Anthropic wire).
	srv2 := llmtest.FakeAnthropic(t, llmtest.Text("ok"))
	kimi := anthBody("k25", 32000, "["+anthUserHi+`,{"role":"assistant","content":[{"type":"thinking","thinking":"hm"},{"type":"text","text":"ok"}]},`+anthUserHi+`]`,
		`"thinking":{"type":"enabled"}`)
	if resp, b := anthPost(t, srv2, "", kimi, nil, nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("kimi request rejected: %d %s", resp.StatusCode, b)
	}
}

func TestFakeAnthropicContextWindow(t *testing.T) {
	srv := llmtest.FakeAnthropicWith(t, llmtest.AnthropicOptions{ContextWindow: 100}, llmtest.Text("fits"))
	small := anthBody("claude-sonnet-4-5", 1024, "["+anthUserHi+"]")
	big := anthBody("claude-sonnet-4-5", 1024, `[{"role":"user","content":[{"type":"text","text":"`+strings.Repeat("x", 800)+`"}]}]`)
	resp, b := anthPost(t, srv, "", big, nil, nil)
	e := decodeAnthErr(t, b)
	want := "prompt is too long: " + anthItoa(len(big)/4) + " tokens > 100 maximum"
	if resp.StatusCode != 400 || e.Error.Message != want {
		t.Fatalf("got %d %q, want 400 %q", resp.StatusCode, e.Error.Message, want)
	}
	if err := llm.NormalizeStatus(llm.StatusError(resp.StatusCode, resp.Header, b)); !llm.IsContextOverflow(err) {
		t.Errorf("%v is not a context overflow", err)
	}
	if resp, b := anthPost(t, srv, "", small, nil, nil); resp.StatusCode != 200 {
		t.Errorf("small request rejected: %s", b)
	}
}

type anthEvent struct {
	Type string
	Data map[string]any
}

func readAnthEvents(t *testing.T, b []byte) []anthEvent {
	t.Helper()
	d := sse.NewDecoder(bytes.NewReader(b))
	var out []anthEvent
	for {
		ev, err := d.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("stream: %v", err)
		}
		var data map[string]any
		if err := json.Unmarshal(ev.Data, &data); err != nil {
			t.Fatalf("event %s data is not JSON: %v: %s", ev.Type, err, ev.Data)
		}
		if data["type"] != ev.Type {
			t.Errorf("event %s carries type %v", ev.Type, data["type"])
		}
		out = append(out, anthEvent{ev.Type, data})
	}
}

func TestFakeAnthropicEncodesReply(t *testing.T) {
	reply := llmtest.Reply{Response: scripted.Response{
		ID: "msg_1",
		Parts: append([]llm.StreamPart{
			llm.ContentStreamPart(llm.ThinkPart("let me ", "")),
			llm.ContentStreamPart(llm.ThinkPart("think", "sig-1")),
			llm.ContentStreamPart(llm.TextPart("Hello")),
		}, scripted.CallParts(0, scripted.Call{ID: "toolu_1", Name: "add", Arguments: `{"a":2,"b":3}`})...),
		Usage: &llm.TokenUsage{InputOther: 19, Output: 7, InputCacheRead: 2, InputCacheCreation: 1},
	}}
	srv := llmtest.FakeAnthropic(t, reply)
	resp, b := anthPost(t, srv, "", anthBody("claude-sonnet-4-5", 1024, "["+anthUserHi+"]"), nil, nil)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	var shape []string
	for _, ev := range readAnthEvents(t, b) {
		s := ev.Type
		switch ev.Type {
		case "message_start":
			m := ev.Data["message"].(map[string]any)
			u := m["usage"].(map[string]any)
			s += " " + m["id"].(string) + " in=" + anthNum(u["input_tokens"]) + " read=" + anthNum(u["cache_read_input_tokens"]) +
				" create=" + anthNum(u["cache_creation_input_tokens"])
		case "content_block_start":
			cb := ev.Data["content_block"].(map[string]any)
			s += " " + anthNum(ev.Data["index"]) + " " + cb["type"].(string)
			if id, ok := cb["id"].(string); ok {
				s += " " + id + " " + cb["name"].(string)
			}
		case "content_block_delta":
			d := ev.Data["delta"].(map[string]any)
			s += " " + anthNum(ev.Data["index"]) + " " + d["type"].(string)
			for _, k := range []string{"text", "thinking", "signature", "partial_json"} {
				if v, ok := d[k].(string); ok {
					s += " " + v
				}
			}
		case "content_block_stop":
			s += " " + anthNum(ev.Data["index"])
		case "message_delta":
			s += " " + ev.Data["delta"].(map[string]any)["stop_reason"].(string) + " out=" +
				anthNum(ev.Data["usage"].(map[string]any)["output_tokens"])
		}
		shape = append(shape, s)
	}
	want := []string{
		"message_start msg_1 in=19 read=2 create=1",
		"ping",
		"content_block_start 0 thinking",
		"content_block_delta 0 thinking_delta let me ",
		"content_block_delta 0 thinking_delta think",
		"content_block_delta 0 signature_delta sig-1",
		"content_block_stop 0",
		"content_block_start 1 text",
		"content_block_delta 1 text_delta Hello",
		"ping",
		"content_block_stop 1",
		"content_block_start 2 tool_use toolu_1 add",
		`content_block_delta 2 input_json_delta {"a":2,"b":3}`,
		"content_block_stop 2",
		"message_delta tool_use out=7",
		"message_stop",
	}
	if d := cmp.Diff(want, shape); d != "" {
		t.Errorf("events (-want +got):\n%s", d)
	}
}

func anthNum(v any) string {
	f, _ := v.(float64)
	return anthItoa(int(f))
}

func TestFakeAnthropicStopReasons(t *testing.T) {
	for _, tt := range []struct {
		reply llmtest.Reply
		want  any // stop_reason, or nil when no message_delta is sent
	}{
		{llmtest.Text("x"), "end_turn"},
		{llmtest.ToolCall("c1", "f", "{}"), "tool_use"},
		{llmtest.Reply{Response: scripted.Response{Parts: scripted.Text("x").Parts, Finish: llm.FinishTruncated}}, "max_tokens"},
		{llmtest.Reply{Response: scripted.Response{Parts: scripted.Text("x").Parts, RawFinish: "pause_turn"}}, "pause_turn"},
		{llmtest.Reply{Response: scripted.Response{Parts: scripted.Text("x").Parts, NoFinish: true}}, nil},
	} {
		srv := llmtest.FakeAnthropic(t, tt.reply)
		_, b := anthPost(t, srv, "", anthBody("claude-sonnet-4-5", 1024, "["+anthUserHi+"]"), nil, nil)
		var got any
		var last string
		for _, ev := range readAnthEvents(t, b) {
			last = ev.Type
			if ev.Type == "message_delta" {
				got = ev.Data["delta"].(map[string]any)["stop_reason"]
			}
		}
		if got != tt.want {
			t.Errorf("stop_reason = %v, want %v", got, tt.want)
		}
		if tt.want == nil && last == "message_stop" {
			t.Errorf("NoFinish reply still sent message_stop")
		}
	}
}

func TestFakeAnthropicMidStreamFaults(t *testing.T) {
	srv := llmtest.FakeAnthropic(t,
		llmtest.Text("hello").WithFault(llmtest.Fault{ErrorEventAfter: 3, ErrorMessage: "Overloaded"}),
		llmtest.Text("hello").WithFault(llmtest.Fault{MalformedAfter: 2}),
	)
	_, b := anthPost(t, srv, "", anthBody("claude-sonnet-4-5", 1024, "["+anthUserHi+"]"), nil, nil)
	if !strings.HasSuffix(string(b), "event: error\ndata: {\"error\":{\"message\":\"Overloaded\",\"type\":\"overloaded_error\"},\"type\":\"error\"}\n\n") {
		t.Errorf("stream does not end with an overloaded error event:\n%s", b)
	}
	_, b = anthPost(t, srv, "", anthBody("claude-sonnet-4-5", 1024, "["+anthUserHi+"]"), nil, nil)
	d := sse.NewDecoder(bytes.NewReader(b))
	bad := 0
	for {
		ev, err := d.Next()
		if err != nil {
			break
		}
		if !json.Valid(ev.Data) {
			bad++
		}
	}
	if bad != 1 {
		t.Errorf("got %d malformed events, want 1", bad)
	}
}

func TestFakeAnthropicPresets(t *testing.T) {
	for _, tt := range []struct {
		reply      llmtest.Reply
		status     int
		typ        string
		retryAfter string
	}{
		{llmtest.AnthropicOverloaded(), 529, "overloaded_error", ""},
		{llmtest.AnthropicRateLimited(7), 429, "rate_limit_error", "7"},
		{llmtest.AnthropicServerError(), 500, "api_error", ""},
		{llmtest.AnthropicRequestTooLarge(), 413, "request_too_large", ""},
		{llmtest.AnthropicPromptTooLong(210000, 200000), 400, "invalid_request_error", ""},
	} {
		srv := llmtest.FakeAnthropic(t, tt.reply)
		resp, b := anthPost(t, srv, "", anthBody("claude-sonnet-4-5", 1024, "["+anthUserHi+"]"), nil, nil)
		e := decodeAnthErr(t, b)
		if resp.StatusCode != tt.status || e.Error.Type != tt.typ || resp.Header.Get("retry-after") != tt.retryAfter {
			t.Errorf("got %d %s retry-after=%q, want %d %s %q", resp.StatusCode, e.Error.Type,
				resp.Header.Get("retry-after"), tt.status, tt.typ, tt.retryAfter)
		}
	}
}
