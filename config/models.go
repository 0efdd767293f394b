package config

import (
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/openai"
)

// Model is one resolved model: what NewProvider needs to build its
// provider and what the session needs to budget and steer its requests.
// It is a plain value; the Config it came from is not referenced.
type Model struct {
	// Alias is the [models] key ("offline" for the built-in model).
	Alias       string
	DisplayName string
	// ProviderName is the [providers] key.
	ProviderName string
	// ProviderType is the provider's type; Transport is the wire actually
	// spoken (anthropic when the model sets protocol = "anthropic").
	ProviderType ProviderType
	Transport    ProviderType
	// ModelID is the model id sent on the wire.
	ModelID string
	BaseURL string
	// APIKey is "" only for a loopback endpoint, which then gets no
	// credentials at all.
	APIKey string
	// EnvHeaders (KIMI_CODE_CUSTOM_HEADERS) and CustomHeaders (the
	// provider's custom_headers) are merged by Headers with the identity
	// header between them.
	EnvHeaders    map[string]string
	CustomHeaders map[string]string
	// Capability is declared ∪ detected; the sizes come from the entry.
	Capability llm.Capability
	// AlwaysThinking: thinking cannot be turned off.
	AlwaysThinking bool
	// MaxOutputSize is max_output_size, 0 when unset.
	MaxOutputSize    int
	ReasoningKey     string
	BetaAPI          bool
	AdaptiveThinking *bool
	SupportEfforts   []string
	DefaultEffort    string
	OffEffort        string
	Thinking         ModelThinking
	// Temperature and TopP are sent on kimi Chat Completions requests.
	Temperature *float64
	TopP        *float64
	// Budget feeds llm.ResolveCompletionBudget: the raw
	// KIMI_MODEL_MAX_COMPLETION_TOKENS / KIMI_MODEL_MAX_TOKENS strings, the
	// output size and the reserved context size (0 when unset).
	Budget llm.BudgetInputs
	// Loop is the loop control of the configuration, environment applied.
	Loop LoopControl
	// Script is the offline model's script file ("" for the demo).
	Script string
	// Proxy is the environment's proxy settings, used by NewProvider's
	// default HTTP client.
	Proxy ProxySettings
	// RuntimeOnly marks the offline and KIMI_MODEL_* models, which are
	// never written to a config file.
	RuntimeOnly bool
}

// ModelThinking is the thinking setting a new session starts with.
type ModelThinking struct {
	// Enabled is [thinking] enabled (default true), or always on.
	Enabled bool
	// Effort is the effort used while thinking is on; "" means "on".
	Effort string
	// Keep is the preserved-thinking value for kimi Chat Completions
	// ("all" by default); "" sends none.
	Keep string
}

// InitialThinking is the effort to give Provider.WithThinking for a new
// session: "" when the model cannot think (leave the provider alone),
// "off", "on" or an effort.
func (m Model) InitialThinking() string {
	switch {
	case !m.Capability.Thinking:
		return ""
	case !m.Thinking.Enabled && !m.AlwaysThinking:
		return "off"
	case m.Thinking.Effort != "":
		return m.Thinking.Effort
	}
	return "on"
}

// Headers merges the request headers, lowest priority first:
// KIMI_CODE_CUSTOM_HEADERS, User-Agent kimigo/<version>, custom_headers
// (spec 06 §3.2 step 7). Names are canonicalised.
func (m Model) Headers(version string) map[string]string {
	if version == "" {
		version = "dev"
	}
	h := map[string]string{}
	for k, v := range m.EnvHeaders {
		h[http.CanonicalHeaderKey(k)] = v
	}
	h["User-Agent"] = "kimigo/" + version
	for k, v := range m.CustomHeaders {
		h[http.CanonicalHeaderKey(k)] = v
	}
	return h
}

// OfflineNotice is printed once when the offline model is chosen because
// nothing else is configured (spec 06 §1.5).
const OfflineNotice = "No model configured; using the built-in offline model. " +
	"Set default_model in config.toml to use a real provider."

