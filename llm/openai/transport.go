package openai

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/internal/wire"
)

// chatPath is appended to the base URL.
const chatPath = "/chat/completions"

// Generate builds the request, sends it once and returns as soon as the
// response headers arrive. Failures are *llm.Error values (or an abort);
// nothing is retried here.
func (p *Provider) Generate(ctx context.Context, req *llm.Request) (llm.Stream, error) {
	if ctx.Err() != nil {
		return nil, llm.Aborted(ctx)
	}
	if _, err := p.apiKeyFor(req.Auth); err != nil {
		return nil, err
	}
	body, err := p.requestBody(req)
	if err != nil {
		return nil, err
	}
	reqCtx, cancel := context.WithCancelCause(ctx)
	hr, err := p.newHTTPRequest(reqCtx, chatPath, nil, req.Auth)
	if err != nil {
		cancel(nil)
		return nil, err
	}
	body.Attach(hr)
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "text/event-stream")
	p.log.Debug("chat completions request", "provider", p.Name(), "model", p.model,
		"messages", len(req.Messages), "bytes", body.Len())
	if req.OnRequestSent != nil {
		req.OnRequestSent()
	}
	watch := wire.Start(p.limits, cancel)
	fail := func(err error) (llm.Stream, error) {
		watch.Stop()
		cancel(nil)
		return nil, err
	}
	resp, err := p.client.Do(hr)
	if err != nil {
		return fail(p.transportError(ctx, reqCtx, err))
	}
	watch.Alive()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		err := p.statusError(ctx, resp)
		if e := wire.Timeout(reqCtx); e != nil && ctx.Err() == nil {
			err = e // the error body never came
		}
		p.log.Debug("chat completions error", "provider", p.Name(), "status", resp.StatusCode, "err", err)
		return fail(err)
	}
	traceID := strings.TrimSpace(resp.Header.Get("x-trace-id"))
	rc := watch.Body(resp.Body)
	format, r, err := wire.Sniff(resp.Header.Get("Content-Type"), rc, "POST "+hr.URL.Redacted())
	if err != nil {
		_ = rc.Close() // refused before decoding; nothing else to report
		if _, ok := llm.AsError(err); !ok {
			err = p.transportError(ctx, reqCtx, err)
		}
		if e, ok := llm.AsError(err); ok && e.TraceID == "" {
			e.TraceID = traceID
		}
		return fail(err)
	}
	cfg := streamConfig{
		flavour: p.flavour,
		dialect: p.dialect,
		traceID: traceID,
		json:    format == wire.JSON,
		reqCtx:  reqCtx,
	}
	return newStream(ctx, readCloser{r, rc}, cfg, func() { cancel(nil) }), nil
}

// readCloser reads from a reader that may buffer over the body and closes
// the body.
type readCloser struct {
	io.Reader
	io.Closer
}

// transportError classifies a failed send or body read: the caller's
// cancellation is an abort, one of the provider's own clocks a Timeout, the
// rest by llm.ClassifyTransport.
func (p *Provider) transportError(ctx, reqCtx context.Context, err error) error {
	if ctx.Err() != nil {
		return llm.Aborted(ctx)
	}
	if e := wire.Timeout(reqCtx); e != nil {
		return e
	}
	return llm.ClassifyTransport(ctx, err)
}

// apiKeyFor is the key for a request: the per-request one, else the
// constructor's. A missing key is an invalid request naming the provider.
func (p *Provider) apiKeyFor(auth *llm.Auth) (string, error) {
	key := p.apiKey
	if auth != nil && auth.APIKey != "" {
		key = auth.APIKey
	}
	if key == "" {
		return "", &llm.Error{Kind: llm.KindInvalidRequest,
			Message: fmt.Sprintf("%s: apiKey is required; configure an API key for this provider", p.Name())}
	}
	return key, nil
}

// newHTTPRequest builds a POST to base URL + path with the bearer key and
// the headers: constructor headers, then per-request ones.
func (p *Provider) newHTTPRequest(ctx context.Context, path string, body io.Reader, auth *llm.Auth) (*http.Request, error) {
	key, err := p.apiKeyFor(auth)
	if err != nil {
		return nil, err
	}
	url := strings.TrimRight(p.baseURL, "/") + path
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, url, body)
	if err != nil {
		return nil, &llm.Error{Kind: llm.KindInvalidRequest, Cause: err,
			Message: fmt.Sprintf("%s: build request for %q: %v", p.Name(), url, err)}
	}
	hr.Header.Set("Authorization", "Bearer "+key)
	for k, v := range p.headers {
		hr.Header.Set(k, v)
	}
	if auth != nil {
		for k, v := range auth.Headers {
			hr.Header.Set(k, v)
		}
	}
	return hr, nil
}
