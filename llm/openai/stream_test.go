package openai

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/llm/scripted"
)

func textPart(s string) llm.StreamPart  { return llm.ContentStreamPart(llm.TextPart(s)) }
func thinkPart(s string) llm.StreamPart { return llm.ContentStreamPart(think(s)) }
func header(id, name, args string, idx int, indexed bool) llm.StreamPart {
	return llm.StreamPart{Kind: llm.KindToolCall, ToolCall: call(id, name, args), Index: idx, Indexed: indexed}
}
func argPart(s string, idx int, indexed bool) llm.StreamPart {
	return llm.StreamPart{Kind: llm.KindToolCallPart, ArgumentsPart: s, Index: idx, Indexed: indexed}
}

// readAll drains a stream built over an SSE body.
func readAll(t *testing.T, cfg streamConfig, body string) ([]llm.StreamPart, *stream, error) {
	t.Helper()
	s := newStream(t.Context(), io.NopCloser(strings.NewReader(body)), cfg, nil)
	defer s.Close()
	var parts []llm.StreamPart
	for range 10000 {
		p, err := s.Next()
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return parts, s, err
		}
		parts = append(parts, p)
	}
	t.Fatal("stream did not end")
	return nil, nil, nil
}

// events joins chunk JSON into an SSE body ending in [DONE].
func events(chunks ...string) string {
	var b strings.Builder
	for _, c := range chunks {
		b.WriteString("data: " + c + "\n\n")
	}
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}

// uuidParts replaces generated ids so parts compare.
var anyID = cmpopts.AcyclicTransformer("id", func(tc llm.ToolCall) llm.ToolCall {
	if len(tc.ID) == 36 && strings.Count(tc.ID, "-") == 4 {
		tc.ID = "<uuid>"
	}
	return tc
})

func TestSG7BufferedHeader(t *testing.T) {
	srv := kimiServer(t, llmtest.Reply{Response: scripted.Response{Parts: []llm.StreamPart{
		argPart(`{"a":`, 0, true),
		header("c1", "f", "1}", 0, true),
	}}})
	var live []llm.StreamPart
	res, err := llm.Generate(t.Context(), against(srv, Options{}), llm.Request{Messages: []llm.Message{llm.UserMessage("go")}},
		llm.Callbacks{OnMessagePart: func(p llm.StreamPart) { live = append(live, p) }})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]llm.ToolCall{call("c1", "f", `{"a":1}`)}, res.Message.ToolCalls); d != "" {
		t.Errorf("tool calls (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]llm.StreamPart{header("c1", "f", `{"a":1}`, 0, true)}, live); d != "" {
		t.Errorf("live parts (-want +got):\n%s", d)
	}
}