// foreignKeyTypes are the API key variables of other tools, with the
// KIMI_MODEL_PROVIDER_TYPE and a model id that would use each.
var foreignKeyTypes = []struct{ name, provider, model string }{
	{"OPENAI_API_KEY", "openai", "gpt-4.1"},
	{"ANTHROPIC_API_KEY", "anthropic", "claude-sonnet-4-5"},
	{"MOONSHOT_API_KEY", "kimi", "kimi-k2-0905-preview"},
}

func foreignKeys(e Env) []string {
	var out []string
	for _, k := range foreignKeyTypes {
		if e.get(k.name) != "" {
			out = append(out, k.name)
		}
	}
	return out
}

// OfflineNoticeText is OfflineNotice for this configuration: when the
// environment holds another tool's API key, it names the key and shows
// the KIMI_MODEL_* line that would use it (issue 15 item 10).
func (c *Config) OfflineNoticeText() string {
	var b strings.Builder
	b.WriteString(OfflineNotice)
	for _, name := range c.Env.ForeignKeys {
		for _, k := range foreignKeyTypes {
			if k.name == name {
				fmt.Fprintf(&b, "\n%s is set, but kimigo does not read it; to use it:\n"+
					"  export KIMI_MODEL_PROVIDER_TYPE=%s KIMI_MODEL_NAME=%s KIMI_MODEL_API_KEY=\"$%s\"",
					name, k.provider, k.model, name)
			}
		}
	}
	return b.String()
}

// offlineContext is the offline model's window.
const offlineContext = 262144

// SelectModel picks the model of a new session (spec 06 §2.5): the --model
// alias, else default_model (which the KIMI_MODEL_* model takes over when
// set), else the built-in offline model. implicit is true in that last
// case, when the caller prints OfflineNotice.
func (c *Config) SelectModel(flag string) (m Model, implicit bool, err error) {
	alias := strings.TrimSpace(flag)
	if alias == "" {
		alias = c.DefaultModel
	}
	if alias == "" {
		return c.offlineModel(), true, nil
	}
	m, err = c.Resolve(alias)
	return m, false, err
}

// ResumeModel picks the model of a resumed session: the --model alias,
// else the saved alias, else default_model when the saved alias is no
// longer configured. An alias that exists but fails to resolve is an
// error, never silently replaced (spec 06 §1.4).
func (c *Config) ResumeModel(flag, saved string) (Model, error) {
	if strings.TrimSpace(flag) != "" {
		return c.Resolve(flag)
	}
	m, err := c.Resolve(saved)
	if errors.Is(err, ErrModelNotConfigured) {
		m, _, err = c.SelectModel("")
	}
	return m, err
}

// Resolve resolves one alias (spec 06 §3.2). Errors are *Error values
// with the texts of §2.4; an alias without an entry wraps
// ErrModelNotConfigured.
func (c *Config) Resolve(alias string) (Model, error) {
	alias = strings.TrimSpace(alias)
	if alias == OfflineAlias {
		return c.offlineModel(), nil
	}
	entry, ok := c.Models[alias]
	if !ok {
		return Model{}, &Error{Code: CodeInvalid, File: c.Path, Err: ErrModelNotConfigured, Message: fmt.Sprintf(
			"Model %q is not configured in config.toml. Add a [models.%q] entry with max_context_size.", alias, alias)}
	}
	if strings.TrimSpace(entry.Provider) == "" {
		return Model{}, invalidf(c.Path, "Model %q must define a provider in config.toml.", alias)
	}
	prov, ok := c.Providers[entry.Provider]
	if !ok {
		return Model{}, invalidf(c.Path, "Provider %q for model %q is not configured.", entry.Provider, alias)
	}
	eff := effective(entry, prov.Type)
	if eff.MaxContextSize < 1 {
		return Model{}, invalidf(c.Path, "Model %q must define a positive max_context_size in config.toml.", alias)
	}
	transport := prov.Type
	if eff.Protocol == string(ProviderAnthropic) {
		transport = ProviderAnthropic
	}
	switch transport {
	case ProviderKimi, ProviderOpenAI, ProviderAnthropic:
	default:
		return Model{}, invalidf(c.Path, "Provider type %q is not supported yet.", string(transport))
	}
	m, err := c.endpoint(alias, entry.Provider, prov, eff, transport)
	if err != nil {
		return Model{}, err
	}
	c.describe(&m, eff)
	return m, nil
}

