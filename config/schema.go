package config

import "time"

// ProviderType is a provider's wire protocol (spec 06 §3.1).
type ProviderType string

// Provider types. kimi, openai and anthropic resolve; the Tier-2 types
// validate but fail at resolution; scripted is the built-in offline model
// and is never read from a file.
const (
	ProviderKimi            ProviderType = "kimi"
	ProviderOpenAI          ProviderType = "openai"
	ProviderAnthropic       ProviderType = "anthropic"
	ProviderOpenAIResponses ProviderType = "openai_responses"
	ProviderGoogleGenAI     ProviderType = "google-genai"
	ProviderVertexAI        ProviderType = "vertexai"
	ProviderScripted        ProviderType = "scripted"
)

// fileProviderTypes are the values `type` may take in a file.
func fileProviderTypes() []string {
	return []string{string(ProviderKimi), string(ProviderOpenAI), string(ProviderAnthropic),
		string(ProviderOpenAIResponses), string(ProviderGoogleGenAI), string(ProviderVertexAI)}
}

// PermissionMode is default_permission_mode.
type PermissionMode string

// Permission modes.
const (
	ModeManual PermissionMode = "manual"
	ModeYolo   PermissionMode = "yolo"
	ModeAuto   PermissionMode = "auto"
)

// Capability names accepted in `capabilities` (case-insensitive).
const (
	CapThinking               = "thinking"
	CapAlwaysThinking         = "always_thinking"
	CapImageIn                = "image_in"
	CapVideoIn                = "video_in"
	CapAudioIn                = "audio_in"
	CapToolUse                = "tool_use"
	CapDynamicallyLoadedTools = "dynamically_loaded_tools"
)

// Config is config.toml as a typed value, after salvage (spec 06 §2.2),
// the KIMI_MODEL_* overlay (§3.8) and the environment overrides (§1.10).
// It is built by Load and then only read; pass it (or values taken from
// it) down explicitly. Optional settings are pointers: nil means unset,
// so defaults stay with the code that owns the setting.
type Config struct {
	// Path is the file the configuration was read from.
	Path string

	DefaultModel          string
	DefaultProvider       string
	DefaultPermissionMode PermissionMode // "" means manual
	DefaultPlanMode       bool
	// MergeAllAvailableSkills defaults to true when nil.
	MergeAllAvailableSkills *bool
	ExtraSkillDirs          []string
	ExtraAgentDirs          []string
	Telemetry               *bool

	Providers map[string]Provider
	Models    map[string]ModelEntry

	Thinking     Thinking
	LoopControl  LoopControl
	Background   Background
	Subagent     Subagent
	MCP          MCP
	Image        Image
	Sandbox      Sandbox
	Services     Services
	ModelCatalog ModelCatalog
	// Experimental is [experimental]: feature name → on.
	Experimental map[string]bool
	// SecondaryModel is [secondary_model] as parsed (Tier 2: kept, not
	// interpreted).
	SecondaryModel map[string]any

	// Permission is every [[permission.rules]] entry (and the shorthand
	// tables) that passed the structural checks, in order.
	Permission []PermissionRule
	// Hooks is [[hooks]]; empty when the list was dropped as invalid.
	Hooks []Hook

	// Env holds the environment settings that have no config key.
	Env EnvSettings
	// EnvModel is true when KIMI_MODEL_NAME added the synthetic model.
	EnvModel bool
}

// Sandbox is [sandbox]: how commands are confined (issue 16).
type Sandbox struct {
	// Mode is "read-only", "workspace-write" or "off"; "" means the
	// default, workspace-write, in every front end.
	Mode string
	// Network lets sandboxed commands reach the network; nil means the
	// front end's default (print mode: off; the interface and ACP, where
	// a person approves commands: on).
	Network *bool
}

// Provider is one [providers.<name>] entry.
type Provider struct {
	Type    ProviderType
	APIKey  string
	BaseURL string
	// Env holds fallback values under conventional names (KIMI_API_KEY,
	// OPENAI_BASE_URL, …); it comes from the file only.
	Env map[string]string
	// CustomHeaders are sent on every request and win over all others.
	CustomHeaders map[string]string
	OAuth         *OAuthRef
	DefaultModel  string
}

// OAuthRef names stored OAuth credentials (Tier 2).
type OAuthRef struct {
	Storage   string
	Key       string
	OAuthHost string
}

// ModelEntry is one [models.<alias>] entry as written.
type ModelEntry struct {
	Provider string
	Model    string
	ModelSettings
	// Protocol "anthropic" routes the model over the Anthropic transport.
	Protocol string
	// BaseURL wins over the provider's.
	BaseURL string
	BetaAPI bool
	// Overrides win over the fields above at run time; nil when absent.
	Overrides *ModelSettings
}

// ModelSettings are the model fields an [models.<alias>.overrides] table
// may set. Zero values and nil slices mean unset.
type ModelSettings struct {
	MaxContextSize   int
	MaxInputSize     int
	MaxOutputSize    int
	Capabilities     []string
	DisplayName      string
	ReasoningKey     string
	AdaptiveThinking *bool
	SupportEfforts   []string
	DefaultEffort    string
	OffEffort        string
}

// Thinking is [thinking].
type Thinking struct {
	// Enabled defaults to true when nil; the deprecated mode = "off" sets
	// it to false.
	Enabled *bool
	Effort  string
	// Keep is the preserved-thinking value: KIMI_MODEL_THINKING_KEEP, else
	// the file's keep, else "" (meaning the default, "all").
	Keep string
}

