package openai

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/kimigo/kimigo/llm"
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
	body, err := p.encodeRequest(req)
	if err != nil {
		return nil, err
	}
	reqCtx, cancel := context.WithCancelCause(ctx)
	hr, err := p.newHTTPRequest(reqCtx, chatPath, bytes.NewReader(body), req.Auth)
	if err != nil {
		cancel(nil)
		return nil, err
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "text/event-stream")
	p.log.Debug("chat completions request", "provider", p.Name(), "model", p.model,
		"messages", len(req.Messages), "bytes", len(body))
	if req.OnRequestSent != nil {
		req.OnRequestSent()
	}
	resp, err := p.client.Do(hr)
	if err != nil {
		cancel(nil)
		return nil, llm.ClassifyTransport(ctx, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		err := p.statusError(ctx, resp)
		cancel(nil)
		p.log.Debug("chat completions error", "provider", p.Name(), "status", resp.StatusCode, "err", err)
		return nil, err
	}
	cfg := streamConfig{
		flavour: p.flavour,
		dialect: p.dialect,
		traceID: strings.TrimSpace(resp.Header.Get("x-trace-id")),
		json:    isJSON(resp.Header.Get("Content-Type")),
	}
	var rc io.ReadCloser = resp.Body
	if p.idle > 0 {
		rc = newIdleReader(resp.Body, p.idle, cancel)
	}
	return newStream(ctx, rc, cfg, func() { cancel(nil) }), nil
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

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}

// idleReader fails a body that delivers nothing for d: the timer cancels the
// request with llm.ErrProviderTimeout, and the read error says so.
type idleReader struct {
	rc    io.ReadCloser
	d     time.Duration
	timer *time.Timer
	fired atomic.Bool
}

func newIdleReader(rc io.ReadCloser, d time.Duration, cancel context.CancelCauseFunc) *idleReader {
	r := &idleReader{rc: rc, d: d}
	r.timer = time.AfterFunc(d, func() {
		r.fired.Store(true)
		cancel(llm.ErrProviderTimeout)
	})
	return r
}

func (r *idleReader) Read(b []byte) (int, error) {
	n, err := r.rc.Read(b)
	if err != nil && r.fired.Load() {
		return n, fmt.Errorf("stream idle for %s: %w", r.d, llm.ErrProviderTimeout)
	}
	if n > 0 {
		r.timer.Reset(r.d)
	}
	return n, err
}

func (r *idleReader) Close() error {
	r.timer.Stop()
	return r.rc.Close()
}
