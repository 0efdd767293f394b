package config

import (
	"strconv"
	"strings"
)

// Env is the process environment as the config layer sees it. cmd/kimigo
// fills it from os.Environ (EnvFromList); tests pass a literal. Nothing in
// this package reads the process environment itself, so config is the one
// place that turns variables into typed settings (ERRATA 16, 18).
type Env map[string]string

// Names of the variables this package reads (spec 06 §1.10).
const (
	envHome                  = "KIMIGO_HOME"
	envScript                = "KIMIGO_SCRIPT"
	envOutputFormat          = "KIMI_MODEL_OUTPUT_FORMAT"
	envLoopMaxSteps          = "KIMI_LOOP_MAX_STEPS_PER_TURN"
	envLoopMaxRetries        = "KIMI_LOOP_MAX_RETRIES_PER_STEP"
	envLoopMaxAttempts       = "KIMI_LOOP_MAX_ATTEMPTS_PER_STEP"
	envMCPStartupTimeout     = "KIMI_MCP_STARTUP_TIMEOUT_MS"
	envMCPToolTimeout        = "KIMI_MCP_TOOL_TIMEOUT_MS"
	envBackgroundKeepAlive   = "KIMI_CODE_BACKGROUND_KEEP_ALIVE_ON_EXIT"
	envBackgroundMaxRunning  = "KIMI_CODE_BACKGROUND_MAX_RUNNING_TASKS"
	envSubagentTimeout       = "KIMI_SUBAGENT_TIMEOUT_MS"
	envImageMaxEdge          = "KIMI_IMAGE_MAX_EDGE_PX"
	envImageReadBudget       = "KIMI_IMAGE_READ_BYTE_BUDGET"
	envTemperature           = "KIMI_MODEL_TEMPERATURE"
	envTopP                  = "KIMI_MODEL_TOP_P"
	envThinkingEffort        = "KIMI_MODEL_THINKING_EFFORT"
	envThinkingKeep          = "KIMI_MODEL_THINKING_KEEP"
	envMaxCompletionTokens   = "KIMI_MODEL_MAX_COMPLETION_TOKENS"
	envMaxTokens             = "KIMI_MODEL_MAX_TOKENS"
	envCustomHeaders         = "KIMI_CODE_CUSTOM_HEADERS"
	envDisableCron           = "KIMI_DISABLE_CRON"
	envCronManualTick        = "KIMI_CRON_MANUAL_TICK"
	envCronNoJitter          = "KIMI_CRON_NO_JITTER"
	envCronNoStale           = "KIMI_CRON_NO_STALE"
	envCronClock             = "KIMI_CRON_CLOCK"
	envSwarmMaxConcurrency   = "KIMI_CODE_AGENT_SWARM_MAX_CONCURRENCY"
	envLogLevel              = "KIMI_LOG_LEVEL"
	envModelName             = "KIMI_MODEL_NAME"
	envModelAPIKey           = "KIMI_MODEL_API_KEY"
	envModelProviderType     = "KIMI_MODEL_PROVIDER_TYPE"
	envModelBaseURL          = "KIMI_MODEL_BASE_URL"
	envModelMaxContextSize   = "KIMI_MODEL_MAX_CONTEXT_SIZE"
	envModelCapabilities     = "KIMI_MODEL_CAPABILITIES"
	envModelDisplayName      = "KIMI_MODEL_DISPLAY_NAME"
	envModelReasoningKey     = "KIMI_MODEL_REASONING_KEY"
	envModelMaxOutputSize    = "KIMI_MODEL_MAX_OUTPUT_SIZE"
	envModelAdaptiveThinking = "KIMI_MODEL_ADAPTIVE_THINKING"
)

// EnvFromList builds an Env from KEY=VALUE pairs such as os.Environ().
// Entries without "=" are skipped; a later duplicate wins.
func EnvFromList(pairs []string) Env {
	e := make(Env, len(pairs))
	for _, kv := range pairs {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			e[k] = v
		}
	}
	return e
}

// get is the trimmed value of key; blank counts as unset (spec 06 §3.1).
func (e Env) get(key string) string { return strings.TrimSpace(e[key]) }

// first is the first non-blank value among keys.
func (e Env) first(keys ...string) string {
	for _, k := range keys {
		if v := e.get(k); v != "" {
			return v
		}
	}
	return ""
}

// parseBool reads the truthy (1, true, yes, on) and falsy (0, false, no,
// off) spellings, case-insensitively; ok is false for anything else.
func parseBool(s string) (v, ok bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "true", "yes", "on":
		return true, true
	case "0", "false", "no", "off":
		return false, true
	}
	return false, false
}

