package llm_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/scripted"
)

func text(s string) llm.StreamPart  { return llm.ContentStreamPart(llm.TextPart(s)) }
func think(s string) llm.StreamPart { return llm.ContentStreamPart(llm.ThinkPart(s, "")) }
func signed(s, sig string) llm.StreamPart {
	return llm.ContentStreamPart(llm.ThinkPart(s, sig))
}
func header(id, name, args string, idx int, indexed bool) llm.StreamPart {
	return llm.StreamPart{Kind: llm.KindToolCall, ToolCall: llm.ToolCall{ID: id, Name: name, Arguments: args},
		Index: idx, Indexed: indexed}
}
func argPart(s string, idx int, indexed bool) llm.StreamPart {
	return llm.StreamPart{Kind: llm.KindToolCallPart, ArgumentsPart: s, Index: idx, Indexed: indexed}
}

func generate(t *testing.T, resp scripted.Response, cb llm.Callbacks) (*llm.Result, error) {
	t.Helper()
	p := scripted.New(scripted.Options{Responses: []scripted.Response{resp}, Model: "m1"})
	return llm.Generate(t.Context(), p, llm.Request{}, cb)
}

func TestSG1Merging(t *testing.T) {
	parts := []llm.StreamPart{
		text("Hello, "), text("world"), text("!"),
		llm.ContentStreamPart(llm.ImagePart("https://example.com/image.png")),
		text("Another text."), text(""),
		header("get_weather#123", "get_weather", "", 0, false),
		argPart("{", 0, false), argPart(`"city":`, 0, false), argPart(`"Beijing"`, 0, false),
		argPart("}", 0, false), argPart("", 0, false),
	}
	res, err := generate(t, scripted.Response{Parts: parts}, llm.Callbacks{})
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Message{
		Role: llm.RoleAssistant,
		Content: []llm.ContentPart{
			llm.TextPart("Hello, world!"),
			llm.ImagePart("https://example.com/image.png"),
			llm.TextPart("Another text."),
		},
		ToolCalls: []llm.ToolCall{{ID: "get_weather#123", Name: "get_weather", Arguments: `{"city":"Beijing"}`}},
	}
	if d := cmp.Diff(want, res.Message); d != "" {
		t.Errorf("message (-want +got):\n%s", d)
	}
}

func TestSG2ParallelRoutingLateDelta(t *testing.T) {
	parts := []llm.StreamPart{
		header("tc-0", "a", "", 0, true),
		argPart(`{"a":`, 0, true), argPart("1", 0, true),
		header("tc-1", "b", "", 1, true),
		argPart(`{"b":2}`, 1, true),
		argPart("}", 0, true),
	}
	res, err := generate(t, scripted.Response{Parts: parts}, llm.Callbacks{})
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.ToolCall{{ID: "tc-0", Name: "a", Arguments: `{"a":1}`}, {ID: "tc-1", Name: "b", Arguments: `{"b":2}`}}
	if d := cmp.Diff(want, res.Message.ToolCalls); d != "" {
		t.Errorf("tool calls (-want +got):\n%s", d)
	}
}

func TestSG3SignedThinkingClosesBlock(t *testing.T) {
	parts := []llm.StreamPart{think("a"), think("b"), signed("", "sig"), think("c"), text("ok")}
	res, err := generate(t, scripted.Response{Parts: parts}, llm.Callbacks{})
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.ContentPart{llm.ThinkPart("ab", "sig"), llm.ThinkPart("c", ""), llm.TextPart("ok")}
	if d := cmp.Diff(want, res.Message.Content); d != "" {
		t.Errorf("content (-want +got):\n%s", d)
	}
}

func TestSG4EmptyAndThinkOnlyResponses(t *testing.T) {
	for _, tt := range []struct {
		name     string
		resp     scripted.Response
		wantErr  string // substring; empty means success
		wantKind llm.Kind
	}{
		{"no parts", scripted.Response{}, "empty response (no content, no tool calls)", llm.KindEmptyResponse},
		{"think only truncated", scripted.Response{Parts: []llm.StreamPart{think("x")},
			Finish: llm.FinishTruncated, RawFinish: "length"},
			"finishReason=truncated, rawFinishReason=length", llm.KindEmptyResponse},
		{"think and blank text", scripted.Response{Parts: []llm.StreamPart{think("x"), text("   ")}},
			"only thinking", llm.KindEmptyResponse},
		{"think and tool call", scripted.Response{Parts: []llm.StreamPart{think("x"), header("c1", "f", "{}", 0, true)}},
			"", ""},
		{"filtered hint", scripted.Response{Finish: llm.FinishFiltered, RawFinish: "content_filter"},
			"filtered the response before visible output", llm.KindEmptyResponse},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := generate(t, tt.resp, llm.Callbacks{})
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Generate() error = %v, want success", err)
				}
				return
			}
			e, ok := llm.AsError(err)
			if !ok || e.Kind != tt.wantKind || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Generate() error = %v, want %s containing %q", err, tt.wantKind, tt.wantErr)
			}
			if !llm.IsRetryable(err) {
				t.Errorf("empty response must be retryable")
			}
			if !strings.Contains(err.Error(), "Provider: scripted, model: m1") {
				t.Errorf("error %q does not name provider and model", err)
			}
		})
	}
}

type countingProvider struct {
	llm.Provider
	calls int
}

func (c *countingProvider) Generate(ctx context.Context, req *llm.Request) (llm.Stream, error) {
	c.calls++
	return c.Provider.Generate(ctx, req)
}

