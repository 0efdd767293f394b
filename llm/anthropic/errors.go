package anthropic

import (
	"encoding/json"
	"io"
	"net/http"

	"github.com/kimigo/kimigo/llm"
)

// maxErrorBodyRead bounds how much of an error response is read.
const maxErrorBodyRead = 1 << 20

// errorTypeOverloaded is Anthropic's error type for a 529.
const errorTypeOverloaded = "overloaded_error"

// statusOverloaded is Anthropic's "overloaded" HTTP status; the loop
// retries it.
const statusOverloaded = 529

func invalidRequestf(format string, args ...any) *llm.Error {
	return llm.Errorf(llm.KindInvalidRequest, format, args...)
}

// statusError reads an error response and classifies it (spec 01 §3.4.8):
// the Kimi quota check when the provider talks to Kimi, then the shared
// status normalisation. Anthropic reports no trace id.
func statusError(resp *http.Response, kimi bool) *llm.Error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBodyRead)) // a short read still leaves a usable message
	e := llm.StatusError(resp.StatusCode, resp.Header, body)
	e.TraceID = ""
	if kimi && llm.IsKimiQuotaExhausted(e) {
		e.Kind = llm.KindQuotaExhausted
		return e
	}
	return llm.NormalizeStatus(e)
}

// errorEventBody is the data of an "error" SSE event.
type errorEventBody struct {
	Error struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

// streamError classifies an "error" event received mid-stream. An
// overload is treated like the 529 status it stands for, so the loop
// retries it with its status rules; anything else is a generic provider
// error (retryable by default).
func streamError(data []byte) *llm.Error {
	var b errorEventBody
	if err := json.Unmarshal(data, &b); err != nil || (b.Error.Type == "" && b.Error.Message == "") {
		return llm.Errorf(llm.KindGeneric, "Anthropic error: %s", truncate(string(data), 2000))
	}
	if b.Error.Type == errorTypeOverloaded {
		e := llm.StatusError(statusOverloaded, nil, data)
		return llm.NormalizeStatus(e)
	}
	msg := b.Error.Message
	if msg == "" {
		msg = b.Error.Type
	}
	e := llm.Errorf(llm.KindGeneric, "Anthropic error: %s", msg)
	e.Type = b.Error.Type
	return e
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
