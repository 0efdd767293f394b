package turn

import (
	"fmt"
	"maps"

	"github.com/kimigo/kimigo/event"
)

// ErrModelNotConfigured is the cause of a turn that has no model to call.
var ErrModelNotConfigured error = modelNotConfiguredError{}

type modelNotConfiguredError struct{}

func (modelNotConfiguredError) Error() string { return "no model is configured" }
func (modelNotConfiguredError) Code() string  { return event.CodeModelNotConfigured }

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

// Code returns event.CodeRecordsWriteFailed.
func (e *FlushError) Code() string { return event.CodeRecordsWriteFailed }

// Retryable reports true: the next flush tries the same records again.
func (e *FlushError) Retryable() bool { return true }

// summarizeTurnError is the payload a failed turn reports: the taxonomy's
// payload with the turn id added, and the login hint for a missing model.
func summarizeTurnError(err error, turnID int) event.ErrorPayload {
	p := event.ErrorOf(err)
	if p.Code == event.CodeModelNotConfigured {
		p.Message = modelNotConfiguredMessage
	}
	return withTurnID(p, turnID)
}

func withTurnID(p event.ErrorPayload, turnID int) event.ErrorPayload {
	d := maps.Clone(p.Details)
	if d == nil {
		d = map[string]any{}
	}
	d["turnId"] = turnID
	p.Details = d
	return p
}

// busyPayload is the error of a prompt that came while a turn was running.
func busyPayload(active int) event.ErrorPayload {
	return event.ErrorPayload{Code: event.CodeAgentBusy, Name: "AgentBusyError", Retryable: true,
		Message: fmt.Sprintf("Cannot launch a new turn while another turn (ID %d) is active", active),
		Details: map[string]any{"turnId": active}}
}
