package anthropic

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/internal/wire"
)

// Wire constants of the Messages endpoint.
const (
	defaultBaseURL = "https://api.anthropic.com"
	messagesPath   = "/v1/messages"
	betaQuery      = "?beta=true"
	apiVersion     = "2023-06-01"
)

// Header names the provider sets or removes.
const (
	headerAPIKey        = "x-api-key"
	headerVersion       = "anthropic-version"
	headerBeta          = "anthropic-beta"
	headerContentType   = "content-type"
	headerAuthorization = "authorization"
)

// defaultHeaderTimeout bounds the wait for response headers.
const defaultHeaderTimeout = 10 * time.Minute

// Options configure a Provider. The zero value talks to api.anthropic.com
// with no key (every request then fails before sending) and no model.
// Nothing is ever read from the process environment.
type Options struct {
	// BaseURL is the service root; a trailing /v1 or /v1/ is removed.
	// Empty means https://api.anthropic.com.
	BaseURL string
	// APIKey is sent as x-api-key. Request.Auth.APIKey overrides it.
	APIKey string
	// Model is the model id sent on the wire.
	Model string
	// Headers are sent on every request (names compared case-insensitively)
	// and override the provider's own headers, except x-api-key.
	// Request.Auth.Headers override these. Authorization is never sent.
	Headers map[string]string
	// HTTPClient sends the requests; nil means a client of our own that
	// ignores proxy environment variables. Copies share it. Its Timeout
	// should be zero: streams can run for many minutes.
	HTTPClient *http.Client
	// DefaultMaxTokens is max_tokens; 0 derives it from the model's
	// output ceiling. An explicit value is sent as given and is not lowered
	// by WithMaxCompletionTokens.
	DefaultMaxTokens int
	// BetaAPI selects POST /v1/messages?beta=true.
	BetaAPI bool
	// Betas is the anthropic-beta list. nil means the default
	// [interleaved-thinking-2025-05-14]; an empty non-nil slice means none.
	Betas []string
	// KimiThinking marks Kimi served over the Anthropic wire: thinking is
	// {type:"enabled"} with an effort, and a 429 for an exhausted balance
	// is a quota error rather than a rate limit.
	KimiThinking bool
	// SupportEfforts are the model's declared thinking efforts, or nil.
	SupportEfforts []string
	// Adaptive forces adaptive thinking on or off; nil infers it from the
	// model id.
	Adaptive *bool
	// MetadataUserID is sent as metadata.user_id (prompt-cache affinity).
	MetadataUserID string
	// Temperature, TopK and TopP are sent when set.
	Temperature *float64
	TopK        *int
	TopP        *float64
	// ResponseHeaderTimeout bounds the wait for response headers; 0 means
	// 10 minutes and a negative value means no limit. Expiry is a Timeout.
	ResponseHeaderTimeout time.Duration
	// IdleTimeout fails a request whose service sends no byte for that
	// long, from the moment it is sent (the wait for headers counts), with
	// a Timeout error. Zero means llm.DefaultStreamIdleTimeout; a negative
	// value turns it off. Anthropic's ping events count as bytes.
	IdleTimeout time.Duration
	// ResponseTimeout fails a response still streaming that long after its
	// request was sent, with a Timeout error. Zero means
	// llm.DefaultResponseTimeout; a negative value turns it off.
	ResponseTimeout time.Duration
	// Logger receives debug lines about requests; nil discards them.
	Logger *slog.Logger
}

// Provider is an Anthropic Messages client implementing llm.Provider. It is
// immutable and safe for concurrent use; the With* methods return copies
// that share the HTTP client.
type Provider struct {
	client  *http.Client
	log     *slog.Logger
	baseURL string
	apiKey  string
	headers map[string]string // lower-cased names; never modified after New

	model          string
	maxTokens      int
	explicitMax    bool
	betaAPI        bool
	betas          []string // replaced, never modified in place
	kimiThinking   bool
	supportEfforts []string
	adaptive       *bool
	metadataUserID string
	temperature    *float64
	topK           *int
	topP           *float64
	headerTimeout  time.Duration
	limits         wire.Limits

	thinking     *thinkingParam // nil until WithThinking
	effort       string         // output_config.effort
	contextEdits []contextEdit  // context_management.edits

	// sizes are the encoded sizes of the last request's messages, shared
	// by every copy.
	sizes *wire.Sizes[wireMessage]
	// prompt is the encoded system prompt and tool table of the last
	// request, shared by every copy.
	prompt *promptCache
}

var _ llm.Provider = (*Provider)(nil)