// parseDecimal reads a non-negative decimal integer made of digits only.
func parseDecimal(s string) (int, bool) {
	s = strings.TrimSpace(s)
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// EnvSettings are the environment values that tune a run without having a
// config key of their own. Variables that override a config key are folded
// into the Config fields instead (see overrides.go).
type EnvSettings struct {
	// ForeignKeys are the other agents' API key variables that are set
	// (OPENAI_API_KEY, ANTHROPIC_API_KEY, MOONSHOT_API_KEY), in that
	// order; kimigo does not use them, but the offline notice names them.
	ForeignKeys []string
	// Script is KIMIGO_SCRIPT: the offline model's script file, "" for the
	// built-in demo.
	Script string
	// OutputFormat is KIMI_MODEL_OUTPUT_FORMAT as given (trimmed); the
	// command line validates it (spec 06 §1.3 #15).
	OutputFormat string
	// MaxCompletionTokens and MaxTokens are the raw
	// KIMI_MODEL_MAX_COMPLETION_TOKENS and KIMI_MODEL_MAX_TOKENS values for
	// llm.ResolveCompletionBudget.
	MaxCompletionTokens string
	MaxTokens           string
	// CustomHeaders are the KIMI_CODE_CUSTOM_HEADERS lines ("Name: Value").
	CustomHeaders map[string]string
	// Temperature and TopP are KIMI_MODEL_TEMPERATURE and KIMI_MODEL_TOP_P,
	// applied to kimi Chat Completions requests.
	Temperature *float64
	TopP        *float64
	// ThinkingEffort is KIMI_MODEL_THINKING_EFFORT: the wire effort of kimi
	// providers while thinking is on.
	ThinkingEffort string
	// ThinkingKeep is KIMI_MODEL_THINKING_KEEP as given ("" when unset).
	ThinkingKeep string
	// DisableCron is KIMI_DISABLE_CRON=1.
	DisableCron bool
	// Cron holds the cron test switches (spec 05 §7.6).
	Cron CronSettings
	// SwarmMaxConcurrency is KIMI_CODE_AGENT_SWARM_MAX_CONCURRENCY; 0 when
	// unset or not a positive integer. SwarmMaxConcurrencyRaw is the value
	// as given: AgentSwarm fails a call when it is set to anything but a
	// positive integer (spec 05 §5.7).
	SwarmMaxConcurrency    int
	SwarmMaxConcurrencyRaw string
	// LogLevel is KIMI_LOG_LEVEL when it is off, error, warn, info or debug;
	// "" otherwise.
	LogLevel string
	// Proxy is what HTTP_PROXY, HTTPS_PROXY and NO_PROXY (or their lower
	// case forms) say.
	Proxy ProxySettings
}

// CronSettings are the KIMI_CRON_* switches of spec 05 §7.6.
type CronSettings struct {
	// ManualTick is KIMI_CRON_MANUAL_TICK=1: no timer ticks the scheduler.
	ManualTick bool
	// NoJitter and NoStale are KIMI_CRON_NO_JITTER=1 and
	// KIMI_CRON_NO_STALE=1.
	NoJitter, NoStale bool
	// ClockFile is the path of KIMI_CRON_CLOCK=file:<path>: the wall
	// clock is read from the first line of that file. "" is the real
	// clock; any other form of the variable is ignored.
	ClockFile string
}

// ProxySettings are the proxy variables of the environment.
type ProxySettings struct {
	HTTPProxy, HTTPSProxy, NoProxy string
}

// readEnvSettings parses the settings of e. A malformed number in
// KIMI_MODEL_TEMPERATURE or KIMI_MODEL_TOP_P is an error; every other
// malformed value is ignored, as §1.10 says.
func readEnvSettings(e Env) (EnvSettings, error) {
	s := EnvSettings{
		Script:              e.get(envScript),
		OutputFormat:        e.get(envOutputFormat),
		MaxCompletionTokens: e[envMaxCompletionTokens],
		MaxTokens:           e[envMaxTokens],
		CustomHeaders:       parseHeaderLines(e[envCustomHeaders]),
		ThinkingEffort:      e.get(envThinkingEffort),
		ThinkingKeep:        e.get(envThinkingKeep),
		DisableCron:         e.get(envDisableCron) == "1",
		Cron: CronSettings{ManualTick: e.get(envCronManualTick) == "1", NoJitter: e.get(envCronNoJitter) == "1",
			NoStale: e.get(envCronNoStale) == "1"},
		ForeignKeys: foreignKeys(e),
		Proxy: ProxySettings{
			HTTPProxy:  e.first("HTTP_PROXY", "http_proxy"),
			HTTPSProxy: e.first("HTTPS_PROXY", "https_proxy"),
			NoProxy:    e.first("NO_PROXY", "no_proxy"),
		},
	}
	if p, ok := strings.CutPrefix(e.get(envCronClock), "file:"); ok && p != "" {
		s.Cron.ClockFile = p
	}
	s.SwarmMaxConcurrencyRaw = e[envSwarmMaxConcurrency]
	if n, ok := parseDecimal(e.get(envSwarmMaxConcurrency)); ok && n > 0 {
		s.SwarmMaxConcurrency = n
	}
	switch l := strings.ToLower(e.get(envLogLevel)); l {
	case "off", "error", "warn", "info", "debug":
		s.LogLevel = l
	}
	var err error
	if s.Temperature, err = envNumber(e, envTemperature); err != nil {
		return s, err
	}
	if s.TopP, err = envNumber(e, envTopP); err != nil {
		return s, err
	}
	return s, nil
}

// envNumber parses a float variable; blank is unset.
func envNumber(e Env, key string) (*float64, error) {
	v := e.get(key)
	if v == "" {
		return nil, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return nil, invalidf("", "%s must be a number, got %q.", key, e[key])
	}
	return &f, nil
}

// parseHeaderLines reads newline-separated "Name: Value" lines; lines
// without a colon or with an empty name are skipped.
func parseHeaderLines(s string) map[string]string {
	var h map[string]string
	for line := range strings.SplitSeq(s, "\n") {
		name, value, ok := strings.Cut(line, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			continue
		}
		if h == nil {
			h = map[string]string{}
		}
		h[name] = strings.TrimSpace(value)
	}
	return h
}
