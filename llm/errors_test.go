package llm_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kimigo/kimigo/llm"
)

// status builds a classified status error the way providers do.
func status(code int, msg string) *llm.Error {
	return llm.NormalizeStatus(&llm.Error{Kind: llm.KindStatus, StatusCode: code, Message: fmt.Sprintf("%d %s", code, msg)})
}

func TestSE1StatusNormalisation(t *testing.T) {
	for _, tt := range []struct {
		code int
		msg  string
		want llm.Kind
	}{
		{429, "Too many requests", llm.KindRateLimit},
		{413, "Request exceeds the maximum size", llm.KindRequestTooLarge},
		{413, "prompt is too long: 210000 tokens > 200000 maximum", llm.KindContextOverflow},
		{413, "Request failed", llm.KindStatus},
		{400, "Payload too large", llm.KindStatus},
		// Context overflow: every example must match.
		{400, "Context length exceeded", llm.KindContextOverflow},
		{400, "Exceeded max tokens", llm.KindContextOverflow},
		{413, "Context length exceeded", llm.KindContextOverflow},
		{422, "Maximum context window exceeded", llm.KindContextOverflow},
		{400, "context_length_exceeded", llm.KindContextOverflow},
		{422, "Too many tokens in prompt", llm.KindContextOverflow},
		{400, "prompt is too long: 210000 tokens exceeds the maximum", llm.KindContextOverflow},
		{400, "input token count 131072 exceeds the maximum number of tokens allowed", llm.KindContextOverflow},
		{400, "Invalid request: Your request exceeded model token limit: 262144 (requested: 274613)", llm.KindContextOverflow},
		// Counter-examples.
		{401, "Context length exceeded", llm.KindStatus},
		{500, "maximum context exceeded", llm.KindStatus},
		{400, "max_tokens must be less than or equal to 4096", llm.KindStatus},
		{400, "max_output_tokens must not exceed 8192", llm.KindStatus},
		{400, "max tokens must not exceed the configured output limit", llm.KindStatus},
		// Request-too-large wording only counts on 413.
		{413, "Request Entity Too Large", llm.KindRequestTooLarge},
		{413, "request_too_large", llm.KindRequestTooLarge},
		{413, "body exceeds the maximum allowed number of bytes", llm.KindRequestTooLarge},
		{422, "request body too large", llm.KindStatus},
	} {
		got := status(tt.code, tt.msg)
		if got.Kind != tt.want {
			t.Errorf("NormalizeStatus(%d %q) = %s, want %s", tt.code, tt.msg, got.Kind, tt.want)
		}
	}
}

