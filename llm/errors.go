package llm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrAborted marks a generation stopped by cancellation. Abort errors wrap
// it together with the context's cause, so errors.Is(err, ErrAborted) and
// errors.Is(err, context.Canceled) both hold.
var ErrAborted = errors.New("request aborted")

// Aborted returns the abort error for a done ctx: it wraps ErrAborted and
// context.Cause(ctx).
func Aborted(ctx context.Context) error {
	cause := context.Cause(ctx)
	if cause == nil {
		cause = context.Canceled
	}
	return fmt.Errorf("%w: %w", ErrAborted, cause)
}

// IsAbort reports whether err is a cancellation rather than a failure. A
// classified provider error is never an abort, even when its cause is a
// context error (a provider's own header or idle timeout wraps one).
func IsAbort(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, ErrAborted) {
		return true
	}
	if _, ok := AsError(err); ok {
		return false
	}
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// Kind classifies a provider failure (spec 01 §3.7.1).
type Kind string

// Error kinds. Every kind is a "provider error"; abort is not a Kind.
const (
	// KindGeneric is an unclassified provider failure, including SSE error
	// payloads and gateway text.
	KindGeneric Kind = "generic"
	// KindConnection is a network failure or a dropped stream.
	KindConnection Kind = "connection"
	// KindTimeout is a timeout the provider set itself.
	KindTimeout Kind = "timeout"
	// KindStatus is an HTTP error status with no finer class.
	KindStatus Kind = "status"
	// KindContextOverflow is a request over the model's token window.
	KindContextOverflow Kind = "context_overflow"
	// KindRequestTooLarge is a 413 body-size rejection.
	KindRequestTooLarge Kind = "request_too_large"
	// KindRateLimit is a transient 429.
	KindRateLimit Kind = "rate_limit"
	// KindQuotaExhausted is a 429 for an exhausted account balance.
	KindQuotaExhausted Kind = "quota_exhausted"
	// KindEmptyResponse is a response with no content and no tool calls,
	// or thinking only.
	KindEmptyResponse Kind = "empty_response"
	// KindInvalidRequest is a request that could not be built (missing
	// key, malformed history); it was never sent and is not retryable.
	KindInvalidRequest Kind = "invalid_request"
	// KindIncompleteResponse is a stream that ended before the service's
	// end marker ([DONE] or a finish_reason on Chat Completions,
	// message_stop or a stop_reason on Anthropic): whatever arrived is not
	// an answer, and no tool call in it may run. Retryable.
	KindIncompleteResponse Kind = "incomplete_response"
	// KindMalformedResponse is a 200 answer whose stream does not parse,
	// or an empty 200 body. Retryable, but the loop stops when the same
	// fault comes back on the next attempt: a service that is malformed
	// the same way twice will be a third time.
	KindMalformedResponse Kind = "malformed_response"
	// KindInvalidResponse is a 200 answer that cannot be a model response
	// whatever is retried: a content type that is not an event stream, or
	// an SSE line over the decoder's limit. The message names the content
	// type or the limit. Not retryable.
	KindInvalidResponse Kind = "invalid_response"
)

// Error is every classified provider failure.
type Error struct {
	Kind Kind
	// Message is the full text, e.g. "429 Too many requests (rate_limit/x)".
	Message string
	// StatusCode is the HTTP status, or 0.
	StatusCode int
	// RequestID is the x-request-id or request-id header.
	RequestID string
	// RetryAfter is the server's requested delay, or 0.
	RetryAfter time.Duration
	// TraceID is the x-trace-id header.
	TraceID string
	// Type and Code are the error body's type and code fields.
	Type, Code string
	// FinishReason and RawFinishReason are set on empty-response errors.
	FinishReason    FinishReason
	RawFinishReason string
	// Cause is the underlying error, if any.
	Cause error
}

func (e *Error) Error() string { return e.Message }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Cause }

// ErrorName returns the upstream class name, used in telemetry and in the
// loop's step.retrying event.
func (e *Error) ErrorName() string {
	switch e.Kind {
	case KindConnection:
		return "APIConnectionError"
	case KindTimeout:
		return "APITimeoutError"
	case KindStatus:
		return "APIStatusError"
	case KindContextOverflow:
		return "APIContextOverflowError"
	case KindRequestTooLarge:
		return "APIRequestTooLargeError"
	case KindRateLimit:
		return "APIProviderRateLimitError"
	case KindQuotaExhausted:
		return "APIProviderQuotaExhaustedError"
	case KindEmptyResponse:
		return "APIEmptyResponseError"
	case KindInvalidRequest:
		return "InvalidRequestError"
	case KindIncompleteResponse:
		return "APIIncompleteResponseError"
	case KindMalformedResponse:
		return "APIMalformedResponseError"
	case KindInvalidResponse:
		return "APIInvalidResponseError"
	}
	return "ChatProviderError"
}

// HasStatus reports whether the kind is an HTTP status class.
func (k Kind) HasStatus() bool {
	switch k {
	case KindStatus, KindContextOverflow, KindRequestTooLarge, KindRateLimit, KindQuotaExhausted:
		return true
	}
	return false
}

// AsError returns the *Error in err's chain, if any.
func AsError(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}

// Errorf returns a generic provider error with a formatted message.
func Errorf(kind Kind, format string, args ...any) *Error {
	return &Error{Kind: kind, Message: fmt.Sprintf(format, args...)}
}