// New returns a Provider for opts.
func New(opts Options) *Provider {
	p := &Provider{
		client:         opts.HTTPClient,
		log:            opts.Logger,
		baseURL:        normalizeBaseURL(opts.BaseURL),
		apiKey:         opts.APIKey,
		headers:        make(map[string]string, len(opts.Headers)),
		model:          opts.Model,
		betaAPI:        opts.BetaAPI,
		betas:          slices.Clone(opts.Betas),
		kimiThinking:   opts.KimiThinking,
		supportEfforts: slices.Clone(opts.SupportEfforts),
		metadataUserID: opts.MetadataUserID,
		temperature:    clonePtr(opts.Temperature),
		topK:           clonePtr(opts.TopK),
		topP:           clonePtr(opts.TopP),
		adaptive:       clonePtr(opts.Adaptive),
		headerTimeout:  opts.ResponseHeaderTimeout,
		limits:         wire.Limits{Idle: opts.IdleTimeout, Response: opts.ResponseTimeout},
		sizes:          &wire.Sizes[wireMessage]{},
		prompt:         &promptCache{},
	}
	if p.client == nil {
		p.client = newHTTPClient()
	}
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	for k, v := range opts.Headers {
		p.headers[strings.ToLower(k)] = v
	}
	if opts.Betas == nil {
		p.betas = []string{betaInterleavedThinking}
	}
	if p.headerTimeout == 0 {
		p.headerTimeout = defaultHeaderTimeout
	}
	if opts.DefaultMaxTokens > 0 {
		p.maxTokens, p.explicitMax = opts.DefaultMaxTokens, true
	} else {
		p.maxTokens = resolveMaxTokens(opts.Model, 0)
	}
	return p
}

func clonePtr[T any](v *T) *T {
	if v == nil {
		return nil
	}
	c := *v
	return &c
}

// newHTTPClient is the default client: the standard transport settings
// without the proxy lookup, which would read the environment.
func newHTTPClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = nil
	t.WriteBufferSize = wire.WriteBufferSize // see openai's defaultClient
	return &http.Client{Transport: t}
}

func normalizeBaseURL(u string) string {
	u = strings.TrimSpace(u)
	if u == "" {
		return defaultBaseURL
	}
	u = strings.TrimSuffix(u, "/")
	u = strings.TrimSuffix(u, "/v1")
	return strings.TrimSuffix(u, "/")
}

// Name is "anthropic".
func (p *Provider) Name() string { return llm.WireAnthropic }

// ModelName is the model id sent on the wire.
func (p *Provider) ModelName() string { return p.model }

// MaxCompletionTokens is the max_tokens every request carries.
func (p *Provider) MaxCompletionTokens() int { return p.maxTokens }

// ThinkingEffort is "" until WithThinking, then "off", "on" or the effort
// the settings express (output_config.effort, else the budget's level).
func (p *Provider) ThinkingEffort() string { return p.thinkingEffort() }

// WithThinking returns a copy with thinking set for effort ("off", "on" or
// a model-declared effort; "" counts as "on"), following the model's
// thinking profile (spec 01 §3.4.6).
func (p *Provider) WithThinking(effort string) llm.Provider {
	c := *p
	s := p.resolveThinking(effort)
	c.thinking, c.effort, c.betas = s.thinking, s.effort, s.betas
	return &c
}

// WithThinkingKeep returns a copy that asks the service to keep earlier
// thinking ("all" keeps everything): it adds the context-management beta,
// puts a clear-thinking edit with keep first in context_management, and
// switches to the beta endpoint, the only one that honours it.
func (p *Provider) WithThinkingKeep(keep string) llm.Provider {
	c := *p
	if !slices.Contains(p.betas, betaContextManagement) {
		c.betas = append(slices.Clone(p.betas), betaContextManagement)
	}
	edits := []contextEdit{{Type: editClearThinking, Keep: keep}}
	for _, e := range p.contextEdits {
		if e.Type != editClearThinking {
			edits = append(edits, e)
		}
	}
	c.contextEdits = edits
	c.betaAPI = true
	return &c
}

// WithMaxCompletionTokens returns a copy whose max_tokens is lowered to n
// (clamped to the model's ceiling). An explicit DefaultMaxTokens is kept.
// The context budget is not consulted: the cap can only lower max_tokens.
func (p *Provider) WithMaxCompletionTokens(n int, _ llm.ContextBudget) llm.Provider {
	c := *p
	if n > 0 && !p.explicitMax {
		c.maxTokens = min(p.maxTokens, resolveMaxTokens(p.model, n))
	}
	return &c
}

// endpoint is the request URL.
func (p *Provider) endpoint() string {
	u := p.baseURL + messagesPath
	if p.betaAPI {
		u += betaQuery
	}
	return u
}

