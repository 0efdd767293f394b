package turn_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent/turn"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/anthropic"
	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/llm/openai"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/loop/looptest"
)

func TestSL5Provider429ThenSuccess(t *testing.T) {
	for _, tt := range []struct {
		name       string
		retryAfter int
		wantDelay  int64
	}{
		{"retry-after honoured", 1, 1000},
		{"computed backoff without retry-after", 0, 500}, // jitter 0: the low end of [500, 625]
	} {
		t.Run(tt.name, func(t *testing.T) {
			limited := llmtest.ChatRateLimited(tt.retryAfter)
			if tt.retryAfter == 0 {
				delete(limited.Fault.Header, "Retry-After")
				delete(limited.Fault.Header, "retry-after")
			}
			srv, p := kimiWire.serve(t, 0, limited, llmtest.Text("hello there"))
			c := newConversation("hi")
			res, sleeper, err := c.run(t, p)
			if err != nil || res.StopReason != loop.StopEndTurn {
				t.Fatalf("RunTurn = %+v, %v", res, err)
			}
			if n := len(srv.Requests()); n != 2 {
				t.Fatalf("%d HTTP requests, want 2", n)
			}
			want := []loop.EventType{loop.TypeStepBegin, loop.TypeContentPart, loop.TypeStepEnd}
			if d := cmp.Diff(want, c.rec.Types()); d != "" {
				t.Errorf("transcript (-want +got):\n%s", d)
			}
			retries := looptest.LiveOfType[loop.StepRetryingEvent](&c.rec)
			if len(retries) != 1 {
				t.Fatalf("%d step.retrying events, want 1", len(retries))
			}
			r := retries[0]
			if r.Step != 1 || r.FailedAttempt != 1 || r.NextAttempt != 2 || r.MaxAttempts != 10 ||
				r.DelayMs != tt.wantDelay || r.ErrorName != "APIProviderRateLimitError" || r.StatusCode != 429 {
				t.Errorf("step.retrying = %+v", r)
			}
			if d := sleeper.Delays(); len(d) != 1 || d[0].Milliseconds() != tt.wantDelay {
				t.Errorf("slept %v", d)
			}
			if got := c.fields[1].Attempt; got != "2/10" {
				t.Errorf("second attempt's Attempt = %q, want 2/10", got)
			}
			if d := cmp.Diff([]string{"hello there"}, contentTexts(&c.rec)); d != "" {
				t.Errorf("content parts (-want +got):\n%s", d)
			}
		})
	}
}

func TestSL6MidStreamErrorPayload(t *testing.T) {
	// The error payload follows the role chunk and the "par" chunk.
	first := llmtest.Text("par").WithFault(llmtest.Fault{ErrorEventAfter: 2, ErrorMessage: "upstream overloaded"})
	srv, p := kimiWire.serve(t, 0, first, llmtest.Text("partial answer"))
	c := newConversation("go")
	res, _, err := c.run(t, p)
	if err != nil || res.StopReason != loop.StopEndTurn {
		t.Fatalf("RunTurn = %+v, %v", res, err)
	}
	var deltas []string
	for _, d := range looptest.LiveOfType[loop.TextDeltaEvent](&c.rec) {
		deltas = append(deltas, d.Delta)
	}
	if got := strings.Join(deltas, ""); got != "parpartial answer" {
		t.Errorf("live deltas = %q, want the failed attempt's then the retry's", got)
	}
	if d := cmp.Diff([]string{"partial answer"}, contentTexts(&c.rec)); d != "" {
		t.Errorf("content parts (-want +got):\n%s", d)
	}
	retries := looptest.LiveOfType[loop.StepRetryingEvent](&c.rec)
	if len(retries) != 1 || retries[0].ErrorName != "ChatProviderError" ||
		!strings.Contains(retries[0].ErrorMessage, "upstream overloaded") {
		t.Errorf("step.retrying = %+v", retries)
	}
	acceptedAll(t, srv)
}