func TestSK5StreamingUsageReasoningTrace(t *testing.T) {
	reply := llmtest.Reply{Response: scripted.Response{
		Parts: []llm.StreamPart{
			thinkPart("Let me think. "),
			textPart("All set. "),
			header("call_1", "lookup", `{"city":`, 0, true),
			argPart(`"Paris"}`, 0, true),
		},
		RawFinish: "tool_calls",
		Usage:     &llm.TokenUsage{InputOther: 10, Output: 6, InputCacheRead: 2},
		TraceID:   "tr-1",
		ID:        "chatcmpl-42",
	}}
	for _, tt := range []struct {
		name   string
		flavor llmtest.ChatFlavour
	}{
		{"usage in choices[0] with top-level cached_tokens", llmtest.ChatKimi},
		{"usage at the top level", llmtest.ChatOpenAI},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.FakeChatCompletionsWith(t, llmtest.ChatOptions{Flavour: tt.flavor}, reply)
			var order []string
			var live []llm.StreamPart
			res, err := llm.Generate(t.Context(), against(srv, Options{}), llm.Request{Messages: []llm.Message{llm.UserMessage("go")}},
				llm.Callbacks{
					OnTraceID:     func(id string) { order = append(order, "trace:"+id) },
					OnMessagePart: func(p llm.StreamPart) { order = append(order, "part"); live = append(live, p) },
				})
			if err != nil {
				t.Fatal(err)
			}
			wantLive := []llm.StreamPart{thinkPart("Let me think. "), textPart("All set. "),
				header("call_1", "lookup", `{"city":`, 0, true), argPart(`"Paris"}`, 0, true)}
			if d := cmp.Diff(wantLive, live); d != "" {
				t.Errorf("parts (-want +got):\n%s", d)
			}
			if order[0] != "trace:tr-1" {
				t.Errorf("callback order = %v; want the trace id first", order)
			}
			want := &llm.Result{
				ID: "chatcmpl-42",
				Message: llm.Message{Role: llm.RoleAssistant,
					Content:   []llm.ContentPart{think("Let me think. "), llm.TextPart("All set. ")},
					ToolCalls: []llm.ToolCall{call("call_1", "lookup", `{"city":"Paris"}`)}},
				Usage:           &llm.TokenUsage{InputOther: 10, Output: 6, InputCacheRead: 2},
				FinishReason:    llm.FinishToolCalls,
				RawFinishReason: "tool_calls",
				TraceID:         "tr-1",
			}
			if d := cmp.Diff(want, res); d != "" {
				t.Errorf("result (-want +got):\n%s", d)
			}
		})
	}
}

func TestToolCallDeltas(t *testing.T) {
	for _, tt := range []struct {
		name string
		body string
		want []llm.StreamPart
	}{
		{"no index, named: call with given id",
			events(`{"choices":[{"delta":{"tool_calls":[{"id":"x1","function":{"name":"f","arguments":"{}"}}]}}]}`),
			[]llm.StreamPart{header("x1", "f", "{}", 0, false)}},
		{"no index, named without id: generated id",
			events(`{"choices":[{"delta":{"tool_calls":[{"function":{"name":"f"}}]}}]}`),
			[]llm.StreamPart{header("<uuid>", "f", "", 0, false)}},
		{"no index, arguments only: unindexed part",
			events(`{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"{\"a\""}}]}}]}`),
			[]llm.StreamPart{argPart(`{"a"`, 0, false)}},
		{"no index, nothing: nothing",
			events(`{"choices":[{"delta":{"tool_calls":[{"function":{}}, {"id":"no-function"}]}}]}`),
			nil},
		{"index: header then parts",
			events(`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":""}}]}}]}`,
				`{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}}]}`),
			[]llm.StreamPart{header("a", "f", "", 0, true), argPart("{}", 0, true)}},
		{"index: arguments before name are buffered, id remembered",
			events(`{"choices":[{"delta":{"tool_calls":[{"index":2,"id":"early","function":{"arguments":"{\"a\":"}}]}}]}`,
				`{"choices":[{"delta":{"tool_calls":[{"index":2,"function":{"name":"f","arguments":"1}"}}]}}]}`),
			[]llm.StreamPart{header("early", "f", `{"a":1}`, 2, true)}},
		{"index: later name fragments ignored",
			events(`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f"}}]}}]}`,
				`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"b","function":{"name":"oo","arguments":"x"}}]}}]}`),
			[]llm.StreamPart{header("a", "f", "", 0, true), argPart("x", 0, true)}},
		{"index: named without any id gets one",
			events(`{"choices":[{"delta":{"tool_calls":[{"index":1,"function":{"name":"f"}}]}}]}`),
			[]llm.StreamPart{header("<uuid>", "f", "", 1, true)}},
		{"index that never gets a name becomes a nameless call at the end",
			events(`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f"}},{"index":1,"function":{"arguments":"{}"}}]}}]}`,
				`{"choices":[{"delta":{"tool_calls":[{"index":2,"id":"c","function":{"arguments":"{\"x\":"}}]}}]}`,
				`{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}},{"index":2,"function":{"arguments":"1}"}}]}}]}`),
			[]llm.StreamPart{header("a", "f", "", 0, true), argPart("{}", 0, true),
				header("<uuid>", "", "{}", 1, true), header("c", "", `{"x":1}`, 2, true)}},
		{"index with neither name, id nor arguments is dropped",
			events(`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f"}},{"index":1,"function":{"arguments":""}}]}}]}`),
			[]llm.StreamPart{header("a", "f", "", 0, true)}},
		{"parallel calls interleave",
			events(`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f"}}]}}]}`,
				`{"choices":[{"delta":{"tool_calls":[{"index":1,"id":"b","function":{"name":"g"}}]}}]}`,
				`{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"1"}},{"index":1,"function":{"arguments":"2"}}]}}]}`),
			[]llm.StreamPart{header("a", "f", "", 0, true), header("b", "g", "", 1, true), argPart("1", 0, true), argPart("2", 1, true)}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := readAll(t, streamConfig{flavour: Kimi}, tt.body)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got, anyID); d != "" {
				t.Errorf("parts (-want +got):\n%s", d)
			}
		})
	}
}