// Generate sends one streaming Messages request. It returns once response
// headers arrive. Request-building problems are *llm.Error values returned
// before anything is sent; no request is ever retried here.
func (p *Provider) Generate(ctx context.Context, req *llm.Request) (llm.Stream, error) {
	if ctx.Err() != nil {
		return nil, llm.Aborted(ctx)
	}
	key := p.apiKey
	if req.Auth != nil && req.Auth.APIKey != "" {
		key = req.Auth.APIKey
	}
	if key == "" {
		return nil, invalidRequestf("anthropic: apiKey is required: set it in the provider options or per request " +
			"(the Anthropic provider never reads API keys from the environment)")
	}
	if p.model == "" {
		return nil, invalidRequestf("anthropic: model is required")
	}
	body, err := p.buildBody(req)
	if err != nil {
		return nil, err
	}
	data, err := newBody(body, p.sizes)
	if err != nil {
		return nil, invalidRequestf("anthropic: encode request: %v", err)
	}

	reqCtx, cancel := context.WithCancelCause(ctx)
	hreq, err := http.NewRequestWithContext(reqCtx, http.MethodPost, p.endpoint(), nil)
	if err != nil {
		cancel(nil)
		return nil, invalidRequestf("anthropic: build request: %v", err)
	}
	data.Attach(hreq)
	p.setHeaders(hreq.Header, key, req.Auth)
	p.log.Debug("anthropic request", "model", p.model, "url", hreq.URL.Redacted(), "bytes", data.Len(),
		"messages", len(body.Messages), "tools", len(req.Tools))

	var headerTimer *time.Timer
	if d := p.headerTimeout; d > 0 {
		cause := fmt.Errorf("anthropic: no response headers within %s: %w", d, llm.ErrProviderTimeout)
		headerTimer = time.AfterFunc(d, func() { cancel(cause) })
	}
	if req.OnRequestSent != nil {
		req.OnRequestSent()
	}
	watch := wire.Start(p.limits, cancel)
	resp, err := p.client.Do(hreq)
	if headerTimer != nil {
		headerTimer.Stop()
	}
	if err != nil {
		watch.Stop()
		defer cancel(nil)
		return nil, p.transportError(ctx, reqCtx, err)
	}
	watch.Alive()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer cancel(nil)
		defer watch.Stop()
		defer func() { _ = resp.Body.Close() }() // error body fully handled
		e := statusError(resp, p.kimiThinking)
		if t := wire.Timeout(reqCtx); t != nil && ctx.Err() == nil {
			e = t // the error body never came
		}
		p.log.Debug("anthropic error status", "status", resp.StatusCode, "kind", string(e.Kind))
		return nil, e
	}
	rc := watch.Body(resp.Body)
	release := func() { cancel(errStreamClosed) }
	format, r, err := wire.Sniff(resp.Header.Get(headerContentType), rc, "POST "+hreq.URL.Redacted())
	if err == nil && format == wire.JSON {
		err = jsonAnswer(rc)
	}
	if err != nil {
		_ = rc.Close() // refused before decoding; nothing else to report
		defer cancel(nil)
		if _, ok := llm.AsError(err); !ok {
			err = p.transportError(ctx, reqCtx, err)
		}
		return nil, err
	}
	return newStream(ctx, reqCtx, readCloser{r, rc}, release), nil
}

// readCloser reads from a reader that may buffer over the body and closes
// the body.
type readCloser struct {
	io.Reader
	io.Closer
}

// jsonAnswer is the error for a 200 application/json answer to a streaming
// request, which the Messages API never sends: an error envelope is
// classified like the "error" event it stands for; anything else is an
// invalid response naming the content type.
func jsonAnswer(body io.Reader) error {
	data, err := io.ReadAll(io.LimitReader(body, maxErrorBodyRead))
	if err != nil {
		return err
	}
	var env struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(data, &env) == nil && env.Type == "error" {
		return streamError(data)
	}
	return &llm.Error{Kind: llm.KindInvalidResponse, Message: "invalid response: anthropic: the service answered 200 " +
		"with Content-Type application/json, where an event stream was requested: " + llm.BodySummary(data)}
}

// setHeaders fills the request headers: the provider's own, then the
// configured ones, then the per-request ones, then the key. Authorization
// is removed whatever its source: Anthropic authenticates with x-api-key.
func (p *Provider) setHeaders(h http.Header, key string, auth *llm.Auth) {
	h.Set(headerContentType, "application/json")
	h.Set(headerVersion, apiVersion)
	if len(p.betas) > 0 {
		h.Set(headerBeta, strings.Join(p.betas, ","))
	}
	for _, k := range slices.Sorted(maps.Keys(p.headers)) {
		h.Set(k, p.headers[k])
	}
	if auth != nil {
		for _, k := range slices.Sorted(maps.Keys(auth.Headers)) {
			h.Set(k, auth.Headers[k])
		}
	}
	h.Set(headerAPIKey, key)
	h.Del(headerAuthorization)
}

// transportError classifies a failed send: the caller's cancellation is an
// abort, the provider's own header timeout a Timeout, the rest by
// llm.ClassifyTransport.
func (p *Provider) transportError(ctx, reqCtx context.Context, err error) error {
	if ctx.Err() != nil {
		return llm.Aborted(ctx)
	}
	if e := wire.Timeout(reqCtx); e != nil {
		return e
	}
	return llm.ClassifyTransport(ctx, fmt.Errorf("anthropic: send request: %w", err))
}