// endpoint resolves where requests go and how they authenticate.
func (c *Config) endpoint(alias, name string, p Provider, eff ModelEntry, transport ProviderType) (Model, error) {
	m := Model{Alias: alias, ProviderName: name, ProviderType: p.Type, Transport: transport,
		ModelID: strings.TrimSpace(eff.Model), RuntimeOnly: alias == EnvModelAlias}
	m.BaseURL = firstNonBlank(eff.BaseURL, p.BaseURL, p.Env[baseURLKey(transport)], defaultBaseURL(transport))
	if transport == ProviderAnthropic && p.Type != ProviderAnthropic {
		m.BaseURL = strings.TrimSuffix(strings.TrimSuffix(m.BaseURL, "/"), "/v1")
	}
	if trimmed := strings.TrimSuffix(m.BaseURL, "/"); transport == ProviderAnthropic && strings.HasSuffix(trimmed, "/v1") {
		// The wire appends /v1/messages: this would post to /v1/v1/messages.
		where := fmt.Sprintf("the base_url of provider %q", name)
		if alias == EnvModelAlias {
			where = "KIMI_MODEL_BASE_URL"
		}
		return Model{}, invalidf(c.Path, "%s is %q, which ends in /v1, but the anthropic wire adds /v1/messages itself: "+
			"set it to %q.", where, m.BaseURL, strings.TrimSuffix(trimmed, "/v1"))
	}
	if p.OAuth != nil {
		if strings.TrimSpace(p.APIKey) != "" {
			return Model{}, invalidf(c.Path, "Provider %q has both apiKey and oauth set in config.toml — "+
				"they are mutually exclusive. Remove one.", name)
		}
		return Model{}, &Error{Code: CodeLoginRequired, File: c.Path,
			Message: fmt.Sprintf("OAuth provider %q requires login before it can be used.", name)}
	}
	keyName := apiKeyNames(p.Type)
	m.APIKey = strings.TrimSpace(p.APIKey)
	for _, k := range keyName {
		if m.APIKey == "" {
			m.APIKey = strings.TrimSpace(p.Env[k])
		}
	}
	if m.APIKey == "" && !isLoopback(m.BaseURL) {
		return Model{}, invalidf(c.Path, "Provider %q has no API key: set api_key or [providers.%s.env] %s in %s.",
			name, formatPath([]string{name}), keyName[0], c.Path)
	}
	m.EnvHeaders = maps.Clone(c.Env.CustomHeaders)
	m.CustomHeaders = maps.Clone(p.CustomHeaders)
	if transport == ProviderKimi {
		m.Temperature, m.TopP = c.Env.Temperature, c.Env.TopP
	}
	return m, nil
}

// describe fills the capability, thinking and budget fields.
func (c *Config) describe(m *Model, eff ModelEntry) {
	declared := lowerAll(eff.Capabilities)
	has := func(name string) bool { return slices.Contains(declared, name) }
	det := llm.ModelCapability(string(m.Transport), m.ModelID)
	m.AlwaysThinking = has(CapAlwaysThinking)
	m.Capability = llm.Capability{
		ImageIn:                det.ImageIn || has(CapImageIn),
		VideoIn:                det.VideoIn || has(CapVideoIn),
		AudioIn:                det.AudioIn || has(CapAudioIn),
		Thinking:               det.Thinking || has(CapThinking) || m.AlwaysThinking,
		ToolUse:                det.ToolUse || has(CapToolUse),
		DynamicallyLoadedTools: det.DynamicallyLoadedTools || has(CapDynamicallyLoadedTools),
		MaxContextTokens:       eff.MaxContextSize,
		MaxInputTokens:         eff.MaxInputSize,
	}
	m.DisplayName = firstNonBlank(eff.DisplayName, m.ModelID)
	m.MaxOutputSize = eff.MaxOutputSize
	m.ReasoningKey = strings.TrimSpace(eff.ReasoningKey)
	m.BetaAPI = eff.BetaAPI
	m.AdaptiveThinking = eff.AdaptiveThinking
	m.SupportEfforts = slices.Clone(eff.SupportEfforts)
	m.DefaultEffort = eff.DefaultEffort
	m.OffEffort = eff.OffEffort
	m.Thinking = c.thinkingFor(*m)
	m.Loop = c.LoopControl
	m.Budget = c.budget(m.MaxOutputSize)
	m.Proxy = c.Env.Proxy
}

