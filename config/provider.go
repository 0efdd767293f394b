package config

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"golang.org/x/net/http/httpproxy"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/anthropic"
	"github.com/kimigo/kimigo/llm/openai"
	"github.com/kimigo/kimigo/llm/scripted"
	"github.com/kimigo/kimigo/osenv"
)

// ProviderOptions are what NewProvider needs besides the model.
type ProviderOptions struct {
	// Version goes into User-Agent: kimigo/<version>; "" means "dev".
	Version string
	// SessionID is the prompt-cache affinity key: prompt_cache_key on Chat
	// Completions, metadata.user_id on Anthropic.
	SessionID string
	// HTTPClient sends the requests. Nil means NewHTTPClient(m.Proxy): the
	// providers themselves never read proxy variables, so the config layer,
	// which owns the environment, passes a client that honours them.
	HTTPClient *http.Client
	// FS reads the offline model's script; nil means the local file system.
	FS osenv.FS
	// ThinkingEffort, when set, replaces m.InitialThinking() ("off", "on"
	// or an effort).
	ThinkingEffort string
	// Logger receives the providers' debug lines; nil discards them.
	Logger *slog.Logger
}

// noKeyPlaceholder stands in for the key of a loopback endpoint that needs
// none; noAuthTransport removes it before the request leaves.
const noKeyPlaceholder = "kimigo-no-key"

// NewProvider builds the provider of a resolved model: llm/openai (Kimi or
// OpenAI flavour), llm/anthropic, or llm/scripted for the offline model
// (the KIMIGO_SCRIPT file, else the built-in demo). An unreadable or
// invalid script is an error naming the file.
func NewProvider(m Model, opts ProviderOptions) (llm.Provider, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if m.Transport == ProviderScripted {
		return newScripted(m, opts.FS)
	}
	client := opts.HTTPClient
	if client == nil {
		client = NewHTTPClient(m.Proxy)
	}
	key := m.APIKey
	if key == "" { // loopback endpoint without a key: send no credentials
		key = noKeyPlaceholder
		client = withoutAuth(client)
	}
	effort := m.InitialThinking()
	if opts.ThinkingEffort != "" {
		effort = opts.ThinkingEffort
	}
	var p llm.Provider
	switch m.Transport {
	case ProviderKimi, ProviderOpenAI:
		o := openai.Options{
			Flavour: openai.OpenAI, BaseURL: m.BaseURL, APIKey: key, Model: m.ModelID,
			Headers: m.Headers(opts.Version), HTTPClient: client, PromptCacheKey: opts.SessionID,
			ReasoningKey: m.ReasoningKey, OffEffort: m.OffEffort, Logger: log,
			GenerationKwargs: openai.GenerationKwargs{Temperature: m.Temperature, TopP: m.TopP},
			IdleTimeout:      m.Loop.StreamIdleTimeout(), ResponseTimeout: m.Loop.ResponseTimeout(),
		}
		if m.Transport == ProviderKimi {
			o.Flavour = openai.Kimi
			if effort != "" && effort != "off" {
				o.ThinkingKeep = m.Thinking.Keep // only while thinking is on
			}
		}
		p = openai.New(o)
	case ProviderAnthropic:
		p = anthropic.New(anthropic.Options{
			BaseURL: m.BaseURL, APIKey: key, Model: m.ModelID, Headers: m.Headers(opts.Version),
			HTTPClient: client, DefaultMaxTokens: m.MaxOutputSize, BetaAPI: m.BetaAPI,
			KimiThinking: m.ProviderType == ProviderKimi, SupportEfforts: m.SupportEfforts,
			Adaptive: m.AdaptiveThinking, MetadataUserID: opts.SessionID, Logger: log,
			IdleTimeout: m.Loop.StreamIdleTimeout(), ResponseTimeout: m.Loop.ResponseTimeout(),
		})
	default:
		return nil, invalidf("", "Provider type %q is not supported yet.", string(m.Transport))
	}
	if effort != "" {
		p = p.WithThinking(effort)
	}
	return p, nil
}

// newScripted builds the offline model.
func newScripted(m Model, fsys osenv.FS) (llm.Provider, error) {
	responses := scripted.Demo()
	if m.Script != "" {
		if fsys == nil {
			fsys = osenv.LocalFS{}
		}
		data, err := fsys.ReadFile(m.Script)
		if err != nil {
			return nil, &Error{Code: CodeInvalid, File: m.Script, Err: err,
				Message: fmt.Sprintf("Failed to read offline script %s (KIMIGO_SCRIPT): %v", m.Script, err)}
		}
		if responses, err = scripted.ParseScript(data); err != nil {
			return nil, &Error{Code: CodeInvalid, File: m.Script, Err: err,
				Message: fmt.Sprintf("Invalid offline script %s (KIMIGO_SCRIPT): %v", m.Script, err)}
		}
	}
	return scripted.New(scripted.Options{Model: m.ModelID, Responses: responses}), nil
}

// NewHTTPClient is the client model requests use: the standard transport
// with the proxy taken from p (HTTPS_PROXY for https, HTTP_PROXY for http,
// NO_PROXY exceptions; loopback hosts never go through a proxy), a bound
// on the wait for response headers, and no overall timeout, since a
// stream can run for many minutes.
func NewHTTPClient(p ProxySettings) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	proxy := (&httpproxy.Config{HTTPProxy: p.HTTPProxy, HTTPSProxy: p.HTTPSProxy, NoProxy: p.NoProxy}).ProxyFunc()
	t.Proxy = func(r *http.Request) (*url.URL, error) { return proxy(r.URL) }
	t.ResponseHeaderTimeout = 10 * time.Minute
	return &http.Client{Transport: t}
}

// withoutAuth wraps c so requests carry no credentials headers.
func withoutAuth(c *http.Client) *http.Client {
	cp := *c
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	cp.Transport = noAuthTransport{base}
	return &cp
}

// noAuthTransport drops the placeholder credentials, so a loopback server
// configured without a key gets none (spec 06 §3.2). A credential the user
// set through custom_headers is left alone.
type noAuthTransport struct{ base http.RoundTripper }

func (t noAuthTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if r.Header.Get("Authorization") == "Bearer "+noKeyPlaceholder {
		r.Header.Del("Authorization")
	}
	if r.Header.Get("X-Api-Key") == noKeyPlaceholder {
		r.Header.Del("X-Api-Key")
	}
	return t.base.RoundTrip(r)
}