// IsProviderError reports whether err is a classified provider error and
// not an abort.
func IsProviderError(err error) bool {
	if err == nil || IsAbort(err) {
		return false
	}
	_, ok := AsError(err)
	return ok
}

func kindOf(err error) (Kind, *Error, bool) {
	if err == nil || IsAbort(err) {
		return "", nil, false
	}
	e, ok := AsError(err)
	if !ok {
		return "", nil, false
	}
	return e.Kind, e, true
}

// retryableStatus is the set of HTTP statuses the loop retries.
var retryableStatus = map[int]bool{408: true, 409: true, 429: true, 500: true, 502: true, 503: true, 504: true, 529: true}

// IsRetryable reports whether the loop should try the same request again
// (spec 01 §3.7.5).
func IsRetryable(err error) bool {
	k, e, ok := kindOf(err)
	if !ok {
		return false
	}
	switch k {
	case KindTimeout:
		return !errors.Is(err, ErrResponseTimeout)
	case KindConnection, KindEmptyResponse, KindIncompleteResponse, KindMalformedResponse:
		return true
	case KindQuotaExhausted, KindInvalidRequest, KindInvalidResponse:
		return false
	case KindGeneric:
		return !IsImageFormatError(err)
	}
	return k.HasStatus() && retryableStatus[e.StatusCode]
}

// IsContextOverflow reports whether the request exceeded the model's window.
func IsContextOverflow(err error) bool {
	k, _, ok := kindOf(err)
	return ok && k == KindContextOverflow
}

// IsRequestTooLarge reports a 413 body-size rejection.
func IsRequestTooLarge(err error) bool {
	k, _, ok := kindOf(err)
	return ok && k == KindRequestTooLarge
}

// IsQuotaExhausted reports an exhausted account quota or balance.
func IsQuotaExhausted(err error) bool {
	k, _, ok := kindOf(err)
	return ok && k == KindQuotaExhausted
}

// IsAuthError reports a 401 or 403 status.
func IsAuthError(err error) bool {
	k, e, ok := kindOf(err)
	return ok && k.HasStatus() && (e.StatusCode == 401 || e.StatusCode == 403)
}

// IsEmptyResponse reports an empty or thinking-only response.
func IsEmptyResponse(err error) bool {
	k, _, ok := kindOf(err)
	return ok && k == KindEmptyResponse
}

// IsIncompleteResponse reports a stream that ended before its end marker.
func IsIncompleteResponse(err error) bool {
	k, _, ok := kindOf(err)
	return ok && k == KindIncompleteResponse
}

// IsMalformedResponse reports a 200 answer that did not parse, or an empty
// one.
func IsMalformedResponse(err error) bool {
	k, _, ok := kindOf(err)
	return ok && k == KindMalformedResponse
}

// IsInvalidResponse reports a 200 answer that cannot be a model response
// (wrong content type, a line over the limit).
func IsInvalidResponse(err error) bool {
	k, _, ok := kindOf(err)
	return ok && k == KindInvalidResponse
}

// IsInvalidRequest reports a request that could not be built.
func IsInvalidRequest(err error) bool {
	k, _, ok := kindOf(err)
	return ok && k == KindInvalidRequest
}

// structuralStatus reports whether e is a 400/422 status error that is not a
// context overflow: the only errors the structural predicates consider.
func structuralStatus(err error) (string, bool) {
	k, e, ok := kindOf(err)
	if !ok || !k.HasStatus() || k == KindContextOverflow {
		return "", false
	}
	if e.StatusCode != 400 && e.StatusCode != 422 {
		return "", false
	}
	return strings.ToLower(e.Message), true
}

// IsToolExchangeAdjacencyError reports a 400/422 complaint that tool calls
// and tool results are not paired (spec 01 §3.7.4).
func IsToolExchangeAdjacencyError(err error) bool {
	msg, ok := structuralStatus(err)
	return ok && matchAny(adjacencyPatterns(), msg)
}

// IsRecoverableRequestStructureError reports a 400/422 that a strict
// projection of the history can repair.
func IsRecoverableRequestStructureError(err error) bool {
	msg, ok := structuralStatus(err)
	return ok && (matchAny(adjacencyPatterns(), msg) || matchAny(structurePatterns(), msg))
}

// IsImageFormatError reports an image the provider (or the client-side
// request builder) could not use, which the media-stripped resend repairs.
func IsImageFormatError(err error) bool {
	k, e, ok := kindOf(err)
	if !ok {
		return false
	}
	msg := strings.ToLower(e.Message)
	if k.HasStatus() {
		if k == KindContextOverflow || k == KindRequestTooLarge || e.StatusCode != 400 {
			return false
		}
		if matchAny(imageFormatPatterns(), msg) {
			return true
		}
		return mediaTypeWord().MatchString(msg) && strings.Contains(msg, "image")
	}
	return strings.Contains(msg, "unsupported media type for base64 image") ||
		strings.Contains(msg, "invalid data url for image")
}

// IsProviderRateLimitError reports a rate limit (never a quota exhaustion),
// by kind, by status 429, or by message text.
func IsProviderRateLimitError(err error) bool {
	if err == nil || IsAbort(err) {
		return false
	}
	if e, ok := AsError(err); ok {
		switch {
		case e.Kind == KindQuotaExhausted:
			return false
		case e.Kind == KindRateLimit, e.StatusCode == 429:
			return true
		}
	}
	return matchAny(rateLimitPatterns(), strings.ToLower(err.Error()))
}
