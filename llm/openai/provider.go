package openai

import (
	"encoding/json"
	"log/slog"
	"maps"
	"net/http"
	"time"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/internal/wire"
)

// Flavour selects the Chat Completions dialect a Provider speaks.
type Flavour string

// The two flavours.
const (
	// Kimi is Moonshot's API: thinking controls, builtin tools, schema
	// normalisation, message-level tools, preserved thinking.
	Kimi Flavour = "kimi"
	// OpenAI is plain Chat Completions, also used for DeepSeek, Ollama,
	// vLLM and other compatible servers.
	OpenAI Flavour = "openai"
)

// Default base URLs, used when Options.BaseURL is empty.
const (
	DefaultKimiBaseURL   = "https://api.moonshot.ai/v1"
	DefaultOpenAIBaseURL = "https://api.openai.com/v1"
)

// DefaultResponseHeaderTimeout bounds the wait for response headers on the
// default transport.
const DefaultResponseHeaderTimeout = 10 * time.Minute

// openAICompletionCeiling is the largest completion cap sent to OpenAI.
const openAICompletionCeiling = 131072

// ToolMessageConversion tells the openai flavour how to send text-only tool
// results.
type ToolMessageConversion string

// Tool message conversions.
const (
	// ToolMessageParts sends one text as a string and several as a
	// text-part array (the default).
	ToolMessageParts ToolMessageConversion = ""
	// ToolMessageExtractText joins the texts into one string.
	ToolMessageExtractText ToolMessageConversion = "extract_text"
)

// GenerationKwargs are sampling settings sent with every request when set.
type GenerationKwargs struct {
	Temperature      *float64
	TopP             *float64
	N                *int
	PresencePenalty  *float64
	FrequencyPenalty *float64
	Stop             []string
	// MaxTokens is the legacy cap. Kimi and OpenAI reasoning models send it
	// as max_completion_tokens; MaxCompletionTokens wins when both are set.
	MaxTokens           int
	MaxCompletionTokens int
	// ReasoningEffort is sent by the openai flavour (Kimi never sends it);
	// when set it also stops the automatic "medium" effort.
	ReasoningEffort string
}

// Options configure a Provider. The zero value is a Kimi provider for the
// public endpoint with no key; Generate then fails with an invalid-request
// error. Nothing is read from the process environment.
type Options struct {
	// Flavour is Kimi (the default) or OpenAI.
	Flavour Flavour
	// BaseURL is the API root without the /chat/completions suffix; empty
	// means the flavour's public endpoint.
	BaseURL string
	// APIKey is sent as a bearer token. A per-request llm.Auth overrides it.
	APIKey string
	// Model is the model id sent on the wire.
	Model string
	// Headers are sent with every request; they may override
	// Authorization. Per-request llm.Auth headers override them.
	Headers map[string]string
	// HTTPClient is shared by every copy of the Provider and never closed.
	// Nil means a client whose transport waits at most
	// ResponseHeaderTimeout for headers, sets no overall timeout and uses
	// no proxy (HTTP(S)_PROXY are environment; pass a client to proxy).
	HTTPClient *http.Client
	// ResponseHeaderTimeout applies to the default client only; zero means
	// DefaultResponseHeaderTimeout.
	ResponseHeaderTimeout time.Duration
	// IdleTimeout fails a request whose service sends no byte for that
	// long, from the moment it is sent (the wait for headers counts), with
	// a Timeout error. Zero means llm.DefaultStreamIdleTimeout; a negative
	// value turns it off.
	IdleTimeout time.Duration
	// ResponseTimeout fails a response still streaming that long after its
	// request was sent, with a Timeout error. Zero means
	// llm.DefaultResponseTimeout; a negative value turns it off.
	ResponseTimeout time.Duration
	// PromptCacheKey is sent as prompt_cache_key (the session id).
	PromptCacheKey string
	// ReasoningKey fixes the reasoning field instead of learning it;
	// blank means learn (default reasoning_content).
	ReasoningKey string
	// OffEffort is the openai flavour's reasoning_effort for thinking
	// "off" (for example "none"); empty omits the field.
	OffEffort string
	// ThinkingKeep is Kimi's resolved preserved-thinking value (usually
	// "all"), applied as thinking.keep; empty sends none.
	ThinkingKeep string
	// GenerationKwargs are sampling settings.
	GenerationKwargs GenerationKwargs
	// MaxCompletionTokens is an explicit cap that wins over the kwargs;
	// zero means none.
	MaxCompletionTokens int
	// ExtraBody holds extra top-level request keys, merged as by
	// WithExtraBody.
	ExtraBody map[string]json.RawMessage
	// ToolMessageConversion applies to the openai flavour's tool results.
	ToolMessageConversion ToolMessageConversion
	// Logger receives debug lines; nil discards.
	Logger *slog.Logger
}

// Provider sends Chat Completions requests over net/http. It is immutable;
// the With* methods return copies that share the HTTP client and the
// learned reasoning dialect. All methods are safe for concurrent use.
type Provider struct {
	flavour   Flavour
	baseURL   string
	apiKey    string
	model     string
	headers   map[string]string
	client    *http.Client
	limits    wire.Limits
	cacheKey  string
	offEffort string
	kwargs    GenerationKwargs
	toolConv  ToolMessageConversion
	log       *slog.Logger
	dialect   *reasoningDialect

	// body is the extra body and Kimi thinking state; copied on write.
	body extraBody
	// effort is the openai flavour's effort from WithThinking.
	effort string
	// maxTokens is the explicit cap (Options or WithMaxCompletionTokens),
	// already clamped; 0 means none.
	maxTokens int
	// sizes are the encoded sizes of the last request's messages, shared
	// by every copy.
	sizes *wire.Sizes[wireMessage]
	// tools is the encoded tool table of the last request, shared by
	// every copy.
	tools *toolsCache
}