func TestSG5CancellationBeforeSend(t *testing.T) {
	p := &countingProvider{Provider: scripted.New(scripted.Options{Responses: []scripted.Response{scripted.Text("x")}})}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := llm.Generate(ctx, p, llm.Request{}, llm.Callbacks{})
	if !llm.IsAbort(err) || !errors.Is(err, llm.ErrAborted) {
		t.Fatalf("Generate() error = %v, want abort", err)
	}
	if llm.IsProviderError(err) || llm.IsRetryable(err) {
		t.Errorf("abort classified as a provider failure")
	}
	if p.calls != 0 {
		t.Errorf("provider called %d times, want 0", p.calls)
	}
}

func TestSG6DeferredTools(t *testing.T) {
	p := scripted.New(scripted.Options{Responses: []scripted.Response{scripted.Text("x")}})
	tools := []llm.Tool{{Name: "a"}, {Name: "b", Deferred: true}}
	if _, err := llm.Generate(t.Context(), p, llm.Request{Tools: tools}, llm.Callbacks{}); err != nil {
		t.Fatal(err)
	}
	got := p.Requests()[0].Tools
	if len(got) != 1 || got[0].Name != "a" {
		t.Errorf("provider received tools %v, want only a", got)
	}
	if len(tools) != 2 {
		t.Errorf("caller's tool slice changed")
	}
}

func TestGenerateCancelMidStreamReturnsNothing(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	p := scripted.New(scripted.Options{Responses: []scripted.Response{{Parts: []llm.StreamPart{text("a"), text("b"), text("c")}}}})
	n := 0
	res, err := llm.Generate(ctx, p, llm.Request{}, llm.Callbacks{OnMessagePart: func(llm.StreamPart) {
		n++
		if n == 2 {
			cancel()
		}
	}})
	if res != nil || !llm.IsAbort(err) {
		t.Fatalf("Generate() = %v, %v; want nil result and abort", res, err)
	}
}

func TestGenerateCallbacksOrder(t *testing.T) {
	var events []string
	resp := scripted.Response{
		Parts:   []llm.StreamPart{text("hi"), header("c1", "f", `{"x":1}`, 0, true)},
		TraceID: "tr-1", ID: "resp-1",
		Usage: &llm.TokenUsage{InputOther: 3, Output: 2},
	}
	res, err := generate(t, resp, llm.Callbacks{
		OnRequestStart: func() { events = append(events, "start") },
		OnRequestSent:  func() { events = append(events, "sent") },
		OnTraceID:      func(id string) { events = append(events, "trace:"+id) },
		OnMessagePart:  func(p llm.StreamPart) { events = append(events, "part") },
		OnStreamEnd: func(s *llm.StreamStats) {
			if s == nil {
				t.Error("OnStreamEnd got nil stats after parts arrived")
			}
			events = append(events, "end")
		},
		OnToolCall: func(tc llm.ToolCall) { events = append(events, "call:"+tc.ID) },
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"start", "sent", "trace:tr-1", "part", "part", "end", "call:c1"}
	if d := cmp.Diff(want, events); d != "" {
		t.Errorf("callback order (-want +got):\n%s", d)
	}
	if res.ID != "resp-1" || res.TraceID != "tr-1" || res.Usage == nil || res.Usage.InputOther != 3 ||
		res.FinishReason != llm.FinishToolCalls {
		t.Errorf("result metadata = %+v", res)
	}
}

func TestGenerateStreamErrorPropagates(t *testing.T) {
	boom := &llm.Error{Kind: llm.KindConnection, Message: "connection reset"}
	resp := scripted.Response{Parts: []llm.StreamPart{text("a")}, StreamErr: boom, ErrAfter: 1}
	_, err := generate(t, resp, llm.Callbacks{})
	if !errors.Is(err, boom) {
		t.Fatalf("error = %v, want the stream's error", err)
	}
}

func TestMergeTable(t *testing.T) {
	for _, tt := range []struct {
		name  string
		parts []llm.StreamPart
		want  llm.Message
	}{
		{"lone empty text kept", []llm.StreamPart{text("")},
			llm.Message{Role: llm.RoleAssistant, Content: []llm.ContentPart{llm.TextPart("")}}},
		{"text think text stays three", []llm.StreamPart{text("a"), think("t"), text("b")},
			llm.Message{Role: llm.RoleAssistant, Content: []llm.ContentPart{llm.TextPart("a"), llm.ThinkPart("t", ""), llm.TextPart("b")}}},
		{"media never merges", []llm.StreamPart{llm.ContentStreamPart(llm.ImagePart("u1")), llm.ContentStreamPart(llm.ImagePart("u2"))},
			llm.Message{Role: llm.RoleAssistant, Content: []llm.ContentPart{llm.ImagePart("u1"), llm.ImagePart("u2")}}},
		{"new header flushes previous call", []llm.StreamPart{header("a", "f", "{", 0, false), argPart("}", 0, false), header("b", "g", "", 0, false)},
			llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "a", Name: "f", Arguments: "{}"}, {ID: "b", Name: "g"}}}},
		{"orphan argument part dropped", []llm.StreamPart{argPart("{}", 0, false), text("x")},
			llm.Message{Role: llm.RoleAssistant, Content: []llm.ContentPart{llm.TextPart("x")}}},
		{"unknown index falls through to sequential merge", []llm.StreamPart{header("a", "f", "", 0, true), argPart("x", 5, true)},
			llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "a", Name: "f", Arguments: "x"}}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, llm.MergeParts(tt.parts)); d != "" {
				t.Errorf("MergeParts (-want +got):\n%s", d)
			}
		})
	}
}
