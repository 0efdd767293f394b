package anthropic

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/llm/scripted"
)

// rawStream runs a literal SSE body through the stream converter.
func rawStream(body string) *stream {
	ctx := context.Background()
	return newStream(ctx, ctx, io.NopCloser(strings.NewReader(body)), nil)
}

// drain collects parts until the stream ends; err is nil at a clean end.
func drain(s *stream) ([]llm.StreamPart, error) {
	var parts []llm.StreamPart
	for {
		p, err := s.Next()
		if err == io.EOF {
			return parts, nil
		}
		if err != nil {
			return parts, err
		}
		parts = append(parts, p)
	}
}

// coalesce joins consecutive text deltas and consecutive argument deltas
// of one call, as the stream does with deltas that arrive together.
func coalesce(parts []llm.StreamPart) []llm.StreamPart {
	var out []llm.StreamPart
	for _, p := range parts {
		if n := len(out); n > 0 {
			last := &out[n-1]
			switch {
			case p.Kind == llm.KindToolCallPart && last.Kind == llm.KindToolCallPart && p.Index == last.Index && p.Indexed == last.Indexed:
				last.ArgumentsPart += p.ArgumentsPart
				continue
			case p.Kind == llm.KindContent && last.Kind == llm.KindContent &&
				p.Content.Type == llm.PartText && last.Content.Type == llm.PartText:
				last.Content.Text += p.Content.Text
				continue
			}
		}
		out = append(out, p)
	}
	return out
}

func ev(typ, data string) string { return "event: " + typ + "\ndata: " + data + "\n\n" }

func TestSA4StreamParsing(t *testing.T) {
	reply := llmtest.Reply{Response: scripted.Response{
		ID: "msg_1",
		Parts: []llm.StreamPart{
			llm.ContentStreamPart(llm.TextPart("Hello from Anthropic")),
			{Kind: llm.KindToolCall, ToolCall: llm.ToolCall{ID: "toolu_1", Name: "add"}, Index: 0, Indexed: true},
			{Kind: llm.KindToolCallPart, ArgumentsPart: `{"a":2`, Index: 0, Indexed: true},
			{Kind: llm.KindToolCallPart, ArgumentsPart: `,"b":3}`, Index: 0, Indexed: true},
		},
		Usage: &llm.TokenUsage{InputOther: 19, Output: 7, InputCacheRead: 2, InputCacheCreation: 1},
	}}
	srv := llmtest.FakeAnthropic(t, reply)
	p := newTestProvider(srv, Options{})
	var parts []llm.StreamPart
	res, err := llm.Generate(t.Context(), p, llm.Request{Tools: []llm.Tool{tool("add")}, Messages: []llm.Message{llm.UserMessage("2+3?")}},
		llm.Callbacks{OnMessagePart: func(sp llm.StreamPart) { parts = append(parts, sp) }})
	if err != nil {
		t.Fatal(err)
	}
	want := &llm.Result{
		ID: "msg_1",
		Message: llm.Message{Role: llm.RoleAssistant,
			Content:   []llm.ContentPart{llm.TextPart("Hello from Anthropic")},
			ToolCalls: []llm.ToolCall{{ID: "toolu_1", Name: "add", Arguments: `{"a":2,"b":3}`}}},
		Usage:           &llm.TokenUsage{InputOther: 19, Output: 7, InputCacheRead: 2, InputCacheCreation: 1},
		FinishReason:    llm.FinishToolCalls,
		RawFinishReason: "tool_use",
	}
	if d := cmp.Diff(want, res); d != "" {
		t.Errorf("result (-want +got):\n%s", d)
	}
	// The tool call is routed by its content-block index (1: the text block
	// is 0). Deltas that arrive together are one part, so how many parts
	// there are depends on the network; what they carry does not.
	wantParts := []llm.StreamPart{
		llm.ContentStreamPart(llm.TextPart("")),
		llm.ContentStreamPart(llm.TextPart("Hello from Anthropic")),
		{Kind: llm.KindToolCall, ToolCall: llm.ToolCall{ID: "toolu_1", Name: "add"}, Index: 1, Indexed: true},
		{Kind: llm.KindToolCallPart, ArgumentsPart: `{"a":2`, Index: 1, Indexed: true},
		{Kind: llm.KindToolCallPart, ArgumentsPart: `,"b":3}`, Index: 1, Indexed: true},
	}
	if d := cmp.Diff(coalesce(wantParts), coalesce(parts)); d != "" {
		t.Errorf("parts (-want +got):\n%s", d)
	}
}