var _ llm.Provider = (*Provider)(nil)

// New returns a Provider for opts.
func New(opts Options) *Provider {
	p := &Provider{
		flavour:   opts.Flavour,
		baseURL:   opts.BaseURL,
		apiKey:    opts.APIKey,
		model:     opts.Model,
		headers:   maps.Clone(opts.Headers),
		client:    opts.HTTPClient,
		limits:    wire.Limits{Idle: opts.IdleTimeout, Response: opts.ResponseTimeout},
		cacheKey:  opts.PromptCacheKey,
		offEffort: opts.OffEffort,
		kwargs:    opts.GenerationKwargs,
		toolConv:  opts.ToolMessageConversion,
		log:       opts.Logger,
		dialect:   newReasoningDialect(opts.ReasoningKey),
		maxTokens: max(opts.MaxCompletionTokens, 0),
		sizes:     &wire.Sizes[wireMessage]{},
		tools:     &toolsCache{},
	}
	p.kwargs.Stop = append([]string(nil), opts.GenerationKwargs.Stop...)
	if p.flavour != OpenAI {
		p.flavour = Kimi
	}
	if p.baseURL == "" {
		p.baseURL = DefaultKimiBaseURL
		if p.flavour == OpenAI {
			p.baseURL = DefaultOpenAIBaseURL
		}
	}
	if p.client == nil {
		p.client = defaultClient(opts.ResponseHeaderTimeout)
	}
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	p.body = p.body.merge(p.flavour, opts.ExtraBody)
	if opts.ThinkingKeep != "" && p.flavour == Kimi {
		keep, _ := json.Marshal(opts.ThinkingKeep) // a string always marshals
		p.body = p.body.mergeThinking(map[string]json.RawMessage{"keep": keep})
	}
	return p
}

// defaultClient has no overall timeout (streams can last many minutes) and
// bounds only the wait for response headers. It uses no proxy: the standard
// transport would take one from HTTP(S)_PROXY, and providers read nothing
// from the environment. A host that wants a proxy passes its own client.
func defaultClient(headerTimeout time.Duration) *http.Client {
	if headerTimeout <= 0 {
		headerTimeout = DefaultResponseHeaderTimeout
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = nil
	t.ResponseHeaderTimeout = headerTimeout
	// A request body that fits the write buffer is copied into it; a
	// larger one is handed to the connection, which allocates a 32 KiB
	// copy buffer per request.
	t.WriteBufferSize = wire.WriteBufferSize
	return &http.Client{Transport: t}
}

// Name is "kimi" or "openai".
func (p *Provider) Name() string { return string(p.flavour) }

// ModelName is the model id sent on the wire.
func (p *Provider) ModelName() string { return p.model }

// Flavour is the dialect this provider speaks.
func (p *Provider) Flavour() Flavour { return p.flavour }

// ThinkingEffort reports the thinking setting. Kimi: "" without a thinking
// object, "off" when disabled, else the effort or "on". OpenAI: the effort
// given to WithThinking, verbatim.
func (p *Provider) ThinkingEffort() string {
	if p.flavour == OpenAI {
		return p.effort
	}
	return p.body.thinkingEffort()
}

// MaxCompletionTokens is the cap the next request carries, or 0.
func (p *Provider) MaxCompletionTokens() int {
	if p.maxTokens > 0 {
		return p.maxTokens
	}
	if p.kwargs.MaxCompletionTokens > 0 {
		return p.kwargs.MaxCompletionTokens
	}
	return max(p.kwargs.MaxTokens, 0)
}

// WithThinking returns a copy with effort "off", "on" or a model-declared
// effort string. Kimi replaces its thinking object (keeping keep) and never
// sends reasoning_effort; OpenAI maps the effort to reasoning_effort.
func (p *Provider) WithThinking(effort string) llm.Provider {
	c := *p
	if p.flavour == OpenAI {
		c.effort = effort
		return &c
	}
	c.body = p.body.withThinking(effort)
	return &c
}

// WithMaxCompletionTokens returns a copy whose cap is n clamped to what is
// left of the context window (when both budget values are known), for
// OpenAI also to 131072, and at least 1.
func (p *Provider) WithMaxCompletionTokens(n int, b llm.ContextBudget) llm.Provider {
	c := *p
	if b.MaxContextTokens > 0 && b.UsedContextTokens > 0 {
		n = min(n, b.MaxContextTokens-b.UsedContextTokens)
	}
	if p.flavour == OpenAI {
		n = min(n, openAICompletionCeiling)
	}
	c.maxTokens = max(1, n)
	return &c
}

// WithExtraBody returns a copy with patch merged into the extra top-level
// request keys: last writer wins per key, except Kimi's "thinking", which
// is merged field by field (an empty object changes nothing; null removes
// it). Values must be valid JSON; an invalid one makes Generate fail with
// an invalid-request error.
func (p *Provider) WithExtraBody(patch map[string]json.RawMessage) *Provider {
	c := *p
	c.body = p.body.merge(p.flavour, patch)
	return &c
}
