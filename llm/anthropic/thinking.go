package anthropic

import (
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Effort values with a fixed meaning; any other string is a model-declared
// effort sent as given.
const (
	effortOff    = "off"
	effortOn     = "on"
	effortLow    = "low"
	effortMedium = "medium"
	effortHigh   = "high"
)

// thinkingType is the wire value of thinking.type.
type thinkingType string

// Thinking modes on the wire.
const (
	thinkingDisabled thinkingType = "disabled"
	thinkingEnabled  thinkingType = "enabled"
	thinkingAdaptive thinkingType = "adaptive"
)

// thinkingDisplaySummarized asks adaptive thinking for summarised text.
const thinkingDisplaySummarized = "summarized"

// Budgets for budget-mode efforts.
const (
	budgetLow    = 1024
	budgetMedium = 4096
	budgetHigh   = 32000
)

// Beta features the provider manages itself.
const (
	betaInterleavedThinking = "interleaved-thinking-2025-05-14"
	betaContextManagement   = "context-management-2025-06-27"
)

// editClearThinking is the context-management edit that keeps thinking.
const editClearThinking = "clear_thinking_20251015"

// thinkingMode says how a model takes its thinking settings.
type thinkingMode uint8

const (
	// modeBudget: thinking {type:"enabled", budget_tokens:N}.
	modeBudget thinkingMode = iota
	// modeAdaptive: thinking {type:"adaptive"} plus output_config.effort.
	modeAdaptive
)

// profile is how a model family handles thinking. Only what shapes the
// request is kept: the mode and whether output_config.effort is accepted.
type profile struct {
	mode        thinkingMode
	effortParam bool
}

var (
	budgetProfile     = profile{mode: modeBudget}
	opus45Profile     = profile{mode: modeBudget, effortParam: true}
	adaptiveProfile   = profile{mode: modeAdaptive, effortParam: true}
	mythosPreviewName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`mythos[-._]preview`) })
)

// knownProfile matches a model id against the Claude families with known
// thinking behaviour.
func knownProfile(model string) (profile, bool) {
	if mythosPreviewName().MatchString(strings.ToLower(model)) {
		return adaptiveProfile, true
	}
	v, ok := parseModelVersion(model, false)
	if !ok {
		return profile{}, false
	}
	minor := max(v.minor, 0) // a missing minor counts as .0
	switch v.family {
	case familyOpus:
		switch {
		case v.major == 4 && (v.minor == 6 || v.minor == 7 || v.minor == 8):
			return adaptiveProfile, true
		case v.major == 4 && v.minor == 5:
			return opus45Profile, true
		case v.major < 4 || (v.major == 4 && minor < 5):
			return budgetProfile, true
		}
	case familySonnet:
		switch {
		case v.major == 5, v.major == 4 && v.minor == 6:
			return adaptiveProfile, true
		case v.major < 4 || (v.major == 4 && minor <= 5):
			return budgetProfile, true
		}
	case familyHaiku:
		if v.major < 4 || (v.major == 4 && minor <= 5) {
			return budgetProfile, true
		}
	case familyFable, familyMythos:
		if v.major == 5 {
			return adaptiveProfile, true
		}
	}
	return profile{}, false
}

// inferProfile is the known profile, else the latest-Opus one (adaptive),
// which also serves unknown Anthropic-compatible models.
func inferProfile(model string) profile {
	if p, ok := knownProfile(model); ok {
		return p
	}
	return adaptiveProfile
}

// resolveProfile applies the configuration on top of the inferred profile:
// adaptive forced off means budget mode without the effort parameter;
// forced on means adaptive with it; declared efforts beyond low/medium/high
// need adaptive mode.
func resolveProfile(model string, supportEfforts []string, adaptive *bool) profile {
	p := inferProfile(model)
	switch {
	case adaptive != nil && !*adaptive:
		return profile{mode: modeBudget}
	case adaptive != nil:
		return adaptiveProfile
	case supportEfforts != nil && needsAdaptive(supportEfforts):
		return adaptiveProfile
	}
	return p
}

func needsAdaptive(efforts []string) bool {
	return slices.ContainsFunc(efforts, func(e string) bool {
		return e != effortLow && e != effortMedium && e != effortHigh
	})
}

// budgetFor is the budget of a budget-mode effort; 0 means no budget is
// known for it.
func budgetFor(effort string) int {
	switch effort {
	case effortLow:
		return budgetLow
	case effortMedium:
		return budgetMedium
	case effortOn, effortHigh:
		return budgetHigh
	}
	return 0
}

// canKeepUnsignedThinking reports whether unsigned thinking may be sent
// back (without a signature key): only to models that are not Claude, since
// Claude rejects unsigned blocks while compatible backends reject a tool
// turn whose thinking went missing.
func canKeepUnsignedThinking(model string) bool {
	if _, ok := parseModelVersion(model, false); ok {
		return false
	}
	_, known := knownProfile(model)
	return !known
}

// thinkingSettings is the resolved thinking configuration of a Provider.
type thinkingSettings struct {
	thinking *thinkingParam
	effort   string // output_config.effort, "" for none
	betas    []string
}

// resolveThinking applies WithThinking's table (spec 01 §3.4.6) for effort.
func (p *Provider) resolveThinking(effort string) thinkingSettings {
	if effort == "" {
		effort = effortOn
	}
	adaptive := p.adaptive
	if p.kimiThinking {
		forced := true
		adaptive = &forced
	}
	prof := resolveProfile(p.model, p.supportEfforts, adaptive)
	var s thinkingSettings
	withEffort := func() string {
		if effort == effortOn {
			return ""
		}
		return effort
	}
	switch {
	case effort == effortOff:
		s.thinking = &thinkingParam{Type: thinkingDisabled}
	case p.kimiThinking:
		s.thinking = &thinkingParam{Type: thinkingEnabled}
		s.effort = withEffort()
	case prof.mode == modeAdaptive:
		s.thinking = &thinkingParam{Type: thinkingAdaptive, Display: thinkingDisplaySummarized}
		s.effort = withEffort()
	default:
		b := budgetFor(effort)
		s.thinking = &thinkingParam{Type: thinkingEnabled}
		if b > 0 {
			s.thinking.BudgetTokens = &b
		}
		if prof.effortParam || b == 0 {
			s.effort = withEffort()
		}
	}
	s.betas = slices.Clone(p.betas)
	if prof.mode == modeAdaptive {
		// Adaptive thinking interleaves by itself; the beta is refused.
		s.betas = slices.DeleteFunc(s.betas, func(b string) bool { return b == betaInterleavedThinking })
	}
	return s
}

// thinkingEffort reports the effort the current settings express.
func (p *Provider) thinkingEffort() string {
	t := p.thinking
	switch {
	case t == nil:
		return ""
	case t.Type == thinkingDisabled:
		return effortOff
	case p.effort != "":
		return p.effort
	case t.Type == thinkingAdaptive, t.BudgetTokens == nil:
		return effortOn
	case *t.BudgetTokens <= budgetLow:
		return effortLow
	case *t.BudgetTokens <= budgetMedium:
		return effortMedium
	}
	return effortHigh
}
