package openai

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/llmtest"
)

// TestNonStreamAnswers: a 200 that is not an event stream fails at once
// with an error naming what it is; mislabelled SSE is still read.
func TestNonStreamAnswers(t *testing.T) {
	msgs := []llm.Message{llm.UserMessage("go")}
	for _, tt := range []struct {
		name  string
		reply llmtest.Reply
		kind  llm.Kind
		msg   func(srv *llmtest.Server) string
	}{
		{"HTML page", llmtest.HTML200(), llm.KindInvalidResponse, func(srv *llmtest.Server) string {
			return "invalid response: POST " + llmtest.ChatBaseURL(srv) + "/chat/completions answered 200 with Content-Type " +
				"text/html; charset=utf-8, not an event stream: Sign in - Example Gateway (is the base URL right?)"
		}},
		{"JSON that is no completion", llmtest.JSON200(`{"object":"list","data":[]}`), llm.KindInvalidResponse,
			func(*llmtest.Server) string {
				return "invalid response: kimi: the service answered 200 with Content-Type application/json that is not a " +
					`chat completion, where an event stream was requested: {"object":"list","data":[]}`
			}},
		{"JSON that is not JSON", llmtest.Reply{Fault: llmtest.Fault{Status: 200, Body: "<html>oops</html>",
			ContentType: "application/json"}}, llm.KindInvalidResponse, func(*llmtest.Server) string {
			return "invalid response: kimi: the service answered 200 with Content-Type application/json that is not a " +
				"chat completion, where an event stream was requested: oops"
		}},
		{"empty JSON", llmtest.JSON200(""), llm.KindMalformedResponse, func(*llmtest.Server) string {
			return "malformed response: kimi: the service answered 200 with an empty application/json body"
		}},
		{"empty body", llmtest.Empty200(), llm.KindMalformedResponse, func(*llmtest.Server) string {
			return "malformed response: kimi stream: the service answered 200 with an empty body"
		}},
		{"line over the limit", llmtest.LongLine(llmtest.Text("x"), 33<<20), llm.KindInvalidResponse, func(*llmtest.Server) string {
			return "invalid response: kimi stream: a line is longer than 32 MiB, the most one event may carry"
		}},
		{"cut after the first event", llmtest.EndAfter(llmtest.Text("abc"), 1), llm.KindIncompleteResponse,
			func(*llmtest.Server) string {
				return "incomplete response: kimi stream ended after 1 events without [DONE] or a finish_reason"
			}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := kimiServer(t, tt.reply)
			res, err := llm.Generate(t.Context(), against(srv, Options{}), llm.Request{Messages: msgs}, llm.Callbacks{})
			e, ok := llm.AsError(err)
			if res != nil || !ok || e.Kind != tt.kind || e.Message != tt.msg(srv) {
				t.Fatalf("Generate = %v, %#v\nwant %s: %s", res, err, tt.kind, tt.msg(srv))
			}
		})
	}
	t.Run("SSE labelled text/plain is read", func(t *testing.T) {
		srv := kimiServer(t, llmtest.Text("fine").WithFault(llmtest.Fault{ContentType: "text/plain; charset=utf-8"}))
		if got := llm.ExtractText(generate(t, against(srv, Options{}), llm.Request{Messages: msgs}).Message, ""); got != "fine" {
			t.Errorf("answer = %q", got)
		}
	})
	t.Run("a finish without DONE is an answer", func(t *testing.T) {
		srv := kimiServer(t, llmtest.EndBefore(llmtest.Text("whole"), "[DONE]"))
		if got := llm.ExtractText(generate(t, against(srv, Options{}), llm.Request{Messages: msgs}).Message, ""); got != "whole" {
			t.Errorf("answer = %q", got)
		}
	})
}

// TestClocks runs the provider's idle and response clocks with their
// defaults, in fake time, against an in-memory fake.
func TestClocks(t *testing.T) {
	msgs := []llm.Message{llm.UserMessage("go")}
	for _, tt := range []struct {
		name      string
		reply     llmtest.Reply
		opts      Options
		after     time.Duration
		msg       string
		retryable bool
	}{
		{"headers then silence", llmtest.HeadersThenSilence(), Options{}, llm.DefaultStreamIdleTimeout,
			"request timed out: the model service sent nothing for 2m0s (loop_control.stream_idle_timeout_ms)", true},
		{"no headers at all", llmtest.Text("late").WithFault(llmtest.Fault{FirstByteDelay: time.Hour}), Options{},
			llm.DefaultStreamIdleTimeout, "request timed out: the model service sent nothing for 2m0s (loop_control.stream_idle_timeout_ms)", true},
		{"silence after some events", llmtest.Text("abc").WithFault(llmtest.Fault{Stall: true, StallAfter: 2}),
			Options{IdleTimeout: 45 * time.Second}, 45 * time.Second,
			"request timed out: the model service sent nothing for 45s (loop_control.stream_idle_timeout_ms)", true},
		{"keep-alives forever", llmtest.KeepAliveForever(15 * time.Second), Options{ResponseTimeout: 10 * time.Minute},
			10 * time.Minute, "request timed out: the model response took longer than 10m0s (loop_control.response_timeout_ms)", false},
		{"endless deltas", llmtest.EndlessDeltas(time.Second), Options{}, llm.DefaultResponseTimeout,
			"request timed out: the model response took longer than 30m0s (loop_control.response_timeout_ms)", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := llmtest.FakeChatCompletionsWith(t, llmtest.ChatOptions{Flavour: llmtest.ChatKimi, InMemory: true}, tt.reply)
				tt.opts.HTTPClient = srv.Client()
				start := time.Now()
				_, err := llm.Generate(t.Context(), against(srv, tt.opts), llm.Request{Messages: msgs}, llm.Callbacks{})
				e, ok := llm.AsError(err)
				if !ok || e.Kind != llm.KindTimeout || e.Message != tt.msg || llm.IsRetryable(err) != tt.retryable {
					t.Fatalf("err = %#v\nwant %s (retryable %v)", err, tt.msg, tt.retryable)
				}
				if took := time.Since(start); took != tt.after {
					t.Errorf("failed after %v, want %v", took, tt.after)
				}
			})
		})
	}
	t.Run("both clocks off", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			srv := llmtest.FakeChatCompletionsWith(t, llmtest.ChatOptions{InMemory: true}, llmtest.HeadersThenSilence())
			ctx, cancel := context.WithTimeout(t.Context(), 24*time.Hour)
			defer cancel()
			p := against(srv, Options{HTTPClient: srv.Client(), IdleTimeout: -1, ResponseTimeout: -1})
			_, err := llm.Generate(ctx, p, llm.Request{Messages: msgs}, llm.Callbacks{})
			if !llm.IsAbort(err) || !strings.Contains(err.Error(), "deadline") {
				t.Errorf("err = %v; want the caller's deadline, nothing sooner", err)
			}
		})
	})
}
