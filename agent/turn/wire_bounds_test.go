package turn_test

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/anthropic"
	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/llm/openai"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/loop/looptest"
)

// memWire starts wire w's fake in memory and returns a provider with the
// default clocks (or those in o) that reaches it, for tests under
// testing/synctest.
func memWire(t *testing.T, w wire, o limits, replies ...llmtest.Reply) (*llmtest.Server, llm.Provider) {
	t.Helper()
	if w.name == anthropicWire.name {
		srv := llmtest.FakeAnthropicWith(t, llmtest.AnthropicOptions{InMemory: true}, replies...)
		return srv, anthropic.New(anthropic.Options{BaseURL: srv.URL, APIKey: "test-key", Model: "claude-sonnet-4-5",
			HTTPClient: srv.Client(), IdleTimeout: o.idle, ResponseTimeout: o.response})
	}
	srv := llmtest.FakeChatCompletionsWith(t, llmtest.ChatOptions{Flavour: llmtest.ChatKimi, InMemory: true}, replies...)
	return srv, openai.New(openai.Options{Flavour: openai.Kimi, BaseURL: llmtest.ChatBaseURL(srv), APIKey: "test-key",
		Model: "kimi-k2", HTTPClient: srv.Client(), IdleTimeout: o.idle, ResponseTimeout: o.response})
}

// limits are provider clocks; zero fields are the defaults.
type limits struct{ idle, response time.Duration }

// TestWireNeverHangs: a service that stalls, only keeps the connection
// alive, or never stops streaming ends the turn with a clear error within
// the bounds, on both wires, with the default settings and a fake clock.
func TestWireNeverHangs(t *testing.T) {
	for _, w := range []wire{kimiWire, anthropicWire} {
		t.Run(w.name+"/headers then silence every time", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv, p := memWire(t, w, limits{}, llmtest.HeadersThenSilence(), llmtest.HeadersThenSilence(),
					llmtest.Text("never"))
				c := newConversation("go")
				start := time.Now()
				_, _, err := c.run(t, p, realSleep)
				// 2 min of silence (the idle timeout), a 0.5 s wait, and the
				// second attempt cut when 3 min without an answer are up.
				if took := time.Since(start); took != loop.DefaultStallTimeout {
					t.Errorf("the turn failed after %v, want %v", took, loop.DefaultStallTimeout)
				}
				want := "gave up after 2 attempts: no answer from the model service in 3m0s " +
					"(loop_control.step_stall_timeout_ms); the failure before the last attempt was: request timed out: " +
					"the model service sent nothing for 2m0s (loop_control.stream_idle_timeout_ms)"
				if err == nil || err.Error() != want {
					t.Errorf("err = %v\nwant %s", err, want)
				}
				if p := event.ErrorOf(err); p.Code != event.CodeProviderConnection || p.Message != want {
					t.Errorf("payload = %+v", p)
				}
				r := looptest.LiveOfType[loop.StepRetryingEvent](&c.rec)
				if len(r) != 1 || r[0].DelayMs != 500 || r[0].ErrorName != "APITimeoutError" ||
					r[0].ErrorMessage != "request timed out: the model service sent nothing for 2m0s (loop_control.stream_idle_timeout_ms)" {
					t.Errorf("step.retrying = %+v; want one naming the idle time, with its delay", r)
				}
				if n := len(srv.Requests()); n != 2 {
					t.Errorf("%d requests, want 2", n)
				}
			})
		})
		t.Run(w.name+"/silence once, then an answer", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				_, p := memWire(t, w, limits{}, llmtest.HeadersThenSilence(), llmtest.Text("here"))
				c := newConversation("go")
				start := time.Now()
				res, _, err := c.run(t, p, realSleep)
				if err != nil || res.StopReason != loop.StopEndTurn || time.Since(start) != 2*time.Minute+500*time.Millisecond {
					t.Errorf("RunTurn = %+v, %v after %v", res, err, time.Since(start))
				}
			})
		})
		t.Run(w.name+"/keep-alive comments forever", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv, p := memWire(t, w, limits{}, llmtest.KeepAliveForever(15*time.Second), llmtest.Text("never"))
				c := newConversation("go")
				start := time.Now()
				_, _, err := c.run(t, p, realSleep)
				want := "no answer from the model service in 3m0s (loop_control.step_stall_timeout_ms): " +
					"it accepted the request and sent nothing of an answer"
				if time.Since(start) != 3*time.Minute || err == nil || err.Error() != want {
					t.Errorf("err = %v after %v\nwant %s", err, time.Since(start), want)
				}
				if n := len(srv.Requests()); n != 1 {
					t.Errorf("%d requests, want 1", n)
				}
			})
		})
		t.Run(w.name+"/endless deltas", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv, p := memWire(t, w, limits{}, llmtest.EndlessDeltas(time.Second), llmtest.Text("never"))
				c := newConversation("go")
				start := time.Now()
				_, _, err := c.run(t, p, realSleep)
				want := "request timed out: the model response took longer than 30m0s (loop_control.response_timeout_ms)"
				if time.Since(start) != llm.DefaultResponseTimeout || err == nil || err.Error() != want {
					t.Errorf("err = %v after %v\nwant %s", err, time.Since(start), want)
				}
				if n := len(srv.Requests()); n != 1 || len(contentTexts(&c.rec)) != 0 {
					t.Errorf("%d requests, %d content parts; want 1 and none", n, len(contentTexts(&c.rec)))
				}
			})
		})
		t.Run(w.name+"/retry-after of a day", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv, p := memWire(t, w, limits{}, w.rateLimited(86400), llmtest.Text("never"))
				c := newConversation("go")
				start := time.Now()
				_, _, err := c.run(t, p, realSleep)
				if time.Since(start) != 0 || err == nil || !strings.HasPrefix(err.Error(),
					"not retrying: the service asked to wait 24h0m0s (Retry-After), longer than the 1m0s kimigo waits "+
						"(loop_control.max_retry_after_ms): 429") {
					t.Errorf("err = %v after %v", err, time.Since(start))
				}
				if n := len(srv.Requests()); n != 1 {
					t.Errorf("%d requests, want 1", n)
				}
			})
		})
		t.Run(w.name+"/a refusal every time", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var replies []llmtest.Reply
				for range 10 {
					replies = append(replies, w.rateLimited(50))
				}
				srv, p := memWire(t, w, limits{}, replies...)
				c := newConversation("go")
				start := time.Now()
				_, _, err := c.run(t, p, realSleep)
				if took := time.Since(start); took > 5*time.Minute || err == nil || !llm.IsProviderRateLimitError(err) {
					t.Errorf("err = %v after %v", err, took)
				}
				if n := len(srv.Requests()); n != 4 { // at 0, 50 s, 100 s, 150 s; 200 s is past 3 min
					t.Errorf("%d requests, want 4", n)
				}
			})
		})
	}
}