// A literal stream with everything the converter must know: pings,
// interleaved parallel tool blocks, signed thinking, redacted thinking,
// unknown events and block types, usage overrides.
func TestStreamEvents(t *testing.T) {
	body := ev("message_start", `{"type":"message_start","message":{"id":"msg_x","usage":{"input_tokens":10,"cache_read_input_tokens":4,"output_tokens":1}}}`) +
		ev("ping", `{"type": "ping"}`) +
		ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}`) +
		ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"step 1"}}`) +
		ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"sig"}}`) +
		ev("content_block_stop", `{"type":"content_block_stop","index":0}`) +
		ev("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"redacted_thinking","data":"blob"}}`) +
		ev("content_block_start", `{"type":"content_block_start","index":2,"content_block":{"type":"server_tool_use","id":"srv_1","name":"web_search","input":{}}}`) +
		ev("content_block_delta", `{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"q\":1}"}}`) +
		ev("future_event", `{"type":"future_event","x":1}`) +
		ev("content_block_start", `{"type":"content_block_start","index":3,"content_block":{"type":"text","text":"Hi"}}`) +
		ev("content_block_delta", `{"type":"content_block_delta","index":3,"delta":{"type":"citations_delta","citation":{}}}`) +
		ev("content_block_delta", `{"type":"content_block_delta","index":3,"delta":{"type":"text_delta","text":" there"}}`) +
		ev("content_block_start", `{"type":"content_block_start","index":4,"content_block":{"type":"tool_use","id":"t_a","name":"a","input":{"ignored":true}}}`) +
		ev("content_block_start", `{"type":"content_block_start","index":5,"content_block":{"type":"tool_use","id":"t_b","name":"b","input":{}}}`) +
		ev("content_block_delta", `{"type":"content_block_delta","index":5,"delta":{"type":"input_json_delta","partial_json":"{\"y\":2}"}}`) +
		ev("content_block_delta", `{"type":"content_block_delta","index":4,"delta":{"type":"input_json_delta","partial_json":"{\"x\":1}"}}`) +
		ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":42,"input_tokens":11}}`) +
		ev("message_delta", `{"type":"message_delta","delta":{},"usage":{"cache_creation_input_tokens":3}}`) +
		ev("message_stop", `{"type":"message_stop"}`)
	s := rawStream(body)
	parts, err := drain(s)
	if err != nil {
		t.Fatal(err)
	}
	msg := llm.MergeParts(parts)
	want := llm.Message{Role: llm.RoleAssistant,
		Content:   []llm.ContentPart{llm.ThinkPart("step 1", "sig"), llm.ThinkPart("", "blob"), llm.TextPart("Hi there")},
		ToolCalls: []llm.ToolCall{{ID: "t_a", Name: "a", Arguments: `{"x":1}`}, {ID: "t_b", Name: "b", Arguments: `{"y":2}`}},
	}
	if d := cmp.Diff(want, msg); d != "" {
		t.Errorf("message (-want +got):\n%s", d)
	}
	u, ok := s.Usage()
	if d := cmp.Diff(llm.TokenUsage{InputOther: 11, Output: 42, InputCacheRead: 4, InputCacheCreation: 3}, u); d != "" || !ok {
		t.Errorf("usage (-want +got):\n%s", d)
	}
	if s.ID() != "msg_x" || s.FinishReason() != llm.FinishToolCalls || s.RawFinishReason() != "tool_use" || s.TraceID() != "" {
		t.Errorf("id %q finish %q raw %q", s.ID(), s.FinishReason(), s.RawFinishReason())
	}
}

func TestStopReasonPresence(t *testing.T) {
	start := ev("message_start", `{"type":"message_start","message":{"id":"m"}}`)
	for _, tt := range []struct {
		name   string
		deltas string
		want   llm.FinishReason
		raw    string
	}{
		{"absent key keeps the previous value", ev("message_delta", `{"delta":{"stop_reason":"max_tokens"}}`) + ev("message_delta", `{"delta":{}}`), llm.FinishTruncated, "max_tokens"},
		{"explicit null resets", ev("message_delta", `{"delta":{"stop_reason":"end_turn"}}`) + ev("message_delta", `{"delta":{"stop_reason":null}}`), llm.FinishNone, ""},
		{"last one wins", ev("message_delta", `{"delta":{"stop_reason":"end_turn"}}`) + ev("message_delta", `{"delta":{"stop_reason":"refusal"}}`), llm.FinishFiltered, "refusal"},
		{"unknown reason", ev("message_delta", `{"delta":{"stop_reason":"model_context_window_exceeded"}}`), llm.FinishOther, "model_context_window_exceeded"},
		{"no message_delta at all", "", llm.FinishNone, ""},
	} {
		s := rawStream(start + tt.deltas + ev("message_stop", `{"type":"message_stop"}`))
		if _, err := drain(s); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if s.FinishReason() != tt.want || s.RawFinishReason() != tt.raw {
			t.Errorf("%s: finish %q raw %q, want %q %q", tt.name, s.FinishReason(), s.RawFinishReason(), tt.want, tt.raw)
		}
		if u, ok := s.Usage(); !ok || !u.IsZero() {
			t.Errorf("%s: usage %+v %v, want zero and reported", tt.name, u, ok)
		}
	}
}