// LoopControl is [loop_control] with KIMI_LOOP_* applied.
type LoopControl struct {
	// MaxStepsPerTurn caps the steps of a turn; nil or 0 means no cap.
	MaxStepsPerTurn *int
	// MaxAttemptsPerStep is the total attempts of a failing step, the
	// first included (max_attempts_per_step, or the older
	// max_retries_per_step); nil means the loop's default.
	MaxAttemptsPerStep *int
	// ReservedContextSize is nil when unset (ERRATA 17).
	ReservedContextSize *int
	// CompactionTriggerRatio is nil when unset.
	CompactionTriggerRatio *float64
	// MaxRalphIterations is accepted and unused.
	MaxRalphIterations *int
	// StreamIdleTimeoutMs, ResponseTimeoutMs, StepStallTimeoutMs and
	// MaxRetryAfterMs bound a slow or failing model service (0 turns a
	// bound off; nil is the default); read them through the methods of the
	// same names, which give durations.
	StreamIdleTimeoutMs *int
	ResponseTimeoutMs   *int
	StepStallTimeoutMs  *int
	MaxRetryAfterMs     *int
}

// StreamIdleTimeout is stream_idle_timeout_ms as the providers take it:
// 0 when unset (their default, llm.DefaultStreamIdleTimeout), negative
// when set to 0 (off).
func (lc LoopControl) StreamIdleTimeout() time.Duration { return msSetting(lc.StreamIdleTimeoutMs) }

// ResponseTimeout is response_timeout_ms as the providers take it: 0 when
// unset (llm.DefaultResponseTimeout), negative when set to 0 (off).
func (lc LoopControl) ResponseTimeout() time.Duration { return msSetting(lc.ResponseTimeoutMs) }

// StepStallTimeout is step_stall_timeout_ms as the loop takes it: 0 when
// unset (loop.DefaultStallTimeout), negative when set to 0 (no bound).
func (lc LoopControl) StepStallTimeout() time.Duration { return msSetting(lc.StepStallTimeoutMs) }

// MaxRetryAfter is max_retry_after_ms as the loop takes it: 0 when unset
// (loop.DefaultMaxRetryAfter), negative when set to 0 (any wait).
func (lc LoopControl) MaxRetryAfter() time.Duration { return msSetting(lc.MaxRetryAfterMs) }

// msSetting maps a millisecond key onto the convention of the packages
// that take durations, where zero means their default: unset is 0, an
// explicit 0 ("off") is -1.
func msSetting(ms *int) time.Duration {
	switch {
	case ms == nil:
		return 0
	case *ms == 0:
		return -1
	}
	return time.Duration(*ms) * time.Millisecond
}

// Background is [background] with its environment overrides applied.
type Background struct {
	MaxRunningTasks             *int
	KeepAliveOnExit             *bool
	KillGracePeriodMs           *int
	BashAutoBackgroundOnTimeout *bool
	BashTaskTimeoutS            *int
	PrintBackgroundMode         string
	PrintWaitCeilingS           *int
	PrintMaxTurns               *int
}

// Subagent is [subagent].
type Subagent struct {
	TimeoutMs *int
}

// MCP is [mcp] with the KIMI_MCP_* overrides applied.
type MCP struct {
	StartupTimeoutMs *int
	ToolTimeoutMs    *int
}

// Image is [image].
type Image struct {
	MaxEdgePx      *int
	ReadByteBudget *int
}

// Services is [services].
type Services struct {
	MoonshotSearch *Service
	MoonshotFetch  *Service
}

// Service is one web-tool service endpoint.
type Service struct {
	BaseURL       string
	APIKey        string
	OAuth         *OAuthRef
	CustomHeaders map[string]string
}

// ModelCatalog is [model_catalog] (Tier 2).
type ModelCatalog struct {
	RefreshIntervalMs *int
	RefreshOnStart    *bool
}

// RuleDecision is a permission rule's decision as written.
type RuleDecision string

// Rule decisions.
const (
	DecisionAllow RuleDecision = "allow"
	DecisionDeny  RuleDecision = "deny"
	DecisionAsk   RuleDecision = "ask"
)

// RuleOrigin says which file a rule came from (ERRATA 11).
type RuleOrigin string

// Rule origins.
const (
	OriginUser    RuleOrigin = "user"
	OriginProject RuleOrigin = "project"
)

// PermissionRule is one permission rule as the file states it. The pattern
// is not parsed here: agent/permission owns its syntax and reports faults
// in it with this rule's Source and Line.
type PermissionRule struct {
	Decision RuleDecision
	// Scope is "" when the file gave none (user in config.toml).
	Scope   string
	Pattern string
	Reason  string
	Origin  RuleOrigin
	// Source is the file, Line the entry's header line (0 when unknown).
	Source string
	Line   int
}

// Hook is one [[hooks]] entry.
type Hook struct {
	Event   string
	Matcher string
	Command string
	// Timeout is in seconds; 0 means the default (30).
	Timeout int
}

// hookEvents are the v1 lifecycle events (spec 06 §6.4).
func hookEvents() []string {
	return []string{"SessionStart", "SessionEnd", "UserPromptSubmit", "PreToolUse", "PermissionRequest",
		"PermissionResult", "PostToolUse", "PostToolUseFailure", "Stop", "StopFailure", "Interrupt",
		"SubagentStart", "SubagentStop", "PreCompact", "PostCompact", "Notification"}
}