func TestChunkFields(t *testing.T) {
	t.Run("order within a chunk: reasoning, text, tool calls", func(t *testing.T) {
		got, _, err := readAll(t, streamConfig{flavour: Kimi}, events(
			`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f"}}],"content":"hi","reasoning_content":"r"}}]}`))
		if err != nil {
			t.Fatal(err)
		}
		want := []llm.StreamPart{thinkPart("r"), textPart("hi"), header("a", "f", "", 0, true)}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("parts (-want +got):\n%s", d)
		}
	})
	t.Run("empty reasoning string is a part, null and arrays are skipped", func(t *testing.T) {
		got, _, err := readAll(t, streamConfig{flavour: Kimi}, events(
			`{"choices":[{"delta":{"reasoning_content":""}}]}`,
			`{"choices":[{"delta":{"content":""}}]}`))
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff([]llm.StreamPart{thinkPart("")}, got); d != "" {
			t.Errorf("parts (-want +got):\n%s", d)
		}
		got, _, err = readAll(t, streamConfig{flavour: Kimi}, events(
			`{"choices":[{"delta":{"reasoning_content":null,"reasoning_details":[{"x":1}],"reasoning":"v"}}]}`))
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff([]llm.StreamPart{thinkPart("v")}, got); d != "" {
			t.Errorf("parts (-want +got):\n%s", d)
		}
	})
	t.Run("unknown fields and event types are ignored", func(t *testing.T) {
		got, s, err := readAll(t, streamConfig{flavour: OpenAI},
			": keep-alive\n\nevent: message\ndata: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"system_fingerprint\":\"fp\","+
				"\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\",\"audio\":{\"x\":1},\"refusal\":null},\"logprobs\":null,\"finish_reason\":null}],"+
				"\"usage\":null}\n\ndata: \n\ndata: [DONE]\n\n")
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff([]llm.StreamPart{textPart("a")}, got); d != "" {
			t.Errorf("parts (-want +got):\n%s", d)
		}
		if _, ok := s.Usage(); ok || s.ID() != "c" {
			t.Errorf("usage reported for usage:null, or id %q != c", s.ID())
		}
	})
	t.Run("unknown finish reason is other, raw kept, last wins", func(t *testing.T) {
		_, s, err := readAll(t, streamConfig{flavour: Kimi}, events(
			`{"choices":[{"delta":{"content":"a"},"finish_reason":"stop"}]}`,
			`{"choices":[{"delta":{},"finish_reason":"eos_token"}]}`,
			`{"choices":[{"delta":{},"finish_reason":null}]}`))
		if err != nil {
			t.Fatal(err)
		}
		if s.FinishReason() != llm.FinishOther || s.RawFinishReason() != "eos_token" {
			t.Errorf("finish = %q/%q; want other/eos_token", s.FinishReason(), s.RawFinishReason())
		}
	})
	t.Run("openai ignores usage inside choices", func(t *testing.T) {
		_, s, err := readAll(t, streamConfig{flavour: OpenAI}, events(
			`{"choices":[{"delta":{"content":"a"},"usage":{"prompt_tokens":5}}]}`))
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := s.Usage(); ok {
			t.Errorf("openai flavour took usage from choices[0]")
		}
	})
	t.Run("top-level usage wins over choices for kimi", func(t *testing.T) {
		_, s, err := readAll(t, streamConfig{flavour: Kimi}, events(
			`{"choices":[{"delta":{},"usage":{"prompt_tokens":99}}],"usage":{"prompt_tokens":7,"completion_tokens":3,"prompt_tokens_details":{"cached_tokens":4}}}`))
		if err != nil {
			t.Fatal(err)
		}
		u, ok := s.Usage()
		if d := cmp.Diff(llm.TokenUsage{InputOther: 3, Output: 3, InputCacheRead: 4}, u); !ok || d != "" {
			t.Errorf("usage (-want +got):\n%s", d)
		}
	})
	t.Run("a non-numeric usage field does not lose content", func(t *testing.T) {
		got, _, err := readAll(t, streamConfig{flavour: Kimi}, events(
			`{"choices":[{"delta":{"content":"kept"}}],"usage":{"prompt_tokens":"12"}}`))
		if err != nil || len(got) != 1 {
			t.Errorf("parts = %v, err = %v; want the text and no error", got, err)
		}
	})
	t.Run("EOF after a finish_reason without DONE is a clean end", func(t *testing.T) {
		got, s, err := readAll(t, streamConfig{flavour: Kimi},
			"data: {\"choices\":[{\"delta\":{\"content\":\"a\"},\"finish_reason\":\"stop\"}]}\n\n")
		if err != nil || len(got) != 1 || s.FinishReason() != llm.FinishCompleted {
			t.Errorf("parts = %v, err = %v, finish = %q; want one part, clean end, completed", got, err, s.FinishReason())
		}
	})
	t.Run("DONE without a finish_reason is a clean end", func(t *testing.T) {
		got, s, err := readAll(t, streamConfig{flavour: Kimi}, events(`{"choices":[{"delta":{"content":"a"}}]}`))
		if err != nil || len(got) != 1 || s.FinishReason() != llm.FinishNone {
			t.Errorf("parts = %v, err = %v, finish = %q; want one part, clean end, no finish", got, err, s.FinishReason())
		}
	})
}