func TestStreamEndings(t *testing.T) {
	text := ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":"a"}}`)
	for _, tt := range []struct {
		name string
		body string
		kind llm.Kind // "" = clean end
		msg  string
	}{
		{"message_stop ends the answer", text + ev("message_stop", `{"type":"message_stop"}`), "", ""},
		{"a stop_reason ends it without message_stop", text + ev("message_delta", `{"delta":{"stop_reason":"end_turn"}}`), "", ""},
		{"eof at an event boundary", text, llm.KindIncompleteResponse,
			"incomplete response: anthropic stream ended after 1 events without message_stop"},
		{"eof without message_stop after a blank line", text + "\n\n", llm.KindIncompleteResponse, "without message_stop"},
		{"a null stop_reason does not end it", text + ev("message_delta", `{"delta":{"stop_reason":null}}`),
			llm.KindIncompleteResponse, "ended after 2 events without message_stop"},
		{"pings only", ev("ping", `{"type":"ping"}`) + ev("ping", `{"type":"ping"}`), llm.KindIncompleteResponse, "ended after 2 events"},
		{"empty body", "", llm.KindMalformedResponse, "malformed response: anthropic stream: the service answered 200 with an empty body"},
		{"eof inside an event", text + "event: content_block_delta\ndata: {\"type\"", llm.KindIncompleteResponse,
			"incomplete response: anthropic stream ended inside an event, after 1 events"},
		{"malformed delta", text + ev("content_block_delta", `{"index":0,"delta":{"type":"text_delta","text":`), llm.KindMalformedResponse,
			"malformed response: anthropic stream: content_block_delta event does not decode"},
		{"malformed start", ev("content_block_start", `[`), llm.KindMalformedResponse, "content_block_start event does not decode"},
		{"wrong type in message_start", ev("message_start", `{"message":{"id":7}}`), llm.KindMalformedResponse, "message_start event does not decode"},
		{"stop_reason not a string", ev("message_delta", `{"delta":{"stop_reason":5}}`), llm.KindMalformedResponse, "stop_reason"},
		{"overloaded error event", text + ev("error", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`), llm.KindStatus, "529 Overloaded (overloaded_error)"},
		{"other error event", text + ev("error", `{"type":"error","error":{"type":"api_error","message":"Internal server error"}}`), llm.KindGeneric, "Anthropic error: Internal server error"},
		{"error event with junk", ev("error", `<html>`), llm.KindGeneric, "Anthropic error: <html>"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := rawStream(tt.body)
			_, err := drain(s)
			if tt.kind == "" {
				if err != nil {
					t.Fatalf("got %v, want a clean end", err)
				}
				return
			}
			e, ok := llm.AsError(err)
			if !ok || e.Kind != tt.kind || !strings.Contains(e.Message, tt.msg) {
				t.Fatalf("got %#v, want kind %s with %q", err, tt.kind, tt.msg)
			}
			if !llm.IsRetryable(err) {
				t.Errorf("%v is not retryable", err)
			}
			if _, err2 := s.Next(); err2 != err {
				t.Errorf("error not sticky: %v then %v", err, err2)
			}
		})
	}
}

// Faults injected by the fake server, through the real HTTP client.
func TestStreamFaultsOverHTTP(t *testing.T) {
	long := strings.Repeat("abcdefghij", 20)
	for _, tt := range []struct {
		name  string
		fault llmtest.Fault
		kind  llm.Kind
		msg   string
	}{
		{"reset mid-stream", llmtest.Fault{ResetAfter: 4}, llm.KindConnection, ""},
		{"torn event", llmtest.Fault{TornAfter: 4}, llm.KindConnection, ""},
		{"malformed event", llmtest.Fault{MalformedAfter: 4}, llm.KindMalformedResponse, "content_block_delta event does not decode"},
		{"overloaded mid-stream", llmtest.Fault{ErrorEventAfter: 4, ErrorMessage: "Overloaded"}, llm.KindStatus, "529 Overloaded"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.FakeAnthropic(t, llmtest.Text(long).WithFault(tt.fault))
			_, err := run(t, newTestProvider(srv, Options{}), llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}})
			e, ok := llm.AsError(err)
			if !ok || e.Kind != tt.kind || !strings.Contains(e.Message, tt.msg) || !llm.IsRetryable(err) {
				t.Fatalf("got %v, want a retryable %s error with %q", err, tt.kind, tt.msg)
			}
			if tt.kind == llm.KindStatus && e.StatusCode != 529 {
				t.Errorf("status = %d, want 529", e.StatusCode)
			}
		})
	}
	t.Run("no finish is an incomplete response", func(t *testing.T) {
		srv := llmtest.FakeAnthropic(t, llmtest.Reply{Response: scripted.Response{Parts: scripted.Text("partial").Parts, NoFinish: true}})
		res, err := run(t, newTestProvider(srv, Options{}), llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}})
		if res != nil || !llm.IsIncompleteResponse(err) || !llm.IsRetryable(err) {
			t.Errorf("run = %+v, %v; want no result and a retryable incomplete response", res, err)
		}
	})
}

func TestStreamCloseInterruptsRead(t *testing.T) {
	pr, pw := io.Pipe()
	ctx := context.Background()
	s := newStream(ctx, ctx, pr, nil)
	done := make(chan error, 1)
	go func() {
		_, err := s.Next()
		done <- err
	}()
	if _, err := io.WriteString(pw, ev("ping", `{}`)); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	err := <-done
	if e, ok := llm.AsError(err); !ok || e.Kind != llm.KindConnection {
		t.Fatalf("got %v, want a connection error", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second close: %v", err)
	}
}

// pieces is a body whose reads return the given pieces one per Read, as
// the network delivers a stream in bursts.
type pieces []string

func (p *pieces) Read(b []byte) (int, error) {
	if len(*p) == 0 {
		return 0, io.EOF
	}
	n := copy(b, (*p)[0])
	if (*p)[0] = (*p)[0][n:]; (*p)[0] == "" {
		*p = (*p)[1:]
	}
	return n, nil
}

// TestDeltasThatArrivedTogetherAreOnePart: consecutive deltas of one
// block that arrived in one burst come out as one part; a delta still on
// its way never holds back the ones already here, and a signature or a new
// block ends the run.
func TestDeltasThatArrivedTogetherAreOnePart(t *testing.T) {
	delta := func(i, typ, field, s string) string {
		return ev("content_block_delta", `{"type":"content_block_delta","index":`+i+`,"delta":{"type":"`+typ+`","`+field+`":"`+s+`"}}`)
	}
	body := pieces{
		ev("message_start", `{"type":"message_start","message":{"id":"m","usage":{"input_tokens":1}}}`) +
			ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}`) +
			delta("0", "thinking_delta", "thinking", "a") + delta("0", "thinking_delta", "thinking", `b\n`) +
			delta("0", "signature_delta", "signature", "sig") + delta("0", "thinking_delta", "thinking", "c") +
			ev("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t","name":"f","input":{}}}`) +
			delta("1", "input_json_delta", "partial_json", `{\"a\"`) + ev("ping", `{"type":"ping"}`) +
			delta("1", "input_json_delta", "partial_json", `:1`),
		delta("1", "input_json_delta", "partial_json", `,\"b\":\"\u00e9\"`) + "event: content_block_delta\ndata: {",
		`"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"}"}}` + "\n\n" +
			ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":2}}`) +
			ev("message_stop", `{"type":"message_stop"}`),
	}
	ctx := context.Background()
	got, err := drain(newStream(ctx, ctx, io.NopCloser(&body), nil))
	if err != nil {
		t.Fatal(err)
	}
	args := func(s string) llm.StreamPart {
		return llm.StreamPart{Kind: llm.KindToolCallPart, ArgumentsPart: s, Index: 1, Indexed: true}
	}
	want := []llm.StreamPart{
		llm.ContentStreamPart(llm.ThinkPart("", "")), llm.ContentStreamPart(llm.ThinkPart("ab\n", "")),
		llm.ContentStreamPart(llm.ThinkPart("", "sig")), llm.ContentStreamPart(llm.ThinkPart("c", "")),
		{Kind: llm.KindToolCall, ToolCall: llm.ToolCall{ID: "t", Name: "f"}, Index: 1, Indexed: true},
		args(`{"a":1`), args(`,"b":"é"`), args("}"),
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("parts (-want +got):\n%s", d)
	}
}