func TestSL7StreamCutBeforeFinish(t *testing.T) {
	for _, w := range []wire{kimiWire, anthropicWire} {
		t.Run(w.name+"/reset mid-body is retried", func(t *testing.T) {
			first := llmtest.Text(strings.Repeat("lost words ", 8)).WithFault(llmtest.Fault{ResetAfter: 3})
			srv, p := w.serve(t, 0, first, llmtest.Text("kept"))
			c := newConversation("go")
			res, _, err := c.run(t, p)
			if err != nil || res.StopReason != loop.StopEndTurn {
				t.Fatalf("RunTurn = %+v, %v", res, err)
			}
			if d := cmp.Diff([]string{"kept"}, contentTexts(&c.rec)); d != "" {
				t.Errorf("content parts (-want +got):\n%s", d)
			}
			retries := looptest.LiveOfType[loop.StepRetryingEvent](&c.rec)
			if len(retries) != 1 || retries[0].ErrorName != "APIConnectionError" {
				t.Errorf("step.retrying = %+v", retries)
			}
			acceptedAll(t, srv)
		})
		// (b) and (c) as issue 13 revised them: a body that ends without
		// its end marker is an incomplete response, retried like a
		// dropped connection, and a tool call in it never runs.
		t.Run(w.name+"/clean close without finish is retried", func(t *testing.T) {
			r := llmtest.Text("no finish here")
			r.NoFinish = true
			srv, p := w.serve(t, 0, r, llmtest.Text("finished"))
			c := newConversation("go")
			res, _, err := c.run(t, p)
			if err != nil || res.StopReason != loop.StopEndTurn {
				t.Fatalf("RunTurn = %+v, %v", res, err)
			}
			if d := cmp.Diff([]string{"finished"}, contentTexts(&c.rec)); d != "" {
				t.Errorf("content parts (-want +got):\n%s", d)
			}
			retries := looptest.LiveOfType[loop.StepRetryingEvent](&c.rec)
			if len(retries) != 1 || retries[0].ErrorName != "APIIncompleteResponseError" {
				t.Errorf("step.retrying = %+v", retries)
			}
			acceptedAll(t, srv)
		})
		t.Run(w.name+"/a tool call in a stream cut before its finish never runs", func(t *testing.T) {
			r := llmtest.ToolCall("tc_1", "echo", `{"text":"rm -rf"}`)
			r.NoFinish = true
			srv, p := w.serve(t, 0, r, llmtest.Text("done"))
			c := newConversation("go")
			echo := looptest.Echo()
			res, _, err := c.run(t, p, func(in *loop.RunTurnInput) { in.Tools = []loop.ExecutableTool{echo} })
			if err != nil || res.StopReason != loop.StopEndTurn || res.Steps != 1 {
				t.Fatalf("RunTurn = %+v, %v", res, err)
			}
			if n := len(echo.Executions()); n != 0 {
				t.Errorf("the tool ran %d times", n)
			}
			if calls := looptest.RecordedOfType[loop.ToolCallEvent](&c.rec); len(calls) != 0 {
				t.Errorf("tool.call recorded: %+v", calls)
			}
			acceptedAll(t, srv)
		})
	}
}

func TestSK9CompletionCapThroughTheAdapter(t *testing.T) {
	for _, tt := range []struct {
		name     string
		override string
		want     any
	}{
		{"window minus used context", "", float64(162144)},
		{"override 0 sends no cap", "0", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv, p := kimiWire.serve(t, 0, llmtest.Text("ok"))
			a := turn.NewLLM(turn.LLMOptions{
				Provider:          p,
				Capability:        &llm.Capability{ToolUse: true, MaxContextTokens: 262144},
				Budget:            llm.ResolveCompletionBudget(llm.BudgetInputs{MaxCompletionTokensOverride: tt.override}),
				UsedContextTokens: func() int { return 100000 },
			})
			var r recorder
			if _, err := a.Chat(t.Context(), r.params(llm.UserMessage("hi"))); err != nil {
				t.Fatal(err)
			}
			body := mustJSON(t, srv.Request(0).Body)
			if got := body["max_completion_tokens"]; got != tt.want {
				t.Errorf("max_completion_tokens = %v, want %v", got, tt.want)
			}
			if _, ok := body["max_tokens"]; ok {
				t.Error("max_tokens sent")
			}
		})
	}
}