// realSleep makes the loop wait on its own timers (the fake clock's, under
// synctest) instead of the harness's instant sleeper.
func realSleep(in *loop.RunTurnInput) { in.Options.Sleep = nil }

// TestWirePermanentFaultsFailFast: a 200 answer that is not a stream and
// a stream malformed the same way twice end the turn at once (or after one
// retry), with an error that says what they are; faults a retry can cure
// are retried. (A line over the decoder's limit is the same invalid
// response as the HTML page; the providers' TestNonStreamAnswers cover it.)
func TestWirePermanentFaultsFailFast(t *testing.T) {
	text := strings.Repeat("some words ", 6)
	for _, w := range []wire{kimiWire, anthropicWire} {
		for _, tt := range []struct {
			name     string
			replies  []llmtest.Reply
			requests int
			is       func(error) bool // nil: the turn recovers
			msg      []string         // the error message contains these
		}{
			{name: "HTML page with 200", replies: []llmtest.Reply{llmtest.HTML200(), llmtest.Text("never")}, requests: 1,
				is: llm.IsInvalidResponse, msg: []string{"answered 200 with Content-Type text/html; charset=utf-8, not an event stream",
					"Sign in - Example Gateway", "is the base URL right?"}},
			{name: "JSON that is not an answer with 200", replies: []llmtest.Reply{llmtest.JSON200(`{"object":"list","data":[]}`),
				llmtest.Text("never")}, requests: 1, is: llm.IsInvalidResponse,
				msg: []string{"200 with Content-Type application/json", "where an event stream was requested"}},
			{name: "empty 200 twice", replies: []llmtest.Reply{llmtest.Empty200(), llmtest.Empty200(), llmtest.Text("never")},
				requests: 2, is: llm.IsMalformedResponse, msg: []string{"gave up after 2 attempts: the service sent the same " +
					"malformed response twice in a row", "answered 200 with an empty body"}},
			{name: "empty 200 once", replies: []llmtest.Reply{llmtest.Empty200(), llmtest.Text("recovered")}, requests: 2},
			{name: "malformed the same way twice", replies: []llmtest.Reply{
				llmtest.Text(text).WithFault(llmtest.Fault{MalformedAfter: 2}),
				llmtest.Text(text).WithFault(llmtest.Fault{MalformedAfter: 2}), llmtest.Text("never")},
				requests: 2, is: llm.IsMalformedResponse, msg: []string{"the same malformed response twice in a row", "does not decode"}},
			{name: "malformed once", replies: []llmtest.Reply{llmtest.Text(text).WithFault(llmtest.Fault{MalformedAfter: 2}),
				llmtest.Text("recovered")}, requests: 2},
		} {
			t.Run(w.name+"/"+tt.name, func(t *testing.T) {
				srv, p := w.serve(t, 0, tt.replies...)
				c := newConversation("go")
				res, _, err := c.run(t, p)
				if n := len(srv.Requests()); n != tt.requests {
					t.Errorf("%d requests, want %d", n, tt.requests)
				}
				if tt.is == nil {
					if err != nil || res.StopReason != loop.StopEndTurn {
						t.Fatalf("RunTurn = %+v, %v; want a recovery", res, err)
					}
					return
				}
				if !tt.is(err) {
					t.Fatalf("err = %#v; want the classified error", err)
				}
				for _, m := range tt.msg {
					if !strings.Contains(err.Error(), m) {
						t.Errorf("error %q does not say %q", err, m)
					}
				}
				if p := event.ErrorOf(err); p.Code != event.CodeProviderAPI || p.Message != err.Error() {
					t.Errorf("payload = %+v", p)
				}
			})
		}
	}
	t.Run("kimi/a chat completion in JSON is an answer", func(t *testing.T) {
		body := `{"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"whole"},` +
			`"finish_reason":"stop"}]}`
		_, p := kimiWire.serve(t, 0, llmtest.JSON200(body))
		c := newConversation("go")
		if res, _, err := c.run(t, p); err != nil || res.StopReason != loop.StopEndTurn || contentTexts(&c.rec)[0] != "whole" {
			t.Fatalf("RunTurn = %+v, %v", res, err)
		}
	})
	t.Run("anthropic/an error envelope in JSON is the error it carries", func(t *testing.T) {
		_, p := anthropicWire.serve(t, 0, llmtest.JSON200(llmtest.AnthropicErrorBody("overloaded_error", "Overloaded")),
			llmtest.Text("recovered"))
		c := newConversation("go")
		if res, _, err := c.run(t, p); err != nil || res.StopReason != loop.StopEndTurn {
			t.Fatalf("RunTurn = %+v, %v", res, err)
		}
		if r := looptest.LiveOfType[loop.StepRetryingEvent](&c.rec); len(r) != 1 || r[0].StatusCode != 529 {
			t.Errorf("step.retrying = %+v", r)
		}
	})
}

