package event

import (
	"errors"
	"maps"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
)

// Error codes. They are wire strings: front ends and the ACP server
// branch on them (spec 03 §1.15).
const (
	CodeAgentBusy          = "turn.agent_busy"
	CodeProviderFiltered   = "provider.filtered"
	CodeProviderRateLimit  = "provider.rate_limit"
	CodeProviderAuth       = "provider.auth_error"
	CodeProviderConnection = "provider.connection_error"
	CodeProviderAPI        = "provider.api_error"
	CodeModelNotConfigured = "model.not_configured"
	CodeContextOverflow    = "context.overflow"
	CodeRecordsWriteFailed = "records.write_failed"
	CodeInternal           = "internal"
)

// ErrorPayload is an error as a front end receives it: in TurnEnded, in
// the Error event, and from ErrorOf for an error a Session call returned.
type ErrorPayload struct {
	Code      string         `json:"code"`
	Message   string         `json:"message"`
	Name      string         `json:"name,omitempty"`
	Details   map[string]any `json:"details,omitempty"`
	Retryable bool           `json:"retryable"`
}

// CodedError is an error that carries its own wire code. Details,
// Retryable and ErrorName are optional methods, found by type assertion.
type CodedError interface {
	error
	Code() string
}

// ErrorOf classifies err for a front end (spec 03 §1.15): a coded error
// keeps its code, a provider error maps by kind, anything else is
// internal.
func ErrorOf(err error) ErrorPayload {
	if err == nil {
		return ErrorPayload{Code: CodeInternal, Message: "unknown error", Name: "Error"}
	}
	var coded CodedError
	if errors.As(err, &coded) {
		p := ErrorPayload{Code: coded.Code(), Message: coded.Error(), Name: errorName(coded)}
		if d, ok := coded.(interface{ Details() map[string]any }); ok {
			p.Details = maps.Clone(d.Details())
		}
		if r, ok := coded.(interface{ Retryable() bool }); ok {
			p.Retryable = r.Retryable()
		}
		return p
	}
	if e, ok := llm.AsError(err); ok && !llm.IsAbort(err) {
		return providerPayload(e, err)
	}
	return ErrorPayload{Code: CodeInternal, Message: err.Error(), Name: "Error"}
}

func providerPayload(e *llm.Error, err error) ErrorPayload {
	p := ErrorPayload{Message: e.Message, Name: e.ErrorName(), Retryable: llm.IsRetryable(err)}
	switch {
	case e.Kind == llm.KindRateLimit:
		p.Code, p.Retryable = CodeProviderRateLimit, true
	case llm.IsAuthError(err):
		p.Code = CodeProviderAuth
	case e.Kind == llm.KindConnection || e.Kind == llm.KindTimeout || e.Kind == llm.KindIncompleteResponse:
		p.Code, p.Retryable = CodeProviderConnection, true
	case e.Kind == llm.KindContextOverflow:
		p.Code = CodeContextOverflow
	case e.Kind == llm.KindEmptyResponse && e.FinishReason == llm.FinishFiltered:
		return FilteredPayload()
	default:
		p.Code = CodeProviderAPI
	}
	details := map[string]any{}
	if e.StatusCode != 0 {
		details["statusCode"] = e.StatusCode
	}
	if e.RequestID != "" {
		details["requestId"] = e.RequestID
	}
	if e.TraceID != "" {
		details["traceId"] = e.TraceID
	}
	if e.RetryAfter > 0 { // when the provider said it takes requests again: a goal paused on a quota can wait for it
		details["retryAfterMs"] = e.RetryAfter.Milliseconds()
	}
	if len(details) > 0 {
		p.Details = details
	}
	return p
}

// errorName is the class name front ends and the StopFailure matcher see.
func errorName(err CodedError) string {
	switch err.Code() {
	case loop.CodeMaxStepsExceeded:
		return "MaxStepsExceededError"
	case CodeModelNotConfigured:
		return "LLMNotSet"
	case CodeRecordsWriteFailed:
		return "RecordsWriteError"
	}
	if n, ok := err.(interface{ ErrorName() string }); ok {
		return n.ErrorName()
	}
	return "Error"
}

// FilteredPayload is the error of a response the provider's safety policy
// blocked (spec 03 §1.5).
func FilteredPayload() ErrorPayload {
	return ErrorPayload{Code: CodeProviderFiltered, Message: "Provider safety policy blocked the response.",
		Name: "ProviderFilteredError", Details: map[string]any{"finishReason": "filtered"}}
}