func TestSE2RetryableSet(t *testing.T) {
	for _, code := range []int{408, 409, 429, 500, 502, 503, 504, 529} {
		if !llm.IsRetryable(status(code, "x")) {
			t.Errorf("%d not retryable", code)
		}
	}
	for _, code := range []int{400, 401, 403, 404, 422, 501} {
		if llm.IsRetryable(status(code, "x")) {
			t.Errorf("%d retryable", code)
		}
	}
	for _, tt := range []struct {
		name string
		err  error
		want bool
	}{
		{"connection", &llm.Error{Kind: llm.KindConnection, Message: "reset"}, true},
		{"timeout", &llm.Error{Kind: llm.KindTimeout, Message: "t"}, true},
		{"empty response", &llm.Error{Kind: llm.KindEmptyResponse, Message: "e"}, true},
		{"generic", &llm.Error{Kind: llm.KindGeneric, Message: "Error: upstream overloaded"}, true},
		{"client-side image", &llm.Error{Kind: llm.KindGeneric,
			Message: "Unsupported media type for base64 image: image/bmp, url: data:image/bmp;base64,AA"}, false},
		{"quota", &llm.Error{Kind: llm.KindQuotaExhausted, StatusCode: 429, Message: "429 insufficient balance"}, false},
		{"context overflow", status(400, "context length exceeded"), false},
		{"too large", status(413, "payload too large"), false},
		{"invalid request", &llm.Error{Kind: llm.KindInvalidRequest, Message: "x"}, false},
		{"abort", llm.Aborted(canceledCtx()), false},
		{"wrapped abort of a provider error", fmt.Errorf("%w: %w", llm.ErrAborted, status(500, "x")), false},
		{"plain host error", errors.New("disk full"), false},
		{"wrapped retryable", fmt.Errorf("step 3: %w", status(503, "busy")), true},
	} {
		if got := llm.IsRetryable(tt.err); got != tt.want {
			t.Errorf("IsRetryable(%s) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func canceledCtx() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

func TestSE3TransportHeuristics(t *testing.T) {
	for _, tt := range []struct {
		msg  string
		want llm.Kind
	}{
		{"connection timed out", llm.KindTimeout},
		{"Network connection lost.", llm.KindConnection},
		{"terminated", llm.KindConnection},
		{"Your session has been reset", llm.KindGeneric},
		{"Stream closed by server due to policy violation", llm.KindGeneric},
		{"Internal server error", llm.KindGeneric},
	} {
		if got := llm.ClassifyMessage(tt.msg, nil); got.Kind != tt.want {
			t.Errorf("ClassifyMessage(%q) = %s, want %s", tt.msg, got.Kind, tt.want)
		}
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

var _ net.Error = timeoutErr{}

func TestClassifyTransportTyped(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name string
		err  error
		want llm.Kind
	}{
		{"unexpected eof", fmt.Errorf("read body: %w", io.ErrUnexpectedEOF), llm.KindConnection},
		{"reset", &net.OpError{Op: "read", Err: syscall.ECONNRESET}, llm.KindConnection},
		{"refused", fmt.Errorf("dial: %w", syscall.ECONNREFUSED), llm.KindConnection},
		{"net timeout", timeoutErr{}, llm.KindTimeout},
		{"provider timeout", fmt.Errorf("idle: %w", llm.ErrProviderTimeout), llm.KindTimeout},
		{"text fallback", errors.New("weird failure"), llm.KindGeneric},
	} {
		got, ok := llm.AsError(llm.ClassifyTransport(ctx, tt.err))
		if !ok || got.Kind != tt.want {
			t.Errorf("ClassifyTransport(%s) = %v, want %s", tt.name, got, tt.want)
		}
	}
	// A done caller context always wins: the failure is an abort.
	if err := llm.ClassifyTransport(canceledCtx(), io.ErrUnexpectedEOF); !llm.IsAbort(err) || llm.IsProviderError(err) {
		t.Errorf("cancelled ctx: got %v, want abort", err)
	}
	dctx, cancel := context.WithDeadline(ctx, time.Now().Add(-time.Second))
	defer cancel()
	if err := llm.ClassifyTransport(dctx, timeoutErr{}); !llm.IsAbort(err) {
		t.Errorf("caller deadline: got %v, want abort", err)
	}
}

func TestSE4RetryAfterAndEffortHint(t *testing.T) {
	if got := llm.ParseRetryAfter("2"); got != 2*time.Second {
		t.Errorf("ParseRetryAfter(2) = %v", got)
	}
	for _, v := range []string{"Wed, 21 Oct 2015 07:28:00 GMT", "-1", "1.5", ""} {
		if got := llm.ParseRetryAfter(v); got != 0 {
			t.Errorf("ParseRetryAfter(%q) = %v, want 0", v, got)
		}
	}
	e := status(400, "invalid reasoning_effort: xhigh")
	if strings.Count(e.Message, "thinking effort") != 1 {
		t.Errorf("hint not appended once: %q", e.Message)
	}
	llm.NormalizeStatus(e)
	if strings.Count(e.Message, "The provider rejected the configured thinking effort") != 1 {
		t.Errorf("hint appended twice: %q", e.Message)
	}
	if e := status(500, "invalid reasoning_effort: xhigh"); strings.Contains(e.Message, "thinking effort") {
		t.Errorf("hint appended to a 500: %q", e.Message)
	}
}

func TestStatusErrorBodies(t *testing.T) {
	h := http.Header{}
	h.Set("retry-after", "3")
	h.Set("x-request-id", "req-9")
	h.Set("x-trace-id", "tr-9")
	for _, tt := range []struct {
		name       string
		code       int
		body       string
		wantMsg    string
		wantType   string
		wantCode   string
		wantKindFn func(error) bool
	}{
		{"openai body", 400, `{"error":{"message":"tool_call_id  is not found","type":"invalid_request_error","code":null}}`,
			"400 tool_call_id  is not found (invalid_request_error)", "invalid_request_error", "", llm.IsToolExchangeAdjacencyError},
		{"anthropic body", 413, `{"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum size"}}`,
			"413 Request exceeds the maximum size (request_too_large)", "request_too_large", "", llm.IsRequestTooLarge},
		{"code already in message", 429, `{"error":{"message":"insufficient_quota: pay up","type":"insufficient_quota","code":"insufficient_quota"}}`,
			"429 insufficient_quota: pay up", "insufficient_quota", "insufficient_quota", llm.IsProviderRateLimitError},
		{"html page", 502, "<html><body><h1>502 Bad Gateway</h1></body></html>",
			"502 Bad Gateway (HTML page)", "", "", llm.IsRetryable}, // status and one line, not the page
		{"empty body", 503, "", "503 status code (no body)", "", "", llm.IsRetryable},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := llm.NormalizeStatus(llm.StatusError(tt.code, h, []byte(tt.body)))
			if e.Message != tt.wantMsg || e.Type != tt.wantType || e.Code != tt.wantCode {
				t.Errorf("StatusError = %q type %q code %q; want %q %q %q", e.Message, e.Type, e.Code, tt.wantMsg, tt.wantType, tt.wantCode)
			}
			if e.RetryAfter != 3*time.Second || e.RequestID != "req-9" || e.TraceID != "tr-9" {
				t.Errorf("headers not kept: %+v", e)
			}
			if !tt.wantKindFn(e) {
				t.Errorf("classification predicate false for %q (kind %s)", e.Message, e.Kind)
			}
		})
	}
	long := strings.Repeat("é", 3000)
	if e := llm.StatusError(500, nil, []byte(long)); len(e.Message) > 2010 || !strings.HasPrefix(e.Message, "500 é") {
		t.Errorf("long body not cut to 2000 bytes on a rune boundary: %d bytes", len(e.Message))
	}
}

func TestStructuralPredicates(t *testing.T) {
	adjacency := []string{
		"messages.142: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1",
		"tool_call_id  is not found",
		"Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
		"Messages with role 'tool' must be a response to a preceding message with 'tool_calls'",
		"An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'.",
		"The following tool_call_ids did not have response messages: call_1",
		"unexpected `tool_result` block",
	}
	for _, m := range adjacency {
		if !llm.IsToolExchangeAdjacencyError(status(400, m)) {
			t.Errorf("adjacency not recognised: %q", m)
		}
		if !llm.IsRecoverableRequestStructureError(status(422, m)) {
			t.Errorf("structure not recognised on 422: %q", m)
		}
		if llm.IsToolExchangeAdjacencyError(status(500, m)) {
			t.Errorf("adjacency recognised on a 500: %q", m)
		}
	}
	structure := []string{
		"messages: text content blocks must be non-empty",
		"messages: text content blocks must contain non-whitespace text",
		"first message must use the \"user\" role",
		"roles must alternate between \"user\" and \"assistant\"",
		"messages: `tool_use` ids must be unique",
		"the message at position 3 with role 'assistant' must not be empty",
	}
	for _, m := range structure {
		if !llm.IsRecoverableRequestStructureError(status(400, m)) {
			t.Errorf("structure not recognised: %q", m)
		}
		if llm.IsToolExchangeAdjacencyError(status(400, m)) {
			t.Errorf("structure taken for adjacency: %q", m)
		}
	}
	if llm.IsRecoverableRequestStructureError(status(400, "Bad request")) {
		t.Error("unrelated 400 taken as structural")
	}
}

func TestImageFormatPredicate(t *testing.T) {
	yes := []string{"unsupported image format", "Image does not represent a valid image",
		"could not process image", "Unable to process input image", "failed to decode image",
		"invalid image data", "Invalid image", "unsupported media_type for image/bmp"}
	for _, m := range yes {
		if !llm.IsImageFormatError(status(400, m)) {
			t.Errorf("image format not recognised: %q", m)
		}
	}
	no := []string{"too many images in request", "image exceeds 5 MB maximum", "image input is disabled for this model"}
	for _, m := range no {
		if llm.IsImageFormatError(status(400, m)) {
			t.Errorf("taken for image format: %q", m)
		}
	}
	if llm.IsImageFormatError(status(413, "unsupported image format")) {
		t.Error("413 taken for image format")
	}
	client := &llm.Error{Kind: llm.KindGeneric, Message: "Invalid data URL for image: data:xx"}
	if !llm.IsImageFormatError(client) || llm.IsRetryable(client) {
		t.Error("client-side image error must be image-format and not retryable")
	}
}

func TestKimiQuotaAndRateLimit(t *testing.T) {
	quota := []*llm.Error{
		{StatusCode: 429, Type: "exceeded_current_quota_error", Message: "429 suspended"},
		{StatusCode: 429, Message: "429 Your account is suspended due to insufficient balance, please recharge your account"},
		{StatusCode: 429, Message: "429 You exceeded your current token quota"},
		{StatusCode: 429, Message: "429 account is in arrears"},
	}
	for _, e := range quota {
		if !llm.IsKimiQuotaExhausted(e) {
			t.Errorf("quota not recognised: %q", e.Message)
		}
	}
	for _, m := range []string{"429 token quota per minute exceeded", "429 balance check pending"} {
		if llm.IsKimiQuotaExhausted(&llm.Error{StatusCode: 429, Message: m}) {
			t.Errorf("throttle taken for quota: %q", m)
		}
	}
	q := llm.NormalizeStatus(&llm.Error{Kind: llm.KindQuotaExhausted, StatusCode: 429, Message: "429 x"})
	if q.Kind != llm.KindQuotaExhausted || llm.IsProviderRateLimitError(q) || llm.IsRetryable(q) {
		t.Errorf("quota kind lost or retryable: %+v", q)
	}
	for _, m := range []string{"Error: rate limit reached", "Too Many Requests", "provider.rate_limit"} {
		if !llm.IsProviderRateLimitError(&llm.Error{Kind: llm.KindGeneric, Message: m}) {
			t.Errorf("rate-limit text not recognised: %q", m)
		}
	}
}

func TestErrorNames(t *testing.T) {
	if got := status(429, "x").ErrorName(); got != "APIProviderRateLimitError" {
		t.Errorf("ErrorName = %q", got)
	}
	if got := (&llm.Error{Kind: llm.KindGeneric}).ErrorName(); got != "ChatProviderError" {
		t.Errorf("ErrorName = %q", got)
	}
}

func TestProviderTimeoutIsNotAnAbort(t *testing.T) {
	e := &llm.Error{Kind: llm.KindTimeout, Message: "request timed out",
		Cause: fmt.Errorf("awaiting headers: %w", context.DeadlineExceeded)}
	if llm.IsAbort(e) || !llm.IsRetryable(e) {
		t.Errorf("a provider timeout wrapping a context error must be a retryable failure, not an abort")
	}
	if !llm.IsAbort(fmt.Errorf("read: %w", context.Canceled)) {
		t.Error("a bare context error is an abort")
	}
}