func TestStreamErrors(t *testing.T) {
	for _, tt := range []struct {
		name     string
		body     string
		kind     llm.Kind
		contains string
		parts    int
	}{
		{"EOF inside an event", "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata: {\"cho", llm.KindIncompleteResponse,
			"incomplete response: kimi stream ended inside an event, after 1 events", 1},
		{"EOF at an event boundary without DONE or a finish", "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n",
			llm.KindIncompleteResponse, "incomplete response: kimi stream ended after 1 events without [DONE] or a finish_reason", 1},
		{"comments only, then EOF", ": keep-alive\n\n: keep-alive\n\n", llm.KindIncompleteResponse, "ended after 0 events", 0},
		{"empty body", "", llm.KindMalformedResponse, "malformed response: kimi stream: the service answered 200 with an empty body", 0},
		{"malformed chunk", "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata: {\"choices\":[\n\n", llm.KindMalformedResponse,
			"malformed response: kimi stream: chunk 2 does not decode: unexpected end of JSON input", 1},
		{"wrong type for content", events(`{"choices":[{"delta":{"content":5}}]}`), llm.KindMalformedResponse,
			"chunk 1 does not decode: json: cannot unmarshal number", 0},
		{"error payload", "data: {\"error\":{\"message\":\"upstream overloaded\",\"type\":\"server_error\"}}\n\n", llm.KindGeneric, "Error: upstream overloaded", 0},
		{"error payload as a string", "data: {\"error\":\"boom\"}\n\n", llm.KindGeneric, "Error: boom", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			parts, s, err := readAll(t, streamConfig{flavour: Kimi, traceID: "tr-9"}, tt.body)
			e, ok := llm.AsError(err)
			if !ok || e.Kind != tt.kind || !strings.Contains(e.Message, tt.contains) || e.TraceID != "tr-9" {
				t.Fatalf("err = %#v; want kind %s containing %q with the trace id", err, tt.kind, tt.contains)
			}
			if len(parts) != tt.parts {
				t.Errorf("got %d parts before the error; want %d", len(parts), tt.parts)
			}
			if _, again := s.Next(); again != err {
				t.Errorf("error is not sticky: %v then %v", err, again)
			}
			if !llm.IsRetryable(err) {
				t.Errorf("%v is not retryable", err)
			}
		})
	}
}

