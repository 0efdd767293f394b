package config

import (
	"strings"

	"github.com/kimigo/kimigo/llm/openai"
)

// envModelDefaultContext is the window of the synthetic model when
// KIMI_MODEL_MAX_CONTEXT_SIZE is unset.
const envModelDefaultContext = 262144

// applyEnvModel adds the KIMI_MODEL_* synthetic provider and model to c and
// makes the model the default (spec 06 §3.8), so --model still wins. It is
// active when KIMI_MODEL_NAME is not blank. The entries live in memory
// only: write-back starts from the file, never from a Config.
func applyEnvModel(c *Config, e Env) error {
	name := e.get(envModelName)
	if name == "" {
		return nil
	}
	key := e.get(envModelAPIKey)
	if key == "" {
		return invalidf("", "KIMI_MODEL_NAME is set but KIMI_MODEL_API_KEY is missing.")
	}
	ctx := envModelDefaultContext
	if v := e.get(envModelMaxContextSize); v != "" {
		n, ok := positiveInt(v)
		if !ok {
			return invalidf("", "%s must be a positive integer, got %q.", envModelMaxContextSize, v)
		}
		ctx = n
	}
	typ := ProviderKimi
	if v := e.get(envModelProviderType); v != "" {
		typ = ProviderType(strings.ToLower(v))
		if typ != ProviderKimi && typ != ProviderAnthropic && typ != ProviderOpenAI {
			return invalidf("", "%s must be one of kimi, anthropic, openai, got %q.", envModelProviderType, v)
		}
	}
	m := ModelEntry{Provider: EnvModelProviderID, Model: name}
	m.MaxContextSize = ctx
	if v := e.get(envModelMaxOutputSize); v != "" {
		n, ok := positiveInt(v)
		if !ok {
			return invalidf("", "%s must be a positive integer, got %q.", envModelMaxOutputSize, v)
		}
		m.MaxOutputSize = n
	}
	if v := e.get(envModelAdaptiveThinking); v != "" {
		b, ok := parseBool(v)
		if !ok {
			return invalidf("", "%s must be a boolean (true/false/1/0/yes/no/on/off), got %q.",
				envModelAdaptiveThinking, e[envModelAdaptiveThinking])
		}
		m.AdaptiveThinking = &b
	}
	m.Capabilities = splitCapabilities(e.get(envModelCapabilities))
	m.DisplayName = e.get(envModelDisplayName)
	m.ReasoningKey = e.get(envModelReasoningKey)
	if effort := e.get(envThinkingEffort); effort != "" {
		c.Thinking.Effort = effort
	}
	c.Providers[EnvModelProviderID] = Provider{Type: typ, APIKey: key, BaseURL: syntheticBaseURL(typ, e)}
	c.Models[EnvModelAlias] = m
	c.DefaultModel = EnvModelAlias
	c.EnvModel = true
	return nil
}

// syntheticBaseURL is KIMI_MODEL_BASE_URL or the type's public endpoint
// (none for anthropic, whose provider has its own default).
func syntheticBaseURL(typ ProviderType, e Env) string {
	if v := e.get(envModelBaseURL); v != "" {
		return v
	}
	switch typ {
	case ProviderKimi:
		return openai.DefaultKimiBaseURL
	case ProviderOpenAI:
		return openai.DefaultOpenAIBaseURL
	}
	return ""
}

// splitCapabilities reads the comma list; empty means image_in, thinking.
func splitCapabilities(s string) []string {
	var caps []string
	for c := range strings.SplitSeq(s, ",") {
		if c = strings.ToLower(strings.TrimSpace(c)); c != "" {
			caps = append(caps, c)
		}
	}
	if len(caps) == 0 {
		return []string{CapImageIn, CapThinking}
	}
	return caps
}

// positiveInt reads digits only, with no leading zero, above zero.
func positiveInt(s string) (int, bool) {
	if s == "" || s[0] == '0' {
		return 0, false
	}
	n, ok := parseDecimal(s)
	return n, ok && n > 0
}
