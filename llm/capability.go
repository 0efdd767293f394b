package llm

import (
	"strings"
)

// Capability is what a model accepts and how large its window is.
type Capability struct {
	ImageIn  bool `json:"image_in"`
	VideoIn  bool `json:"video_in"`
	AudioIn  bool `json:"audio_in"`
	Thinking bool `json:"thinking"`
	ToolUse  bool `json:"tool_use"`
	// MaxContextTokens is the whole window used for completion budgeting;
	// 0 means unknown.
	MaxContextTokens int `json:"max_context_tokens"`
	// MaxInputTokens is an optional prompt cap, preferred by prompt-budget
	// checks; 0 means none.
	MaxInputTokens int `json:"max_input_tokens,omitempty"`
	// DynamicallyLoadedTools is true only when catalogued or declared.
	DynamicallyLoadedTools bool `json:"dynamically_loaded_tools,omitempty"`
}

// IsUnknown reports whether c carries no information at all: every flag
// false and no context size.
func (c Capability) IsUnknown() bool {
	return !c.ImageIn && !c.VideoIn && !c.AudioIn && !c.Thinking && !c.ToolUse &&
		!c.DynamicallyLoadedTools && c.MaxContextTokens == 0
}

// Wire names used by the capability registry.
const (
	WireKimi            = "kimi"
	WireOpenAI          = "openai"
	WireOpenAIResponses = "openai_responses"
	WireAnthropic       = "anthropic"
	WireGoogleGenAI     = "google-genai"
	WireVertexAI        = "vertexai"
)

var reasoningModel = lazyRegexp(`^o\d`)

// ModelCapability looks a model up in the static registry (spec 01 §1.8).
// The first matching entry wins; unknown models get the zero Capability.
// Catalogued entries never know the context size.
func ModelCapability(wire, model string) Capability {
	m := strings.ToLower(model)
	hasPrefix := func(ps ...string) bool {
		for _, p := range ps {
			if strings.HasPrefix(m, p) {
				return true
			}
		}
		return false
	}
	vision := []string{"gpt-4o", "gpt-4-turbo", "gpt-4.1", "gpt-4.5"}
	switch wire {
	case WireOpenAI, WireOpenAIResponses:
		switch {
		case reasoningModel().MatchString(m):
			return Capability{Thinking: true, ToolUse: true}
		case hasPrefix(vision...):
			return Capability{ImageIn: true, ToolUse: true}
		case wire == WireOpenAI && hasPrefix("gpt-3.5-turbo"):
			return Capability{ToolUse: true}
		}
	case WireAnthropic:
		switch {
		case hasPrefix("claude-3-", "claude-3.5-", "claude-3.7-"):
			return Capability{ImageIn: true, ToolUse: true}
		case hasPrefix("claude-opus-4", "claude-sonnet-4", "claude-haiku-4", "claude-fable"):
			return Capability{ImageIn: true, Thinking: true, ToolUse: true}
		}
	case WireGoogleGenAI, WireVertexAI:
		if strings.HasPrefix(m, "gemini-") && hasPrefix("gemini-1.5-pro", "gemini-1.5-flash",
			"gemini-2.0-flash", "gemini-2.0-pro", "gemini-2.5-pro", "gemini-2.5-flash") {
			return Capability{ImageIn: true, VideoIn: true, AudioIn: true, ToolUse: true,
				Thinking: strings.HasPrefix(m, "gemini-2.5-") || strings.Contains(m, "thinking")}
		}
	}
	return Capability{}
}