func TestNonStreamingJSON(t *testing.T) {
	body := `{"id":"cmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant",
		"reasoning_content":"r","content":"hi","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}},
		{"type":"function","function":{"name":"g","arguments":"{}"}}]},"finish_reason":"tool_calls"}],
		"usage":{"prompt_tokens":3,"completion_tokens":2}}`
	parts, s, err := readAll(t, streamConfig{flavour: OpenAI, json: true}, body)
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.StreamPart{thinkPart("r"), textPart("hi"), header("c1", "f", "{}", 0, false), header("<uuid>", "g", "{}", 0, false)}
	if d := cmp.Diff(want, parts, anyID); d != "" {
		t.Errorf("parts (-want +got):\n%s", d)
	}
	if s.FinishReason() != llm.FinishToolCalls || s.ID() != "cmpl-1" {
		t.Errorf("finish %q id %q", s.FinishReason(), s.ID())
	}
}

func TestWireFaults(t *testing.T) {
	msgs := []llm.Message{llm.UserMessage("go")}
	long := llmtest.Text(strings.Repeat("word ", 200))
	for _, tt := range []struct {
		name  string
		reply llmtest.Reply
		kind  llm.Kind
	}{
		{"reset mid-stream", long.WithFault(llmtest.Fault{ResetAfter: 3}), llm.KindConnection},
		{"torn event", long.WithFault(llmtest.Fault{TornAfter: 3}), llm.KindConnection},
		{"malformed chunk", long.WithFault(llmtest.Fault{MalformedAfter: 2}), llm.KindMalformedResponse},
		{"error event", long.WithFault(llmtest.Fault{ErrorEventAfter: 2, ErrorMessage: "engine crashed"}), llm.KindGeneric},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := kimiServer(t, tt.reply)
			_, err := llm.Generate(t.Context(), against(srv, Options{}), llm.Request{Messages: msgs}, llm.Callbacks{})
			e, ok := llm.AsError(err)
			if !ok || e.Kind != tt.kind || e.Message == "" || !llm.IsRetryable(err) {
				t.Errorf("err = %#v; want a retryable %s error", err, tt.kind)
			}
		})
	}
	t.Run("no finish is an incomplete response", func(t *testing.T) {
		r := llmtest.Text("partial")
		r.NoFinish = true
		srv := kimiServer(t, r)
		res, err := llm.Generate(t.Context(), against(srv, Options{}), llm.Request{Messages: msgs}, llm.Callbacks{})
		if res != nil || !llm.IsIncompleteResponse(err) || !llm.IsRetryable(err) {
			t.Errorf("Generate = %+v, %v; want no result and a retryable incomplete response", res, err)
		}
	})
	t.Run("slow first byte hits the header timeout", func(t *testing.T) {
		srv := kimiServer(t, llmtest.Text("late").WithFault(llmtest.Fault{FirstByteDelay: time.Minute}))
		p := against(srv, Options{ResponseHeaderTimeout: 50 * time.Millisecond})
		_, err := llm.Generate(t.Context(), p, llm.Request{Messages: msgs}, llm.Callbacks{})
		if e, ok := llm.AsError(err); !ok || e.Kind != llm.KindTimeout {
			t.Errorf("err = %#v; want a timeout", err)
		}
	})
	t.Run("idle stream hits the idle timeout", func(t *testing.T) {
		srv := kimiServer(t, llmtest.Text("slow").WithFault(llmtest.Fault{EventDelay: time.Minute}))
		p := against(srv, Options{IdleTimeout: 50 * time.Millisecond})
		_, err := llm.Generate(t.Context(), p, llm.Request{Messages: msgs}, llm.Callbacks{})
		if e, ok := llm.AsError(err); !ok || e.Kind != llm.KindTimeout || !errors.Is(err, llm.ErrProviderTimeout) {
			t.Errorf("err = %#v; want a provider timeout", err)
		}
	})
	t.Run("cancel mid-stream is an abort", func(t *testing.T) {
		srv := kimiServer(t, long)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		_, err := llm.Generate(ctx, against(srv, Options{}), llm.Request{Messages: msgs},
			llm.Callbacks{OnMessagePart: func(llm.StreamPart) { cancel() }})
		if !llm.IsAbort(err) || llm.IsProviderError(err) {
			t.Errorf("err = %v; want an abort", err)
		}
	})
	t.Run("cancel while waiting for headers is an abort", func(t *testing.T) {
		srv := kimiServer(t, llmtest.Text("late").WithFault(llmtest.Fault{FirstByteDelay: time.Minute}))
		ctx, cancel := context.WithCancel(t.Context())
		_, err := llm.Generate(ctx, against(srv, Options{}), llm.Request{Messages: msgs,
			OnRequestSent: cancel}, llm.Callbacks{})
		if !llm.IsAbort(err) || llm.IsProviderError(err) {
			t.Errorf("err = %v; want an abort", err)
		}
	})
}

