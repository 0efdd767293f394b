package config

import (
	"math"
	"slices"
)

// decodeModels reads [models]. A missing or non-positive max_context_size
// gets the exact message of spec 06 §2.4.
func decodeModels(t *table, c *Config) {
	for _, alias := range sortedKeys(t.m) {
		e := t.sub(alias)
		if e == nil {
			continue
		}
		switch alias {
		case OfflineAlias:
			t.issuef(alias, "the name is reserved for the built-in offline model")
			continue
		case EnvModelAlias:
			t.issuef(alias, "the name is reserved for the KIMI_MODEL_* model")
			continue
		}
		m := ModelEntry{
			Provider: e.nonEmpty("provider"),
			Model:    e.nonEmpty("model"),
			Protocol: e.enum("protocol", []string{"anthropic"}),
			BaseURL:  e.str("base_url"),
			BetaAPI:  deref(e.boolean("beta_api")),
		}
		for _, k := range []string{"provider", "model"} {
			if _, ok := e.m[k]; !ok {
				e.issuef(k, "is required")
			}
		}
		if n, ok := asInt(e.m["max_context_size"]); !ok || n < 1 {
			e.take("max_context_size")
			e.issuef("max_context_size", "Model %q must define a positive max_context_size in config.toml.", alias)
		} else {
			m.MaxContextSize = deref(e.integer("max_context_size", 1, math.MaxInt))
		}
		m.ModelSettings = decodeSettings(e, m.MaxContextSize)
		if o := e.sub("overrides"); o != nil {
			s := decodeSettings(o, 0)
			if n := o.integer("max_context_size", 1, math.MaxInt); n != nil {
				s.MaxContextSize = *n
			}
			o.finish(false)
			m.Overrides = &s
		}
		e.finish(false)
		c.Models[alias] = m
	}
}

// decodeSettings reads the fields a model and its overrides share, except
// max_context_size. ctx is the entry's window, carried into the result.
func decodeSettings(t *table, ctx int) ModelSettings {
	return ModelSettings{
		MaxContextSize:   ctx,
		MaxInputSize:     deref(t.integer("max_input_size", 1, math.MaxInt)),
		MaxOutputSize:    deref(t.integer("max_output_size", 1, math.MaxInt)),
		Capabilities:     t.strList("capabilities"),
		DisplayName:      t.str("display_name"),
		ReasoningKey:     t.str("reasoning_key"),
		AdaptiveThinking: t.boolean("adaptive_thinking"),
		SupportEfforts:   t.strList("support_efforts"),
		DefaultEffort:    t.str("default_effort"),
		OffEffort:        t.str("off_effort"),
	}
}

// effective is the entry with its overrides laid over it, the input cap
// clamped to the window and the Claude profile applied (spec 06 §2.3,
// "Effective model"). The stored entry is not changed.
func effective(m ModelEntry, providerType ProviderType) ModelEntry {
	eff := m
	eff.Capabilities = slices.Clone(m.Capabilities)
	eff.SupportEfforts = slices.Clone(m.SupportEfforts)
	if o := m.Overrides; o != nil {
		overlay(&eff.ModelSettings, *o)
		if o.SupportEfforts != nil && o.DefaultEffort == "" && eff.DefaultEffort != "" &&
			!slices.Contains(o.SupportEfforts, eff.DefaultEffort) {
			eff.DefaultEffort = ""
		}
	}
	eff.Overrides = nil
	if eff.MaxInputSize > eff.MaxContextSize {
		eff.MaxInputSize = eff.MaxContextSize
	}
	return withClaudeProfile(eff, providerType)
}

// overlay copies every set field of o onto s.
func overlay(s *ModelSettings, o ModelSettings) {
	setInt := func(dst *int, v int) {
		if v > 0 {
			*dst = v
		}
	}
	setStr := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	setInt(&s.MaxContextSize, o.MaxContextSize)
	setInt(&s.MaxInputSize, o.MaxInputSize)
	setInt(&s.MaxOutputSize, o.MaxOutputSize)
	setStr(&s.DisplayName, o.DisplayName)
	setStr(&s.ReasoningKey, o.ReasoningKey)
	setStr(&s.DefaultEffort, o.DefaultEffort)
	setStr(&s.OffEffort, o.OffEffort)
	if o.Capabilities != nil {
		s.Capabilities = slices.Clone(o.Capabilities)
	}
	if o.SupportEfforts != nil {
		s.SupportEfforts = slices.Clone(o.SupportEfforts)
	}
	if o.AdaptiveThinking != nil {
		v := *o.AdaptiveThinking
		s.AdaptiveThinking = &v
	}
}

// withClaudeProfile adds what a known Claude model implies: the thinking
// capability (always_thinking when thinking cannot be turned off), the
// profile's efforts when none are declared, and default effort "high" when
// offered. Kimi providers declare their own efforts and get no fallback
// profile; other providers routed over the Anthropic wire fall back to the
// latest-Opus profile for names that still say "claude".
func withClaudeProfile(m ModelEntry, providerType ProviderType) ModelEntry {
	protocol := ProviderType(m.Protocol)
	if protocol == "" {
		protocol = providerType
	}
	p, ok := knownClaudeProfile(m.Model)
	if !ok && providerType != ProviderKimi && protocol == ProviderAnthropic {
		p, ok = unknownClaudeProfile(m.Model)
	}
	if !ok {
		return m
	}
	capName := CapThinking
	if !p.canDisable {
		capName = CapAlwaysThinking
	}
	if !slices.Contains(lowerAll(m.Capabilities), capName) {
		m.Capabilities = append(m.Capabilities, capName)
	}
	if m.SupportEfforts == nil {
		if m.AdaptiveThinking != nil && !*m.AdaptiveThinking {
			m.SupportEfforts = budgetEfforts()
		} else {
			m.SupportEfforts = slices.Clone(p.efforts)
		}
	}
	if m.DefaultEffort == "" && slices.Contains(m.SupportEfforts, "high") {
		m.DefaultEffort = "high"
	}
	return m
}
