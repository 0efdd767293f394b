package turn

import (
	"errors"
	"fmt"
	"maps"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
)

// Error codes of the turn layer. They are wire strings: UIs and the ACP
// server branch on them.
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

// ErrorPayload is an error as UIs receive it: in turn.ended, in the error
// event and in the StopFailure hook.
type ErrorPayload struct {
	Code      string         `json:"code"`
	Message   string         `json:"message"`
	Name      string         `json:"name,omitempty"`
	Details   map[string]any `json:"details,omitempty"`
	Retryable bool           `json:"retryable"`
}

// CodedError is an error that carries its own wire code. Details and
// Retryable are optional methods, found by type assertion.
type CodedError interface {
	error
	Code() string
}

// ErrModelNotConfigured is the cause of a turn that has no model to call.
var ErrModelNotConfigured error = modelNotConfiguredError{}

type modelNotConfiguredError struct{}

func (modelNotConfiguredError) Error() string { return "no model is configured" }
func (modelNotConfiguredError) Code() string  { return CodeModelNotConfigured }

// modelNotConfiguredMessage replaces the message of a model.not_configured
// error in what the user sees (spec 03 §1.5).
const modelNotConfiguredMessage = `LLM not set, send "/login" to login`

// FlushError is a failure to make records durable. The turn that needed
// them fails with it; the records stay queued and the next flush retries.
type FlushError struct {
	Err error
}

func (e *FlushError) Error() string { return "Failed to write agent records: " + e.Err.Error() }

// Unwrap returns the write error, which names the file and the errno.
func (e *FlushError) Unwrap() error { return e.Err }

// Code returns CodeRecordsWriteFailed.
func (e *FlushError) Code() string { return CodeRecordsWriteFailed }

// Retryable reports true: the next flush tries the same records again.
func (e *FlushError) Retryable() bool { return true }

// ToErrorPayload classifies err for UIs (spec 03 §1.15): coded errors keep
// their code, provider errors map by kind, anything else is internal.
func ToErrorPayload(err error) ErrorPayload {
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
		return filteredPayload()
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
	if len(details) > 0 {
		p.Details = details
	}
	return p
}

// errorName is the class name UIs and the StopFailure matcher see.
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

// filteredPayload is the error of a response the provider's safety policy
// blocked (spec 03 §1.5).
func filteredPayload() ErrorPayload {
	return ErrorPayload{Code: CodeProviderFiltered, Message: "Provider safety policy blocked the response.",
		Name: "ProviderFilteredError", Details: map[string]any{"finishReason": "filtered"}}
}

// summarizeTurnError is the payload a failed turn reports: the taxonomy's
// payload with the turn id added, and the login hint for a missing model.
func summarizeTurnError(err error, turnID int) ErrorPayload {
	p := ToErrorPayload(err)
	if p.Code == CodeModelNotConfigured {
		p.Message = modelNotConfiguredMessage
	}
	return withTurnID(p, turnID)
}

func withTurnID(p ErrorPayload, turnID int) ErrorPayload {
	d := maps.Clone(p.Details)
	if d == nil {
		d = map[string]any{}
	}
	d["turnId"] = turnID
	p.Details = d
	return p
}

// busyPayload is the error of a prompt that came while a turn was running.
func busyPayload(active int) ErrorPayload {
	return ErrorPayload{Code: CodeAgentBusy, Name: "AgentBusyError", Retryable: true,
		Message: fmt.Sprintf("Cannot launch a new turn while another turn (ID %d) is active", active),
		Details: map[string]any{"turnId": active}}
}