func TestCloseIsIdempotent(t *testing.T) {
	s := newStream(t.Context(), io.NopCloser(strings.NewReader(events(`{"choices":[{"delta":{"content":"a"}}]}`))),
		streamConfig{}, nil)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Next(); err == nil || err == io.EOF {
		t.Errorf("Next after Close = %v; want an error", err)
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

// TestDeltasThatArrivedTogetherAreOnePart: consecutive text or argument
// deltas of one part that arrived in one burst come out as one part; a
// delta still on its way never holds back the ones already here, and any
// other part ends the run.
func TestDeltasThatArrivedTogetherAreOnePart(t *testing.T) {
	arg := func(s string) string {
		return `{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"` + s + `"}}]}}]}`
	}
	text := func(s string) string { return `{"choices":[{"delta":{"content":"` + s + `"}}]}` }
	body := pieces{
		strings.TrimSuffix(events(text("Hel"), text("lo"), `{"choices":[{"delta":{"reasoning_content":"r"}}]}`, text("!"),
			`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":""}}]}}]}`,
			arg(`{\"a\"`), arg(`:1`)), "data: [DONE]\n\n"),
		strings.TrimSuffix(events(arg(`,\"b\":2`)), "data: [DONE]\n\n") + "data: " + arg("}")[:20],
		arg("}")[20:] + "\n\n" + events(`{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}`),
	}
	s := newStream(t.Context(), io.NopCloser(&body), streamConfig{flavour: Kimi}, nil)
	defer s.Close()
	var got []llm.StreamPart
	for {
		p, err := s.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, p)
	}
	want := []llm.StreamPart{textPart("Hello"), thinkPart("r"), textPart("!"), header("a", "f", "", 0, true),
		argPart(`{"a":1`, 0, true), argPart(`,"b":2`, 0, true), argPart("}", 0, true)}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("parts (-want +got):\n%s", d)
	}
}
