package openai

import (
	"context"
	"io"
	"net/http"
	"strings"

	"github.com/kimigo/kimigo/llm"
)

// maxErrorBody bounds how much of an error response is read.
const maxErrorBody = 1 << 20

// insufficientQuota is OpenAI's code for an exhausted account.
const insufficientQuota = "insufficient_quota"

// statusError converts an HTTP error response (spec 01 §3.7.3): an abort
// first; then, for Kimi, the quota hook; then OpenAI's insufficient_quota;
// then the shared status normalisation. The body is read and closed.
func (p *Provider) statusError(ctx context.Context, resp *http.Response) error {
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	_ = resp.Body.Close() // the error body is all we need
	if ctx.Err() != nil {
		return llm.Aborted(ctx)
	}
	if err != nil && len(body) == 0 {
		p.log.Debug("read error body", "status", resp.StatusCode, "err", err)
	}
	return classifyStatus(p.flavour, resp.StatusCode, resp.Header, body)
}

// classifyStatus is the status branch of the Chat Completions converter.
func classifyStatus(f Flavour, status int, h http.Header, body []byte) *llm.Error {
	e := llm.StatusError(status, h, body)
	switch {
	case f == Kimi && llm.IsKimiQuotaExhausted(e):
		e.Kind = llm.KindQuotaExhausted
	case status == http.StatusTooManyRequests && (e.Code == insufficientQuota ||
		e.Type == insufficientQuota || strings.Contains(e.Message, insufficientQuota)):
		e.Kind = llm.KindQuotaExhausted
	}
	return llm.NormalizeStatus(e)
}
