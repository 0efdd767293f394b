package openai

import (
	"strings"
	"testing"
	"time"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/llmtest"
)

// failOnce sends one request that the server answers with reply and returns
// the error.
func failOnce(t *testing.T, f Flavour, reply llmtest.Reply) (*llm.Error, *llmtest.Server) {
	t.Helper()
	srv := kimiServer(t, reply)
	_, err := llm.Generate(t.Context(), against(srv, Options{Flavour: f}),
		llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}}, llm.Callbacks{})
	e, ok := llm.AsError(err)
	if !ok {
		t.Fatalf("err = %v (%T); want *llm.Error", err, err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("server got %d requests; want exactly 1", n)
	}
	return e, srv
}

func TestStatusErrors(t *testing.T) {
	for _, tt := range []struct {
		name      string
		flavour   Flavour
		reply     llmtest.Reply
		kind      llm.Kind
		status    int
		retryable bool
		contains  string
	}{
		{"kimi quota exhausted", Kimi, llmtest.ChatQuotaExhausted(), llm.KindQuotaExhausted, 429, false, "insufficient balance"},
		{"kimi token quota per minute stays a rate limit", Kimi, llmtest.Status(429,
			`{"error":{"message":"Your account org-1 request reached token quota per minute exceeded, please try again later","type":"rate_limit_reached_error"}}`),
			llm.KindRateLimit, 429, true, "token quota per minute"},
		{"openai insufficient_quota", OpenAI, llmtest.ChatInsufficientQuota(), llm.KindQuotaExhausted, 429, false, "exceeded your current quota"},
		{"insufficient_quota applies to kimi too", Kimi, llmtest.Status(429,
			`{"error":{"message":"quota gone","type":"insufficient_quota"}}`), llm.KindQuotaExhausted, 429, false, "quota gone"},
		{"openai has no kimi quota hook", OpenAI, llmtest.Status(429,
			`{"error":{"message":"slow down","type":"exceeded_current_quota_error"}}`), llm.KindRateLimit, 429, true, "slow down"},
		{"rate limited", OpenAI, llmtest.ChatRateLimited(2), llm.KindRateLimit, 429, true, "Rate limit reached"},
		{"server error", Kimi, llmtest.ChatServerError(), llm.KindStatus, 500, true, "500 The server had an error"},
		{"unavailable", Kimi, llmtest.ChatUnavailable(), llm.KindStatus, 503, true, "overloaded"},
		{"request too large", Kimi, llmtest.ChatTooLarge(), llm.KindRequestTooLarge, 413, false, "413 Request exceeds the maximum size"},
		{"context overflow", Kimi, llmtest.ChatContextOverflow(262144, 274613), llm.KindContextOverflow, 400, false,
			"exceeded model token limit: 262144 (requested: 274613)"},
		{"HTML page from a proxy", Kimi, llmtest.ChatProxyError(), llm.KindStatus, 502, true, "502 Bad Gateway (HTML page)"},
		{"empty body", OpenAI, llmtest.Status(500, " "), llm.KindStatus, 500, true, "500 status code (no body)"},
		{"unauthorized", Kimi, llmtest.Status(401, ""), llm.KindStatus, 401, false, "401 Unauthorized"},
		{"not implemented", Kimi, llmtest.Status(501, ""), llm.KindStatus, 501, false, "501"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e, _ := failOnce(t, tt.flavour, tt.reply)
			if e.Kind != tt.kind || e.StatusCode != tt.status || llm.IsRetryable(e) != tt.retryable ||
				!strings.Contains(e.Message, tt.contains) {
				t.Errorf("error = {%s %d retryable=%v %q}; want {%s %d retryable=%v containing %q}",
					e.Kind, e.StatusCode, llm.IsRetryable(e), e.Message, tt.kind, tt.status, tt.retryable, tt.contains)
			}
		})
	}
}

