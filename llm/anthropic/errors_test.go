package anthropic

import (
	"strings"
	"testing"
	"time"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/llmtest"
)

func TestStatusErrors(t *testing.T) {
	kimiQuota := llmtest.Status(429, `{"error":{"type":"exceeded_current_quota_error","message":"Your account org-1 is suspended due to insufficient balance, please recharge your account"}}`)
	for _, tt := range []struct {
		name       string
		reply      llmtest.Reply
		kimi       bool
		kind       llm.Kind
		status     int
		retryable  bool
		retryAfter time.Duration
		msg        string
	}{
		{"overloaded", llmtest.AnthropicOverloaded(), false, llm.KindStatus, 529, true, 0, "529 Overloaded (overloaded_error)"},
		{"rate limit with retry-after", llmtest.AnthropicRateLimited(7), false, llm.KindRateLimit, 429, true, 7 * time.Second, "429 This request would exceed the rate limit"},
		{"server error", llmtest.AnthropicServerError(), false, llm.KindStatus, 500, true, 0, "500 Internal server error (api_error)"},
		{"request too large", llmtest.AnthropicRequestTooLarge(), false, llm.KindRequestTooLarge, 413, false, 0, "request_too_large"},
		{"prompt too long", llmtest.AnthropicPromptTooLong(210000, 200000), false, llm.KindContextOverflow, 400, false, 0,
			"400 prompt is too long: 210000 tokens > 200000 maximum"},
		{"html gateway page", llmtest.Status(502, "<html><body>Bad Gateway</body></html>"), false, llm.KindStatus, 502, true, 0,
			"502 Bad Gateway (HTML page)"},
		{"empty body", llmtest.Status(503, " "), false, llm.KindStatus, 503, true, 0, "503 status code (no body)"},
		{"unauthorised", llmtest.Status(401, llmtest.AnthropicErrorBody("authentication_error", "invalid x-api-key")), false, llm.KindStatus, 401, false, 0,
			"401 invalid x-api-key (authentication_error)"},
		{"kimi quota exhausted", kimiQuota, true, llm.KindQuotaExhausted, 429, false, 0, "insufficient balance"},
		{"same body without kimi routing", kimiQuota, false, llm.KindRateLimit, 429, true, 0, "insufficient balance"},
		{"kimi per-minute throttle", llmtest.Status(429, `{"error":{"type":"rate_limit_reached_error","message":"token quota per minute exceeded"}}`), true,
			llm.KindRateLimit, 429, true, 0, "per minute"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.FakeAnthropic(t, tt.reply)
			p := newTestProvider(srv, Options{KimiThinking: tt.kimi})
			_, err := run(t, p, llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}})
			e, ok := llm.AsError(err)
			if !ok {
				t.Fatalf("got %v, want *llm.Error", err)
			}
			if e.Kind != tt.kind || e.StatusCode != tt.status || llm.IsRetryable(err) != tt.retryable ||
				e.RetryAfter != tt.retryAfter || !strings.Contains(e.Message, tt.msg) {
				t.Errorf("got kind %s status %d retryable %v retry-after %v %q", e.Kind, e.StatusCode, llm.IsRetryable(err), e.RetryAfter, e.Message)
			}
			if e.TraceID != "" {
				t.Errorf("trace id %q on an Anthropic error", e.TraceID)
			}
			if len(srv.Requests()) != 1 {
				t.Errorf("%d requests sent, want exactly 1", len(srv.Requests()))
			}
		})
	}
}

func TestRequestIDKept(t *testing.T) {
	srv := llmtest.FakeAnthropic(t, llmtest.Status(500, llmtest.AnthropicErrorBody("api_error", "boom"), "request-id", "req_123"))
	_, err := run(t, newTestProvider(srv, Options{}), llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}})
	if e, ok := llm.AsError(err); !ok || e.RequestID != "req_123" || e.Type != "api_error" {
		t.Fatalf("got %#v", err)
	}
}

func TestConnectionRefused(t *testing.T) {
	p := New(Options{BaseURL: "http://127.0.0.1:1", APIKey: "k", Model: "m"})
	_, err := run(t, p, llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}})
	if e, ok := llm.AsError(err); !ok || e.Kind != llm.KindConnection || !llm.IsRetryable(err) {
		t.Fatalf("got %v, want a retryable connection error", err)
	}
}