// TestSG7LiveDeltaCarriesBufferedArguments serves a Chat Completions stream
// whose first tool-call delta has arguments but no name yet.
func TestSG7LiveDeltaCarriesBufferedArguments(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := func(delta string) string {
			return fmt.Sprintf(`data: {"id":"r1","choices":[{"index":0,"delta":%s,"finish_reason":null}]}`+"\n\n", delta)
		}
		_, _ = io.WriteString(w, chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\":"}}]}`)+
			chunk(`{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":"1}"}}]}`)+
			`data: {"id":"r1","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`+"\n\n"+
			"data: [DONE]\n\n")
	}))
	defer srv.Close()
	p := openai.New(openai.Options{Flavour: openai.OpenAI, BaseURL: srv.URL, APIKey: "k", Model: "gpt-4.1"})
	var r recorder
	resp, err := turn.NewLLM(turn.LLMOptions{Provider: p}).Chat(t.Context(), r.params(llm.UserMessage("x")))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]llm.ToolCall{{ID: "c1", Name: "f", Arguments: `{"a":1}`}}, resp.ToolCalls); d != "" {
		t.Errorf("tool calls (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{`call:c1:f:{"a":1}`}, r.deltas); d != "" {
		t.Errorf("live deltas (-want +got):\n%s", d)
	}
}

func TestSA7ClientSideImageRejectionResendsStripped(t *testing.T) {
	srv, p := anthropicWire.serve(t, 0, llmtest.Text("I cannot see it, but fine."))
	c := newConversation("")
	c.msgs = []llm.Message{{Role: llm.RoleUser, Content: []llm.ContentPart{
		llm.TextPart("what is this?"), llm.ImagePart("data:image/bmp;base64,Qk0="),
	}}}
	stripped := func(ctx context.Context) ([]llm.Message, error) {
		return []llm.Message{llm.UserMessage("what is this?\n[image removed]")}, nil
	}
	res, _, err := c.run(t, p, func(in *loop.RunTurnInput) { in.BuildMessagesMediaStripped = stripped })
	if err != nil || res.StopReason != loop.StopEndTurn {
		t.Fatalf("RunTurn = %+v, %v", res, err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("%d requests reached the server, want only the stripped one", n)
	}
	if len(looptest.LiveOfType[loop.StepRetryingEvent](&c.rec)) != 0 {
		t.Error("image-format error was retried")
	}
	if d := cmp.Diff([]loop.Projection{"", loop.ProjectionMediaStripped}, []loop.Projection{c.fields[0].Projection, c.fields[1].Projection}); d != "" {
		t.Errorf("projections (-want +got):\n%s", d)
	}
	acceptedAll(t, srv)
}

// TestStrictResendThroughTheWire: a history the strict Anthropic server
// rejects (a tool result displaced behind a user message) is resent once
// through the strict builder and accepted.
func TestStrictResendThroughTheWire(t *testing.T) {
	srv, p := anthropicWire.serve(t, 0, llmtest.Text("ok"))
	c := newConversation("")
	c.msgs = []llm.Message{
		llm.UserMessage("run it"),
		llm.AssistantMessage("", llm.ToolCall{ID: "toolu_1", Name: "echo", Arguments: `{"text":"a"}`}),
		llm.UserMessage("also this"),
		llm.ToolMessage("toolu_1", llm.TextPart("a")),
	}
	strict := func(ctx context.Context) ([]llm.Message, error) {
		return []llm.Message{c.msgs[0], c.msgs[1], c.msgs[3], c.msgs[2]}, nil
	}
	res, _, err := c.run(t, p, func(in *loop.RunTurnInput) { in.BuildMessagesStrict = strict })
	if err != nil || res.StopReason != loop.StopEndTurn {
		t.Fatalf("RunTurn = %+v, %v", res, err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].Rejected != 400 || reqs[1].Rejected != 0 {
		t.Fatalf("requests: %d; first rejected %d, second rejected %d", len(reqs), reqs[0].Rejected, reqs[len(reqs)-1].Rejected)
	}
	if c.fields[1].Projection != loop.ProjectionStrict {
		t.Errorf("resend projection = %q", c.fields[1].Projection)
	}
}

func TestSK6QuotaExhaustedFailsFast(t *testing.T) {
	srv, p := kimiWire.serve(t, 0, llmtest.ChatQuotaExhausted(), llmtest.Text("never"))
	c := newConversation("hi")
	_, _, err := c.run(t, p)
	if !llm.IsQuotaExhausted(err) {
		t.Fatalf("error = %v, want quota exhausted", err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
	if n := len(looptest.LiveOfType[loop.StepRetryingEvent](&c.rec)); n != 0 {
		t.Errorf("%d step.retrying events, want 0", n)
	}
	ints := looptest.LiveOfType[loop.TurnInterruptedEvent](&c.rec)
	if len(ints) != 1 || ints[0].Reason != loop.InterruptError {
		t.Errorf("turn.interrupted = %+v", ints)
	}
}

var _ = anthropic.New // both wires are exercised through harness_test.go