func TestStatusErrorDetails(t *testing.T) {
	t.Run("retry-after seconds", func(t *testing.T) {
		e, _ := failOnce(t, OpenAI, llmtest.ChatRateLimited(2))
		if e.RetryAfter != 2*time.Second || !llm.IsProviderRateLimitError(e) {
			t.Errorf("RetryAfter = %v, rate limit = %v; want 2s, true", e.RetryAfter, llm.IsProviderRateLimitError(e))
		}
	})
	t.Run("retry-after date is ignored", func(t *testing.T) {
		e, _ := failOnce(t, OpenAI, llmtest.Status(429, "", "Retry-After", "Wed, 21 Oct 2015 07:28:00 GMT"))
		if e.RetryAfter != 0 {
			t.Errorf("RetryAfter = %v; want 0", e.RetryAfter)
		}
	})
	t.Run("trace id, request id, type and code", func(t *testing.T) {
		e, _ := failOnce(t, Kimi, llmtest.Status(500,
			`{"error":{"message":"boom","type":"server_error","code":"engine_down"}}`,
			"x-trace-id", "tr-err", "x-request-id", "req-7"))
		if e.TraceID != "tr-err" || e.RequestID != "req-7" || e.Type != "server_error" || e.Code != "engine_down" ||
			e.Message != "500 boom (server_error/engine_down)" {
			t.Errorf("error = %+v", e)
		}
	})
	t.Run("thinking effort hint", func(t *testing.T) {
		e, _ := failOnce(t, OpenAI, llmtest.Status(400, `{"error":{"message":"invalid reasoning_effort: xhigh","type":"invalid_request_error"}}`))
		if !strings.Contains(e.Message, "thinking effort") {
			t.Errorf("message lacks the effort hint: %q", e.Message)
		}
	})
}

func TestStrictRejectionsClassify(t *testing.T) {
	orphan := []llm.Message{llm.UserMessage("hi"), llm.ToolMessage("c9", llm.TextPart("stray"))}
	unanswered := []llm.Message{llm.UserMessage("hi"), llm.AssistantMessage("", call("c1", "Read", "{}")), llm.UserMessage("next")}
	emptyAssistant := []llm.Message{llm.UserMessage("hi"), {Role: llm.RoleAssistant}, llm.UserMessage("again")}
	for _, tt := range []struct {
		name      string
		server    llmtest.ChatFlavour
		history   []llm.Message
		adjacency bool
	}{
		{"kimi orphan tool result", llmtest.ChatKimi, orphan, true},
		{"openai orphan tool result", llmtest.ChatOpenAI, orphan, true},
		{"unanswered call", llmtest.ChatOpenAI, unanswered, true},
		{"empty assistant", llmtest.ChatKimi, emptyAssistant, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.FakeChatCompletionsWith(t, llmtest.ChatOptions{Flavour: tt.server})
			_, err := llm.Generate(t.Context(), against(srv, Options{}), llm.Request{Messages: tt.history}, llm.Callbacks{})
			if llm.IsToolExchangeAdjacencyError(err) != tt.adjacency || !llm.IsRecoverableRequestStructureError(err) ||
				llm.IsRetryable(err) {
				t.Errorf("err = %v: adjacency=%v structural=%v retryable=%v; want adjacency=%v, structural, not retryable",
					err, llm.IsToolExchangeAdjacencyError(err), llm.IsRecoverableRequestStructureError(err),
					llm.IsRetryable(err), tt.adjacency)
			}
			if srv.Request(0).Rejected != 400 {
				t.Errorf("request was not rejected by the fake")
			}
		})
	}
}

func TestContextWindowRejection(t *testing.T) {
	srv := llmtest.FakeChatCompletionsWith(t, llmtest.ChatOptions{Flavour: llmtest.ChatKimi, ContextWindow: 100})
	_, err := llm.Generate(t.Context(), against(srv, Options{}),
		llm.Request{Messages: []llm.Message{llm.UserMessage(strings.Repeat("long ", 200))}}, llm.Callbacks{})
	if !llm.IsContextOverflow(err) {
		t.Errorf("err = %v; want a context overflow", err)
	}
}