// thinkingFor resolves the session's starting thinking settings: the
// global effort when the model accepts it, else the model's default; a
// kimi provider's effort is forced by KIMI_MODEL_THINKING_EFFORT.
func (c *Config) thinkingFor(m Model) ModelThinking {
	t := ModelThinking{Enabled: c.Thinking.Enabled == nil || *c.Thinking.Enabled}
	switch {
	case m.ProviderType == ProviderKimi && c.Env.ThinkingEffort != "":
		t.Effort = c.Env.ThinkingEffort
	case c.Thinking.Effort != "" && (m.SupportEfforts == nil || slices.Contains(m.SupportEfforts, c.Thinking.Effort)):
		t.Effort = c.Thinking.Effort
	default:
		t.Effort = m.DefaultEffort
	}
	if m.Transport == ProviderKimi {
		t.Keep = resolveKeep(c.Thinking.Keep)
	}
	return t
}

// resolveKeep: blank means "all"; an off-value means none.
func resolveKeep(v string) string {
	v = strings.TrimSpace(v)
	switch strings.ToLower(v) {
	case "":
		return "all"
	case "false", "0", "no", "off", "none", "null":
		return ""
	}
	return v
}

func (c *Config) budget(maxOutput int) llm.BudgetInputs {
	return llm.BudgetInputs{
		MaxCompletionTokensOverride: c.Env.MaxCompletionTokens,
		MaxTokensOverride:           c.Env.MaxTokens,
		MaxOutputSize:               maxOutput,
		ReservedContextSize:         deref(c.LoopControl.ReservedContextSize),
	}
}

// offlineModel is the built-in scripted model (spec 06 §1.5).
func (c *Config) offlineModel() Model {
	return Model{
		Alias: OfflineAlias, DisplayName: OfflineAlias, ProviderName: OfflineAlias,
		ProviderType: ProviderScripted, Transport: ProviderScripted, ModelID: OfflineAlias,
		Capability:  llm.Capability{ToolUse: true, MaxContextTokens: offlineContext},
		Thinking:    ModelThinking{Enabled: c.Thinking.Enabled == nil || *c.Thinking.Enabled},
		Budget:      c.budget(0),
		Loop:        c.LoopControl,
		Script:      c.Env.Script,
		RuntimeOnly: true,
	}
}

// baseURLKey is the [providers.x.env] name of the base URL; it follows the
// transport.
func baseURLKey(t ProviderType) string {
	switch t {
	case ProviderKimi:
		return "KIMI_BASE_URL"
	case ProviderAnthropic:
		return "ANTHROPIC_BASE_URL"
	}
	return "OPENAI_BASE_URL"
}

// apiKeyNames are the [providers.x.env] names of the key, in order; they
// follow the provider type.
func apiKeyNames(t ProviderType) []string {
	switch t {
	case ProviderKimi:
		return []string{"KIMI_API_KEY"}
	case ProviderAnthropic:
		return []string{"ANTHROPIC_API_KEY"}
	case ProviderVertexAI:
		return []string{"VERTEXAI_API_KEY", "GOOGLE_API_KEY"}
	case ProviderGoogleGenAI:
		return []string{"GOOGLE_API_KEY"}
	}
	return []string{"OPENAI_API_KEY"}
}

// defaultBaseURL is the transport's public endpoint.
func defaultBaseURL(t ProviderType) string {
	switch t {
	case ProviderKimi:
		return openai.DefaultKimiBaseURL
	case ProviderAnthropic:
		return "https://api.anthropic.com"
	}
	return openai.DefaultOpenAIBaseURL
}

// isLoopback reports an endpoint on this machine: localhost, 127.0.0.0/8
// or ::1.
func isLoopback(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func firstNonBlank(vals ...string) string {
	for _, v := range vals {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}