// TestWireEarlyEnd: a body that ends cleanly before its end marker is an
// incomplete response, retried, and a tool call inside it never runs; one
// that ends after its finish but before the very last marker ([DONE],
// message_stop) is an answer.
func TestWireEarlyEnd(t *testing.T) {
	call := llmtest.ToolCall("tc_1", "echo", `{"text":"`+strings.Repeat("a", 64)+`"}`)
	for _, w := range []wire{kimiWire, anthropicWire} {
		lastArg, finish := `"finish_reason":"`, "[DONE]"
		if w.name == anthropicWire.name {
			lastArg, finish = "content_block_stop", `"type":"message_stop"`
		}
		for _, tt := range []struct {
			name   string
			reply  llmtest.Reply
			answer bool
		}{
			{"after the first event", llmtest.EndAfter(call, 1), false},
			{"inside the tool call's arguments", llmtest.EndAfter(call, 4), false},
			{"after the last argument, before the finish", llmtest.EndBefore(call, lastArg), false},
			{"after the finish, before the last marker", llmtest.EndBefore(call, finish), true},
		} {
			t.Run(w.name+"/"+tt.name, func(t *testing.T) {
				srv, p := w.serve(t, 0, tt.reply, llmtest.Text("done"))
				c := newConversation("go")
				echo := looptest.Echo()
				res, _, err := c.run(t, p, func(in *loop.RunTurnInput) { in.Tools = []loop.ExecutableTool{echo} })
				if err != nil || res.StopReason != loop.StopEndTurn {
					t.Fatalf("RunTurn = %+v, %v", res, err)
				}
				r := looptest.LiveOfType[loop.StepRetryingEvent](&c.rec)
				if tt.answer {
					if n := len(echo.Executions()); n != 1 || len(r) != 0 || res.Steps != 2 {
						t.Errorf("a whole answer: the tool ran %d times, %d retries, %d steps", n, len(r), res.Steps)
					}
					return
				}
				if n := len(echo.Executions()); n != 0 || res.Steps != 1 {
					t.Errorf("the tool of an incomplete response ran %d times (%d steps)", n, res.Steps)
				}
				if len(r) != 1 || r[0].ErrorName != "APIIncompleteResponseError" ||
					!strings.HasPrefix(r[0].ErrorMessage, "incomplete response: ") {
					t.Errorf("step.retrying = %+v", r)
				}
				acceptedAll(t, srv)
			})
		}
	}
}
